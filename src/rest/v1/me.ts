// GET /api/v1/me and PATCH /api/v1/me (docs/api.md, Company).
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { graphqlRoute, type V1Deps } from '../route.js';
import { CalendarFeedUrl, Id, Metadata, MetadataPatch, Nullable, RotateCalendarFeed, Timestamp } from '../schemas.js';

const CutoffMinutes = (what: string) =>
  Type.Integer({
    minimum: 0,
    maximum: 525_600,
    description: `A customer may ${what} until this many minutes before the start (default 0; a business is not bound)`,
  });

const MinNotice = Type.Integer({
  minimum: 0,
  maximum: 525_600,
  description: 'A start can be booked from this many minutes after now (default 0)',
});
const MaxAdvance = Type.Integer({
  minimum: 1,
  maximum: 730,
  description: 'A start can be booked at most this many days (of 24 hours) ahead (default 365)',
});
const SlotInterval = Type.Integer({
  minimum: 5,
  maximum: 240,
  description:
    'Offered starts step by this from each working interval and an off-grid start is refused (OFF_INTERVAL); unset: a 15-minute grid, any start accepted',
});
const DailyLimit = Type.Integer({
  minimum: 1,
  maximum: 1000,
  description: 'Pending and confirmed bookings of a service per employee per local day (default: no limit)',
});

/** The company's booking rules, defaults filled in (docs/api.md, Booking rules). */
export const BookingRules = Type.Object(
  {
    cancellationCutoffMinutes: CutoffMinutes('cancel'),
    rescheduleCutoffMinutes: CutoffMinutes('reschedule'),
    minNoticeMinutes: MinNotice,
    maxAdvanceDays: MaxAdvance,
    slotIntervalMinutes: Nullable(SlotInterval),
    dailyLimitPerEmployee: Nullable(DailyLimit),
  },
  { title: 'Booking rules' },
);

/** A change of booking rules: a value replaces, null resets (the company) or inherits (a service). */
export const BookingRulesPatch = Type.Object(
  {
    cancellationCutoffMinutes: Type.Optional(Nullable(CutoffMinutes('cancel'))),
    rescheduleCutoffMinutes: Type.Optional(Nullable(CutoffMinutes('reschedule'))),
    minNoticeMinutes: Type.Optional(Nullable(MinNotice)),
    maxAdvanceDays: Type.Optional(Nullable(MaxAdvance)),
    slotIntervalMinutes: Type.Optional(Nullable(SlotInterval)),
    dailyLimitPerEmployee: Type.Optional(Nullable(DailyLimit)),
  },
  { additionalProperties: false, title: 'Booking rules changes' },
);

/** A service's overrides: null inherits the company's rule. */
export const ServiceBookingRules = Type.Object(
  {
    cancellationCutoffMinutes: Nullable(CutoffMinutes('cancel')),
    rescheduleCutoffMinutes: Nullable(CutoffMinutes('reschedule')),
    minNoticeMinutes: Nullable(MinNotice),
    maxAdvanceDays: Nullable(MaxAdvance),
    slotIntervalMinutes: Nullable(SlotInterval),
    dailyLimitPerEmployee: Nullable(DailyLimit),
  },
  { title: "A service's booking rules (null inherits the company's)" },
);

const Channel = Type.Union([Type.Literal('email'), Type.Literal('webhook')], {
  description: 'email: an e-mail to the customer; webhook: a booking.reminder_due event',
});

/** One reminder (docs/api.md, Reminders). */
export const Reminder = Type.Object(
  {
    offsetMinutes: Type.Integer({
      minimum: 5,
      maximum: 20_160,
      description: 'Minutes before the start, 5 up to 20160 (14 days)',
    }),
    channel: Channel,
  },
  { additionalProperties: false, title: 'Reminder' },
);

/** A list of reminders as given: the whole list replaces the stored one. */
export const RemindersInput = Type.Array(Reminder, {
  maxItems: 5,
  description: 'Up to 5 reminders, no two alike; the list replaces the stored one',
});

const CompanyProfile = Type.Object(
  {
    _id: Id,
    name: Type.String(),
    email: Nullable(Type.String()),
    phone: Nullable(Type.String({ description: 'International format with leading +' })),
    address: Nullable(Type.String()),
    timezone: Type.String({ description: 'IANA time zone name' }),
    currency: Type.String({ description: 'ISO 4217 code' }),
    mode: Type.Union([Type.Literal('live'), Type.Literal('test')]),
    bookingRules: BookingRules,
    reminders: Type.Array(Reminder, {
      description: 'The reminders every booking gets, earliest first, unless its service has its own',
    }),
    metadata: Metadata,
    apiVersion: Type.Optional(
      Type.String({
        description:
          'The API version requests without an API-Version header get (the admin area changes it). Since 2026-11-24; absent in answers of 2026-11-23',
        examples: ['2026-11-24'],
      }),
    ),
    testClockId: Nullable({
      ...Id,
      description:
        "The test clock whose time is the company's domain time (docs/sandbox.md, Test clocks); null: the real time, always for live companies",
    }),
    createdAt: Timestamp,
  },
  { $id: 'CompanyProfile', title: 'Company profile' },
);

const UpdateCompany = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    email: Type.Union([Type.String({ maxLength: 254 }), Type.Null()]),
    phone: Type.Union([Type.String({ maxLength: 32 }), Type.Null()]),
    address: Type.Union([Type.String({ maxLength: 500 }), Type.Null()]),
    timezone: Type.String({ maxLength: 64 }),
    currency: Type.String({ minLength: 3, maxLength: 3 }),
    bookingRules: BookingRulesPatch,
    // [] for none; null restores the default (one e-mail 24 hours before).
    reminders: Nullable(RemindersInput),
    metadata: MetadataPatch,
    // Sandbox only (403 FORBIDDEN for live companies); null detaches.
    testClockId: Nullable({ ...Id, description: 'Attach to one of its test clocks (sandbox only); null detaches' }),
  },
  { additionalProperties: false },
);
const UpdateCompanyBody = Type.Partial(UpdateCompany, {
  additionalProperties: false,
  title: 'Company profile changes',
});

export default async function meRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/me',
    operationId: 'getMe',
    summary: 'The profile of the company the credential belongs to',
    tags: ['Company'],
    scope: 'company:read',
    response: CompanyProfile,
    query: 'me',
  });
  graphqlRoute(app, deps, {
    method: 'PATCH',
    url: '/me',
    operationId: 'updateMe',
    summary: "Change the company's profile; absent fields stay, null clears an optional one",
    tags: ['Company'],
    scope: 'company:write',
    request: { body: UpdateCompanyBody },
    response: CompanyProfile,
    mutation: 'updateMe',
    variables: (req) => ({ input: req.body }),
  });
  graphqlRoute(app, deps, {
    method: 'POST',
    url: '/me/calendar-feed/rotate',
    operationId: 'rotateCompanyCalendarFeed',
    summary:
      "Create the whole company's calendar feed or give it a new secret URL (the old one stops at once); scope employees:write",
    tags: ['Company'],
    scope: 'employees:write',
    request: { body: RotateCalendarFeed },
    optionalBody: true,
    response: CalendarFeedUrl,
    mutation: 'rotateCompanyCalendarFeed',
    variables: (req) => ({ input: req.body }),
  });
}
