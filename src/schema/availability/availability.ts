// Availability (docs/api.md): `slots` for appointment services, `sessions` for class services.
// Scope: availability:read.
import { builder } from '../builder.js';
import type { Slot } from './schedule.js';
import { findAvailability, type Availability, type SessionAvailability } from './find-availability.js';

const SlotType = builder.objectRef<Slot>('Slot').implement({
  description: 'A free time of an appointment service',
  fields: (t) => ({
    startTime: t.expose('startTime', { type: 'DateTime', description: 'When it starts' }),
    endTime: t.expose('endTime', { type: 'DateTime', description: 'When it ends' }),
    employeeIds: t.exposeIDList('employeeIds', { description: 'The qualified employees free for this slot' }),
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
      serviceId: t.arg.id({ required: true, description: 'The service' }),
      from: t.arg({ type: 'DateTime', required: true, description: 'The start of the window' }),
      to: t.arg({ type: 'DateTime', required: true, description: 'The end of the window' }),
      employeeId: t.arg.id({ description: "Only this employee's slots" }),
    },
    resolve: (_r, args, ctx) => findAvailability(ctx.db, { company: ctx.credential!.company, input: args }),
  }),
);
