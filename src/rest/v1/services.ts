// /api/v1/services (docs/api.md). DELETE deactivates.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { graphqlRoute, type V1Deps } from '../route.js';
import { Id, Metadata, MetadataPatch, Nullable, PageQuery, PathId, Timestamp } from '../schemas.js';
import { BookingRulesPatch, Reminder, RemindersInput, ServiceBookingRules } from './me.js';

const Money = (description: string) => Type.Integer({ minimum: 0, maximum: 100_000_000, description });

const CancellationPolicy = Type.Object(
  {
    freeUntilMinutesBefore: Type.Integer({
      minimum: 0,
      maximum: 525_600,
      description: 'A customer cancel is free until this many minutes before the start',
    }),
    lateFee: Type.Object(
      {
        percent: Nullable(Type.Integer({ minimum: 0, maximum: 100, description: "A percent of the booking's price" })),
        amount: Nullable(Money('A fixed fee in minor units')),
      },
      { description: 'One of the two is set, the other null' },
    ),
  },
  { title: 'Cancellation policy' },
);

const CancellationPolicyInput = Type.Object(
  {
    freeUntilMinutesBefore: CancellationPolicy.properties.freeUntilMinutesBefore,
    lateFee: Type.Object(
      {
        percent: Type.Optional(Type.Integer({ description: "0–100: a percent of the booking's price" })),
        amount: Type.Optional(Type.Integer({ description: 'A fixed fee in minor units, at most the price' })),
      },
      { additionalProperties: false, description: 'Exactly one of percent and amount' },
    ),
  },
  { additionalProperties: false, title: 'Cancellation policy (input)' },
);

export const ResourceKind = Type.Union([Type.Literal('room'), Type.Literal('equipment')]);

const Kind = Type.Union([Type.Literal('appointment'), Type.Literal('class')]);

const OfferMode = Type.Union([Type.Literal('auto'), Type.Literal('offer')], {
  description:
    'auto: a freed place goes to the first in line at once; offer: it is offered to them until offerExpiresAt',
});
const waitlistFields = {
  enabled: Type.Boolean({ description: 'Whether a full session takes new names (POST /bookings with waitlist: true)' }),
  maxSize: Type.Integer({
    minimum: 1,
    maximum: 1000,
    description: 'The most bookings waiting per session (default 20)',
  }),
  offerMode: OfferMode,
  offerMinutes: Type.Integer({
    minimum: 1,
    maximum: 10_080,
    description: 'offer mode: how long an offer lasts, never past the start (default 60)',
  }),
  cutoffMinutes: Type.Integer({
    minimum: 0,
    maximum: 10_080,
    description: 'No promotion or offer once the session starts within this many minutes (default 60)',
  }),
};
const Waitlist = Type.Object(waitlistFields, { title: 'Waitlist' });
const WaitlistInput = Type.Object(
  {
    enabled: waitlistFields.enabled,
    maxSize: Type.Optional(waitlistFields.maxSize),
    offerMode: Type.Optional({ ...OfferMode, description: `${OfferMode.description} (default auto)` }),
    offerMinutes: Type.Optional(waitlistFields.offerMinutes),
    cutoffMinutes: Type.Optional(waitlistFields.cutoffMinutes),
  },
  { additionalProperties: false, title: 'Waitlist (input)', description: 'Class services only' },
);

const QuestionType = Type.Union(
  ['text', 'long_text', 'choice', 'multi_choice', 'boolean', 'phone'].map((s) => Type.Literal(s)),
  { description: 'text (≤ 1000 characters), long_text (≤ 5000), choice, multi_choice, boolean, phone (E.164)' },
);
const QuestionFields = {
  id: Type.String({ description: 'Unique in the service, the key of its answer: 1–40 letters, digits, _ or -' }),
  label: Type.String({ description: 'What the customer is asked, 1–200 characters' }),
  type: QuestionType,
};
const Question = Type.Object(
  {
    ...QuestionFields,
    required: Type.Boolean(),
    options: Nullable(Type.Array(Type.String(), { description: 'choice and multi_choice only' })),
  },
  { title: 'Question' },
);
const QuestionInput = Type.Object(
  {
    ...QuestionFields,
    required: Type.Optional(Type.Boolean({ description: 'Default false' })),
    options: Type.Optional(
      Nullable(
        Type.Array(Type.String(), {
          description:
            'For choice and multi_choice only, and required for them: 1–50 distinct options of 1–100 characters',
        }),
      ),
    ),
  },
  { additionalProperties: false, title: 'Question (input)' },
);

