// Availability (docs/api.md): `slots` for appointment services, `sessions` for class services.
// Scope: availability:read.
import { builder } from '../builder.js';
import type { Slot } from './schedule.js';
import { findAvailability, type Availability, type SessionAvailability } from './find-availability.js';

const SlotType = builder.objectRef<Slot>('Slot').implement({
  fields: (t) => ({
    startTime: t.expose('startTime', { type: 'DateTime' }),
    endTime: t.expose('endTime', { type: 'DateTime' }),
    employeeIds: t.exposeStringList('employeeIds', { description: 'The qualified employees free for this slot' }),
  }),
});

const SessionType = builder.objectRef<SessionAvailability>('SessionAvailability').implement({
  fields: (t) => ({
    classId: t.exposeString('classId'),
    startTime: t.expose('startTime', { type: 'DateTime' }),
    endTime: t.expose('endTime', { type: 'DateTime' }),
    employeeId: t.exposeString('employeeId'),
    capacity: t.exposeInt('capacity'),
    spotsLeft: t.exposeInt('spotsLeft'),
  }),
});

const AvailabilityType = builder.objectRef<Availability>('Availability').implement({
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
    authScopes: { scope: 'availability:read' },
    args: {
      serviceId: t.arg.string({ required: true }),
      from: t.arg({ type: 'DateTime', required: true }),
      to: t.arg({ type: 'DateTime', required: true }),
      employeeId: t.arg.string(),
    },
    resolve: (_r, args, ctx) => findAvailability(ctx.db, { company: ctx.credential!.company, input: args }),
  }),
);
