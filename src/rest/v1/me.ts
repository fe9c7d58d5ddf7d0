// GET /api/v1/me and PATCH /api/v1/me (docs/api.md, Company).
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { graphqlRoute, type V1Deps } from '../route.js';
import { Id, Metadata, MetadataPatch, Nullable, Timestamp } from '../schemas.js';

const CutoffMinutes = (what: string) =>
  Type.Integer({
    minimum: 0,
    maximum: 525_600,
    description: `A customer may ${what} until this many minutes before the start (default 0; a business is not bound)`,
  });

/** The company's booking rules, defaults filled in (docs/api.md, Booking rules). */
export const BookingRules = Type.Object(
  { cancellationCutoffMinutes: CutoffMinutes('cancel'), rescheduleCutoffMinutes: CutoffMinutes('reschedule') },
  { title: 'Booking rules' },
);

/** A change of booking rules: a value replaces, null resets (the company) or inherits (a service). */
export const BookingRulesPatch = Type.Object(
  {
    cancellationCutoffMinutes: Type.Optional(Nullable(CutoffMinutes('cancel'))),
    rescheduleCutoffMinutes: Type.Optional(Nullable(CutoffMinutes('reschedule'))),
  },
  { additionalProperties: false, title: 'Booking rules changes' },
);

/** A service's overrides: null inherits the company's rule. */
export const ServiceBookingRules = Type.Object(
  {
    cancellationCutoffMinutes: Nullable(CutoffMinutes('cancel')),
    rescheduleCutoffMinutes: Nullable(CutoffMinutes('reschedule')),
  },
  { title: "A service's booking rules (null inherits the company's)" },
);

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
    metadata: Metadata,
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
    metadata: MetadataPatch,
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
    summary: 'The profile of the company the credential belongs to',
    tags: ['Company'],
    scope: 'company:read',
    response: CompanyProfile,
    query: 'me',
  });
  graphqlRoute(app, deps, {
    method: 'PATCH',
    url: '/me',
    summary: "Change the company's profile; absent fields stay, null clears an optional one",
    tags: ['Company'],
    scope: 'company:write',
    request: { body: UpdateCompanyBody },
    response: CompanyProfile,
    mutation: 'updateMe',
    variables: (req) => ({ input: req.body }),
  });
}
