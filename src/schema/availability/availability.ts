// Availability (docs/api.md): `slots` for appointment services, `sessions` for class services.
// Scope: availability:read.
import { builder } from '../builder.js';
import type { Slot } from './schedule.js';
import type { VisitSlotItem } from './visit-availability.js';
import { findAvailability, type Availability, type SessionAvailability } from './find-availability.js';
import { explainAvailability, type Explanation } from './explain-availability.js';
import type { Reason } from './refusals.js';

const VisitSlotItemType = builder.objectRef<VisitSlotItem>('VisitSlotItem').implement({
  description: 'One service of a visit at a free start: its times and the employees free for it',
  fields: (t) => ({
    serviceId: t.exposeID('serviceId', { description: 'The service' }),
    startTime: t.expose('startTime', { type: 'DateTime', description: 'When this item starts' }),
    endTime: t.expose('endTime', { type: 'DateTime', description: 'When this item ends' }),
    employeeIds: t.exposeIDList('employeeIds', { description: 'The qualified employees free for this item' }),
  }),
});

const SlotType = builder.objectRef<Slot & { items?: VisitSlotItem[] }>('Slot').implement({
  description: 'A free time of an appointment service, or of a whole visit (serviceIds)',
  fields: (t) => ({
    startTime: t.expose('startTime', { type: 'DateTime', description: 'When it starts' }),
    endTime: t.expose('endTime', {
      type: 'DateTime',
      description: 'When it ends (for serviceIds, when the last service ends)',
    }),
    employeeIds: t.exposeIDList('employeeIds', {
      description: 'The qualified employees free for this slot (for serviceIds, for the first service)',
    }),
    items: t.field({
      type: [VisitSlotItemType],
      nullable: true,
      description: 'For serviceIds: each service back to back, with its times and free employees; null otherwise',
      resolve: (s) => s.items ?? null,
    }),
  }),
});

const SessionType = builder.objectRef<SessionAvailability>('SessionAvailability').implement({
  description: 'A scheduled class session with places left, or none',
  fields: (t) => ({
    classId: t.exposeID('classId', { description: 'The class session id, to book with' }),
    startTime: t.expose('startTime', { type: 'DateTime', description: 'When it starts' }),
    endTime: t.expose('endTime', { type: 'DateTime', description: 'When it ends' }),
    employeeId: t.exposeID('employeeId', { description: 'The id of the instructor' }),
    capacity: t.exposeInt('capacity', { description: 'How many places it has' }),
    spotsLeft: t.exposeInt('spotsLeft', { description: 'How many places are free' }),
  }),
});

const AvailabilityType = builder.objectRef<Availability>('Availability').implement({
  description: 'What can be booked: slots for an appointment service, sessions for a class service',
  fields: (t) => ({
    slots: t.field({
      type: [SlotType],
      nullable: true,
      description: 'Appointment services',
      resolve: (a) => (a.kind === 'appointment' ? a.slots : null),
    }),
    sessions: t.field({
      type: [SessionType],
      nullable: true,
      description: 'Class services',
      resolve: (a) => (a.kind === 'class' ? a.sessions : null),
    }),
  }),
});

builder.queryField('availability', (t) =>
  t.field({
    type: AvailabilityType,
    description: 'Free slots or class sessions of a service in [from, to), at most 31 days',
    authScopes: { scope: 'availability:read' },
    args: {
      serviceId: t.arg.id({ description: 'The service (or serviceIds)' }),
      serviceIds: t.arg.idList({
        description: "A visit's services in order: the starts where all of them fit back to back (or serviceId)",
      }),
      from: t.arg({ type: 'DateTime', required: true, description: 'The start of the window' }),
      to: t.arg({ type: 'DateTime', required: true, description: 'The end of the window' }),
      employeeId: t.arg.id({ description: "Only this employee's slots" }),
      locationId: t.arg.id({
        description: 'Only working intervals (and resources of a required kind) at this location',
      }),
    },
    resolve: (_r, args, ctx) => findAvailability(ctx.db, { company: ctx.credential!.company, input: args }),
  }),
);

export const ReasonType = builder.objectRef<Reason>('AvailabilityReason').implement({
  description: 'Why a time cannot be booked (docs/api.md, "Why a time is not available")',
  fields: (t) => ({
    code: t.exposeString('code', {
      description:
        'OUTSIDE_WORKING_HOURS, TIME_OFF, DATE_OVERRIDE, CLOSURE, BOOKED, BUFFER, MIN_NOTICE, MAX_ADVANCE, ' +
        'OFF_INTERVAL, DAILY_LIMIT, NOT_QUALIFIED, SERVICE_INACTIVE, CLASS_FULL, NO_SESSION, EXTERNAL_BUSY, RESOURCE_BUSY; ' +
        'an open list',
    }),
    message: t.exposeString('message', { description: 'For people; may change' }),
    employeeId: t.exposeID('employeeId', {
      nullable: true,
      description: 'The employee it concerns; null: it concerns every employee',
    }),
    resourceId: t.exposeID('resourceId', {
      nullable: true,
      description: 'The room or piece of equipment it concerns (RESOURCE_BUSY); null otherwise',
    }),
    details: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Figures of the reason, e.g. earliestStart for MIN_NOTICE, classId for CLASS_FULL',
      resolve: (r) => r.details ?? null,
    }),
  }),
});

const ExplanationType = builder.objectRef<Explanation>('AvailabilityExplanation').implement({
  description: 'Whether a service can be booked at one start, with whom, and why not',
  fields: (t) => ({
    available: t.exposeBoolean('available', { description: 'Whether a booking at that start would be accepted' }),
    employeeIds: t.exposeIDList('employeeIds', {
      description: 'The employees who can take it (for a class service, instructors of sessions with places)',
    }),
    reasons: t.field({
      type: [ReasonType],
      description: "Why the others cannot; a refused booking's details.reasons are these",
      resolve: (e) => e.reasons,
    }),
  }),
});

builder.queryField('availabilityExplanation', (t) =>
  t.field({
    type: ExplanationType,
    description:
      'Whether a service can be booked at one start (by one employee, if named), and every reason why not: ' +
      'the same rule /availability and booking use',
    authScopes: { scope: 'availability:read' },
    args: {
      serviceId: t.arg.id({ required: true, description: 'The service' }),
      startTime: t.arg({ type: 'DateTime', required: true, description: 'The start to explain' }),
      employeeId: t.arg.id({ description: 'Only this employee' }),
      locationId: t.arg.id({
        description: 'As on availability: only working intervals (and resources of a required kind) at this location',
      }),
    },
    resolve: (_r, args, ctx) => explainAvailability(ctx.db, { company: ctx.credential!.company, input: args }),
  }),
);