const Service = Type.Object(
  {
    _id: Id,
    name: Type.String(),
    description: Nullable(Type.String()),
    kind: Kind,
    durationMinutes: Type.Integer(),
    price: Type.Integer({ description: "Minor units of the company's currency" }),
    bufferBeforeMinutes: Type.Integer(),
    bufferAfterMinutes: Type.Integer(),
    employeeIds: Type.Array(Id, { description: 'Employees qualified to perform it' }),
    requiresPayment: Type.Boolean(),
    depositAmount: Nullable(
      Type.Integer({
        description:
          'Minor units paid first (a payment of kind deposit, which confirms the booking); the balance later',
      }),
    ),
    cancellationPolicy: Nullable(CancellationPolicy),
    bookingRules: ServiceBookingRules,
    reminders: Nullable(
      Type.Array(Reminder, { description: "The service's own reminders; null: it inherits the company's" }),
    ),
    questions: Type.Array(Question, { description: 'Asked when it is booked, in this order' }),
    waitlist: Nullable(Waitlist),
    active: Type.Boolean(),
    requiredResourceIds: Type.Array(Id, { description: 'Resources every booking of it holds, all of them' }),
    requiredResourceKinds: Type.Array(ResourceKind, {
      description: 'For each kind listed, a booking holds any one free resource of that kind',
    }),
    metadata: Metadata,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Service', title: 'Service' },
);

const Fields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Nullable(Type.String({ maxLength: 5000 })),
  durationMinutes: Type.Integer({ minimum: 1, maximum: 1440 }),
  price: Type.Integer({ minimum: 0, maximum: 100_000_000 }),
  bufferBeforeMinutes: Type.Integer({ minimum: 0, maximum: 720 }),
  bufferAfterMinutes: Type.Integer({ minimum: 0, maximum: 720 }),
  employeeIds: Type.Array(Id, { maxItems: 500 }),
  requiresPayment: Type.Boolean(),
  // Bounds of the money fields are judged by the use case, which names the field in its 400.
  depositAmount: Nullable(Type.Integer({ description: 'Minor units, 1 up to the price; null removes it' })),
  cancellationPolicy: Nullable(CancellationPolicyInput),
  bookingRules: BookingRulesPatch,
  // The service's own reminders ([] for none); null inherits the company's.
  reminders: Nullable(RemindersInput),
  questions: Type.Array(QuestionInput, {
    description: 'At most 20 questions (ids unique); a PATCH replaces the list',
  }),
  // A class service's waitlist; null removes it (docs/api.md, Class waitlists).
  waitlist: Nullable(WaitlistInput),
  active: Type.Boolean(),
  requiredResourceIds: Type.Array(Id, {
    maxItems: 10,
    description: 'Resources of this company every booking holds, all of them; no duplicates; [] for none',
  }),
  requiredResourceKinds: Type.Array(ResourceKind, {
    maxItems: 2,
    description: 'Kinds of which every booking holds any one free resource, each at most once; [] for none',
  }),
};
const opt = Object.fromEntries(
  Object.entries(Fields)
    .filter(([k]) => k !== 'name' && k !== 'durationMinutes')
    .map(([k, v]) => [k, Type.Optional(v)]),
);
const CreateService = Type.Object(
  {
    name: Fields.name,
    durationMinutes: Fields.durationMinutes,
    kind: Type.Optional(Kind),
    ...opt,
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
const UpdateService = Type.Partial(Type.Object({ ...Fields, metadata: MetadataPatch }), {
  additionalProperties: false,
  description: 'kind is fixed at creation',
});

const ById = Type.Object({ id: PathId });
const tags = ['Services'];

export default async function serviceRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/services',
    operationId: 'listServices',
    summary: 'List services, newest first',
    tags,
    scope: 'services:read',
    list: true,
    request: {
      querystring: Type.Object(
        { ...PageQuery, active: Type.Optional(Type.Boolean()), kind: Type.Optional(Kind) },
        { additionalProperties: false },
      ),
    },
    response: Service,
    query: 'services',
    variables: (req) => req.query,
  });
  graphqlRoute(app, deps, {
    method: 'POST',
    url: '/services',
    operationId: 'createService',
    summary: 'Create a service',
    tags,
    scope: 'services:write',
    request: { body: CreateService },
    response: Service,
    mutation: 'createService',
    variables: (req) => ({ input: req.body }),
  });
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/services/:id',
    operationId: 'getService',
    summary: 'Get a service',
    tags,
    scope: 'services:read',
    request: { params: ById },
    response: Service,
    query: 'service',
    variables: (req) => req.params,
  });
  graphqlRoute(app, deps, {
    method: 'PATCH',
    url: '/services/:id',
    operationId: 'updateService',
    summary: 'Change a service; employeeIds replaces the set',
    tags,
    scope: 'services:write',
    request: { params: ById, body: UpdateService },
    response: Service,
    mutation: 'updateService',
    variables: (req) => ({ id: req.params.id, input: req.body }),
  });
  graphqlRoute(app, deps, {
    method: 'DELETE',
    url: '/services/:id',
    operationId: 'deleteService',
    summary: 'Deactivate a service (kept with its history, no longer bookable)',
    tags,
    scope: 'services:write',
    request: { params: ById },
    response: Service,
    mutation: 'deactivateService',
    variables: (req) => req.params,
  });
}
