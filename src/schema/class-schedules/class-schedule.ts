// Class schedules (docs/api.md, Class schedules). Schedules are timetables of class services, so
// they use the services:read / services:write scopes, as class sessions do.
import type { ClassSchedule, ClassScheduleStatus, Prisma } from '../../generated/prisma/client.js';
import { builder } from '../builder.js';
import { connectionType, nodeQuery, resolveConnection, ListOrderEnum } from '../connections.js';
import { legacyPageArgs } from '../pagination.js';
import type { SkippedOccurrence } from './generate-sessions.js';
import {
  createClassSchedule,
  deleteClassSchedule,
  findClassSchedule,
  updateClassSchedule,
  type UnchangedSession,
} from './manage-class-schedules.js';
import { NodeInterface } from '../node.js';

export const ClassScheduleStatusEnum = builder.enumType('ClassScheduleStatus', {
  description: "A class schedule's state",
  values: {
    active: { description: 'Generates sessions up to its rolling horizon' },
    stopped: { description: 'Deleted: generates nothing more; its future empty sessions were cancelled' },
  } satisfies Record<ClassScheduleStatus, { description: string }>,
});

const SkipReasonEnum = builder.enumType('ClassScheduleSkippedReason', {
  description: 'Why an occurrence has no session (the reason codes of /availability/explain)',
  values: {
    BOOKED: { description: 'The instructor has an appointment or teaches another class then' },
    TIME_OFF: { description: 'The instructor is off then' },
    CLOSURE: { description: 'The business is closed then' },
    NOT_QUALIFIED: { description: 'The instructor is deactivated or no longer performs the service' },
    SERVICE_INACTIVE: { description: 'The class service is deactivated' },
    RESOURCE_BUSY: { description: 'A room or piece of equipment the session would hold is busy or closed then' },
  },
});

const UnchangedReasonEnum = builder.enumType('ClassScheduleUnchangedReason', {
  description: 'Why a change or stop left a session as it was',
  values: { HAS_BOOKINGS: { description: 'The session has bookings' } },
});

const SkippedOccurrenceType = builder.objectRef<SkippedOccurrence>('ClassScheduleSkippedOccurrence').implement({
  description: 'An occurrence of a schedule that got no session, and why',
  fields: (t) => ({
    startTime: t.field({
      type: 'DateTime',
      description: 'When it would have started',
      resolve: (o) => new Date(o.startTime),
    }),
    reason: t.field({ type: SkipReasonEnum, description: 'Why it was skipped', resolve: (o) => o.reason }),
    message: t.exposeString('message', { description: 'The reason in words' }),
  }),
});

const UnchangedSessionType = builder.objectRef<UnchangedSession>('ClassScheduleUnchangedSession').implement({
  description: 'A future session the last change or stop of its schedule left as it was',
  fields: (t) => ({
    classId: t.exposeID('classId', { description: 'The class session id' }),
    startTime: t.field({ type: 'DateTime', description: 'When it starts', resolve: (o) => new Date(o.startTime) }),
    reason: t.field({ type: UnchangedReasonEnum, description: 'Why it was left', resolve: (o) => o.reason }),
  }),
});

export const ClassScheduleType = builder.prismaObject('ClassSchedule', {
  interfaces: [NodeInterface],
  description: 'A recurring class timetable: an RRULE at a local time, generating class sessions ahead',
  fields: (t) => ({
    _id: t.exposeID('id', { description: 'The class schedule id' }),
    serviceId: t.exposeID('serviceId', { description: 'The id of the class service' }),
    employeeId: t.exposeID('employeeId', { description: 'The id of the instructor' }),
    locationId: t.exposeID('locationId', {
      nullable: true,
      description: "Where its sessions take place; its times are in the location's zone. Null: none",
    }),
    resourceIds: t.exposeIDList('resourceIds', {
      description: 'Resources every session holds, besides those the class service requires',
    }),
    localStartTime: t.exposeString('localStartTime', {
      description: "The sessions' wall-clock start, HH:MM in the company's (or its location's) time zone",
    }),
    rrule: t.exposeString('rrule', { description: 'The RFC 5545 recurrence rule (docs: Recurrence rules)' }),
    capacity: t.exposeInt('capacity', { description: 'Places of each generated session' }),
    startsOn: t.exposeString('startsOn', { description: 'The first local date, YYYY-MM-DD' }),
    endsOn: t.exposeString('endsOn', { nullable: true, description: 'The last local date (inclusive), if any' }),
    status: t.expose('status', { type: ClassScheduleStatusEnum, description: 'The schedule state' }),
    generatedUntil: t.expose('generatedUntil', {
      type: 'DateTime',
      description: 'Sessions exist for every occurrence starting before this instant (the horizon reached)',
    }),
    skippedOccurrences: t.field({
      type: [SkippedOccurrenceType],
      description: 'Occurrences that got no session because the instructor could not teach then (latest 200)',
      resolve: (s) => s.skippedOccurrences as unknown as SkippedOccurrence[],
    }),
    unchangedSessions: t.field({
      type: [UnchangedSessionType],
      description: 'Future sessions the last change or stop left as they were (they have bookings)',
      resolve: (s) => s.unchangedSessions as unknown as UnchangedSession[],
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When it last changed' }),
  }),
});

const ClassScheduleConnection = connectionType<ClassSchedule>('ClassSchedule', ClassScheduleType);

const CreateClassScheduleInput = builder.inputType('CreateClassScheduleInput', {
  description: 'A new recurring class timetable',
  fields: (t) => ({
    serviceId: t.id({ required: true, description: 'The class service' }),
    employeeId: t.id({ required: true, description: 'The instructor' }),
    locationId: t.id({ description: 'A location of the company: the times are then in its zone' }),
    resourceIds: t.idList({ description: 'Resources every session holds (at most 10), besides the service’s' }),
    localStartTime: t.string({
      required: true,
      description: "HH:MM in the company's (or the location's) time zone, e.g. 18:30",
    }),
    rrule: t.string({ required: true, description: 'An RFC 5545 RRULE, e.g. FREQ=WEEKLY;BYDAY=MO,WE' }),
    capacity: t.int({ required: true, description: 'Places of each session' }),
    startsOn: t.string({ required: true, description: 'The first local date, YYYY-MM-DD' }),
    endsOn: t.string({ description: 'The last local date (inclusive), YYYY-MM-DD' }),
  }),
});
const ClassScheduleApplyToEnum = builder.enumType('ClassScheduleApplyTo', {
  description: 'Which sessions a change of a schedule applies to',
  values: { future: { description: 'The future sessions without bookings' } },
});
const UpdateClassScheduleInput = builder.inputType('UpdateClassScheduleInput', {
  description: 'The fields to change from now on; the rest stay',
  fields: (t) => ({
    applyTo: t.field({ type: ClassScheduleApplyToEnum, required: true, description: 'Must be future' }),
    employeeId: t.id({ description: 'Another instructor' }),
    locationId: t.id({ description: 'Another location; null: none' }),
    resourceIds: t.idList({ description: 'Other resources every session holds; [] for none' }),
    localStartTime: t.string({ description: 'A new wall-clock start, HH:MM' }),
    rrule: t.string({ description: 'A new recurrence rule' }),
    capacity: t.int({ description: 'A new number of places' }),
    endsOn: t.string({ description: 'A new last local date; null: none' }),
  }),
});

const read = { scope: 'services:read' } as const;
const write = { scope: 'services:write' } as const;
const company = (ctx: { credential: { companyId: string } | null }) => ctx.credential!.companyId;

builder.queryFields((t) => ({
  classSchedules: t.connection(
    {
      type: ClassScheduleType,
      description: 'Class schedules, newest first unless ordered',
      authScopes: read,
      args: {
        ...legacyPageArgs(t.arg),
        serviceId: t.arg.id({ description: 'Only schedules of this class service' }),
        employeeId: t.arg.id({ description: "Only this instructor's schedules" }),
        status: t.arg({ type: ClassScheduleStatusEnum, description: 'Only schedules in this state' }),
        orderBy: t.arg({ type: ListOrderEnum, description: 'The order (default NEWEST_FIRST)' }),
      },
      resolve: (_r, a, ctx, info) => {
        const where: Prisma.ClassScheduleWhereInput = {
          companyId: company(ctx),
          ...(a.serviceId != null ? { serviceId: String(a.serviceId) } : {}),
          ...(a.employeeId != null ? { employeeId: String(a.employeeId) } : {}),
          ...(a.status ? { status: a.status } : {}),
        };
        const query = nodeQuery(ctx, info, 'ClassSchedule');
        return resolveConnection(
          a,
          a.orderBy,
          company(ctx),
          (q) => ctx.db.classSchedule.findMany({ ...query, ...q, where: { ...q.where, ...where } }),
          () => ctx.db.classSchedule.count({ where }),
        );
      },
    },
    ClassScheduleConnection,
  ),
  classSchedule: t.prismaField({
    type: 'ClassSchedule',
    description: 'One class schedule by id',
    authScopes: read,
    args: { id: t.arg.id({ required: true, description: 'The class schedule id' }) },
    resolve: (_q, _r, args, ctx) => findClassSchedule(ctx.db, company(ctx), String(args.id)),
  }),
}));

builder.mutationFields((t) => ({
  createClassSchedule: t.field({
    type: ClassScheduleType,
    description:
      'Creates a recurring timetable and its sessions for the coming 12 weeks; occurrences the instructor cannot teach are in skippedOccurrences',
    authScopes: write,
    args: { input: t.arg({ type: CreateClassScheduleInput, required: true, description: 'The schedule' }) },
    resolve: (_r, args, ctx) => createClassSchedule(ctx.db, { companyId: company(ctx), input: args.input }),
  }),
  updateClassSchedule: t.field({
    type: ClassScheduleType,
    description:
      'Changes a schedule from now on: future sessions without bookings follow, those with bookings are in unchangedSessions',
    authScopes: write,
    args: {
      id: t.arg.id({ required: true, description: 'The class schedule id' }),
      input: t.arg({ type: UpdateClassScheduleInput, required: true, description: 'The fields to change' }),
    },
    resolve: (_r, args, ctx) =>
      updateClassSchedule(ctx.db, { companyId: company(ctx), scheduleId: String(args.id), input: args.input }),
  }),
  deleteClassSchedule: t.field({
    type: ClassScheduleType,
    description:
      'Stops a schedule: no more sessions, its future empty sessions cancelled; those with bookings stay (unchangedSessions)',
    authScopes: write,
    args: { id: t.arg.id({ required: true, description: 'The class schedule id' }) },
    resolve: (_r, args, ctx) => deleteClassSchedule(ctx.db, { companyId: company(ctx), scheduleId: String(args.id) }),
  }),
}));
