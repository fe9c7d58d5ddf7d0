// Events (docs/api.md, docs/webhooks.md): every event ever emitted for the company, so a client that missed
// webhooks can re-sync, and the live `events` subscription (docs/graphql.md). Scope: events:read.
import { GraphQLScalarType, Kind } from 'graphql';
import type { Prisma } from '../../generated/prisma/client.js';
import { AppError } from '../../errors.js';
import { isId } from '../../ids.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { EVENT_TYPES } from './events.js';
import { EVENT_RECORD_SELECT, liveEvents, type EventRecord } from './live-events.js';
import { listEventsOfBookings } from './list-events.js';
import { parseEventPosition, type EventPositionInput } from '../event-position.js';
import { DEFAULT_LIMIT, legacyPageArgs, MAX_LIMIT } from '../pagination.js';
import { resolveArrayConnection } from '@pothos/plugin-relay';
import { connectionType, resolveConnection } from '../connections.js';
import { NodeInterface } from '../node.js';

builder.addScalarType(
  'EventPosition',
  new GraphQLScalarType<EventPositionInput, number>({
    name: 'EventPosition',
    description:
      "An event's place in dispatch order: an integer, increasing in the order events were committed and " +
      'dispatched, the same in GET /events, the events subscription and the SSE stream (its id). Out: a number. ' +
      "In: a position (a number or its digits), or an event's _id standing for that event's position.",
    serialize: (v) => Number(v as bigint),
    parseValue: (v) => parseEventPosition(v, 'after'),
    parseLiteral: (ast) =>
      parseEventPosition(ast.kind === Kind.INT || ast.kind === Kind.STRING ? ast.value : undefined, 'after'),
  }),
);

export const EventObject = builder.objectRef<EventRecord>('Event').implement({
  interfaces: [NodeInterface],
  description: 'Something that happened in the company, as webhooks deliver it (docs/webhooks.md)',
  fields: (t) => ({
    _id: t.exposeID('id', { description: 'The event id (X-Webhook-Id of its deliveries)' }),
    type: t.exposeString('type', {
      description: 'The event name, e.g. booking.created (dotted names are no GraphQL enum; an open list)',
    }),
    data: t.expose('data', { type: 'JSON', description: "The event's payload, as webhooks carry it" }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it happened' }),
    position: t.field({
      type: 'EventPosition',
      nullable: true,
      description:
        'Where the event stands in dispatch order: the cursor to resume from (after=). Null until the event ' +
        'is dispatched, a moment after it is written (and for a ping, which is never relayed).',
      resolve: (e) => e.position,
    }),
  }),
});

const EventConnection = connectionType<EventRecord>('Event', EventObject);

function checkType(type: string, path: string): void {
  if (!(EVENT_TYPES as readonly string[]).includes(type)) {
    throw AppError.validation([{ path, message: `must be one of ${EVENT_TYPES.join(', ')}` }]);
  }
}

/** The position an `after` stands for: itself, or the position of the company's event it names. */
async function positionOf(ctx: Context, after: EventPositionInput, path: string): Promise<bigint> {
  if ('position' in after) return after.position;
  const e = await ctx.db.event.findFirst({
    where: { id: after.eventId, companyId: ctx.credential!.companyId },
    select: { position: true },
  });
  if (!e) throw AppError.validation([{ path, message: 'is not an event of this company' }]);
  if (e.position === null) {
    throw AppError.validation([{ path, message: 'names an event not dispatched yet, which has no position' }]);
  }
  return e.position;
}

// A page of the position order continues from its last position; the id order's cursors are
// pagination.ts's. Both are opaque to clients.
const POSITION_CURSOR = 'p1.';
const encodePositionCursor = (p: bigint) => Buffer.from(`${POSITION_CURSOR}${p}`).toString('base64url');
function decodePositionCursor(cursor: string): bigint | null {
  const text = /^[A-Za-z0-9_-]{1,200}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString() : '';
  const digits = text.startsWith(POSITION_CURSOR) ? text.slice(POSITION_CURSOR.length) : '';
  return /^\d{1,15}$/.test(digits) ? BigInt(digits) : null;
}

/** The events after a position, oldest first: resuming, never skipping one committed later. */
async function eventsAfter(
  ctx: Context,
  a: { size?: number | null; sizePath: string; after: bigint },
  where: Prisma.EventWhereInput,
) {
  const size = a.size ?? DEFAULT_LIMIT;
  if (!Number.isInteger(size) || size < 1 || size > MAX_LIMIT) {
    throw AppError.validation([{ path: a.sizePath, message: `must be an integer from 1 to ${MAX_LIMIT}` }]);
  }
  const after = { ...where, position: { gt: a.after } };
  const rows = await ctx.db.event.findMany({
    where: after,
    orderBy: { position: 'asc' },
    take: size + 1,
    select: EVENT_RECORD_SELECT,
  });
  const more = rows.length > size;
  const edges = (more ? rows.slice(0, size) : rows).map((node) => ({
    cursor: encodePositionCursor(node.position!),
    node,
  }));
  return {
    edges,
    pageInfo: {
      hasNextPage: more,
      hasPreviousPage: true,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges[edges.length - 1]?.cursor ?? null,
    },
    pageSize: size,
    totalCount: () => ctx.db.event.count({ where: after }),
  };
}

builder.queryFields((t) => ({
  events: t.connection(
    {
      type: EventObject,
      authScopes: { scope: 'events:read' },
      description:
        'Every event emitted for the company, newest first, so a client that missed webhooks can re-sync; with ' +
        '`afterPosition`, those dispatched after that position, oldest first (the way to resume: events not ' +
        "dispatched yet have no position and come later). A page's endCursor continues in the same order.",
      args: {
        ...legacyPageArgs(t.arg),
        type: t.arg.string({ description: 'Only events of this name' }),
        from: t.arg({ type: 'DateTime', description: 'Only events created at or after this instant' }),
        afterPosition: t.arg({
          type: 'EventPosition',
          description: 'Resume: the events dispatched after this position (never resume by _id: not commit order)',
        }),
      },
      resolve: async (_r, a, ctx) => {
        if (a.type) checkType(a.type, 'type');
        const where: Prisma.EventWhereInput = {
          companyId: ctx.credential!.companyId,
          ...(a.type ? { type: a.type } : {}),
          ...(a.from ? { createdAt: { gte: a.from } } : {}),
        };
        const size = a.first ?? a.limit;
        const sizePath = a.first != null ? 'first' : 'limit';
        const cursor = a.after ?? a.cursor;
        const fromCursor = cursor ? decodePositionCursor(cursor) : null;
        const position = fromCursor ?? (a.afterPosition ? await positionOf(ctx, a.afterPosition, 'after') : null);
        if (position !== null) {
          if (a.last != null || a.before != null) {
            throw AppError.validation([
              { path: a.last != null ? 'last' : 'before', message: 'cannot page backward in position order' },
            ]);
          }
          if (cursor && fromCursor === null) {
            throw AppError.validation([
              { path: a.after != null ? 'after' : 'cursor', message: 'is not a cursor of a position page' },
            ]);
          }
          return eventsAfter(ctx, { size, sizePath, after: position }, where);
        }
        return resolveConnection(
          a,
          'NEWEST_FIRST',
          ctx.credential!.companyId,
          (q) => ctx.db.event.findMany({ ...q, where: { ...q.where, ...where }, select: EVENT_RECORD_SELECT }),
          () => ctx.db.event.count({ where }),
        );
      },
    },
    EventConnection,
  ),
  event: t.field({
    type: EventObject,
    description: 'One event by id',
    authScopes: { scope: 'events:read' },
    args: { id: t.arg.id({ required: true, description: 'The event id' }) },
    resolve: async (_r, args, ctx) => {
      const id = String(args.id);
      const e = isId(id)
        ? await ctx.db.event.findFirst({
            where: { id, companyId: ctx.credential!.companyId },
            select: EVENT_RECORD_SELECT,
          })
        : null;
      if (!e) throw AppError.notFound('event');
      return e;
    },
  }),
}));

builder.prismaObjectFields('Company', (t) => ({
  events: t.connection(
    {
      type: EventObject,
      nullable: true,
      authScopes: { scope: 'events:read' },
      description:
        "The company's dispatched events in position order, oldest first (needs events:read): the filters of " +
        'GET /events, paged by position (afterPosition, or the endCursor of a page, goes on from there). Events ' +
        'not dispatched yet have no position and come once they are.',
      args: {
        type: t.arg.string({ description: 'Only events of this name' }),
        from: t.arg({ type: 'DateTime', description: 'Only events created at or after this instant' }),
        afterPosition: t.arg({
          type: 'EventPosition',
          description: 'The events dispatched after this position (default: from the first)',
        }),
      },
      resolve: async (_c, a, ctx) => {
        if (a.type) checkType(a.type, 'type');
        if (a.last != null || a.before != null) {
          throw AppError.validation([
            { path: a.last != null ? 'last' : 'before', message: 'cannot page backward in position order' },
          ]);
        }
        const fromCursor = a.after ? decodePositionCursor(a.after) : null;
        if (a.after && fromCursor === null) {
          throw AppError.validation([{ path: 'after', message: 'is not a cursor of a position page' }]);
        }
        const where: Prisma.EventWhereInput = {
          companyId: ctx.credential!.companyId,
          ...(a.type ? { type: a.type } : {}),
          ...(a.from ? { createdAt: { gte: a.from } } : {}),
        };
        const position = fromCursor ?? (a.afterPosition ? await positionOf(ctx, a.afterPosition, 'afterPosition') : 0n);
        return eventsAfter(ctx, { size: a.first, sizePath: 'first', after: position }, where);
      },
    },
    EventConnection,
  ),
}));

/** The position of the event a subscription delivered last, per context (the SSE `id:` line). */
// eslint-disable-next-line no-restricted-syntax -- process state: event reads of a request
const delivered = new WeakMap<Context, bigint>();

/** What the `events` subscription of this context delivered last, if anything. */
export function lastDeliveredPosition(ctx: Context): bigint | undefined {
  return delivered.get(ctx);
}

builder.subscriptionFields((t) => ({
  events: t.field({
    type: EventObject,
    authScopes: { scope: 'events:read' },
    description:
      "The company's events as they are dispatched, the same objects as the events query, GET /events and " +
      'webhooks, in position order. `after` (or the Last-Event-ID header of a reconnect, which wins) first ' +
      'replays what came after that position, then continues live, with no gap or duplicate.',
    args: {
      types: t.arg.stringList({ description: 'Only these event types (default: every type)' }),
      after: t.arg({
        type: 'EventPosition',
        description: 'Replay the events after this position first (a reconnect: the last position received)',
      }),
    },
    subscribe: async (_r, a, ctx) => {
      for (const [i, type] of (a.types ?? []).entries()) checkType(type, `types.${i}`);
      const resume = ctx.lastEventId ? parseEventPosition(ctx.lastEventId, 'Last-Event-ID') : a.after;
      const after = resume ? await positionOf(ctx, resume, ctx.lastEventId ? 'Last-Event-ID' : 'after') : null;
      const credential = ctx.credential!;
      return liveEvents(ctx.services).subscribe({
        stillAllowed: () => ctx.services.credentials.stillValid(credential),
        mode: ctx.credential!.mode,
        companyId: ctx.credential!.companyId,
        types: a.types?.length ? new Set(a.types) : null,
        after,
      });
    },
    resolve: (e: EventRecord, _a, ctx) => {
      if (e.position !== null) delivered.set(ctx, e.position);
      return e;
    },
  }),
}));

/**
 * The events of many bookings in one query: the bookings of one list resolve their `events`
 * in the same tick, so their ids are gathered first and read together (booking events carry
 * data.bookingId, src/schema/core/booking-events.ts).
 */
/** The most events one list of bookings reads (a bound, not a page: a booking has a handful). */
const EVENTS_OF_BOOKINGS_LIMIT = 10_000;
// eslint-disable-next-line no-restricted-syntax -- process state: event reads of a request
const pendingEvents = new WeakMap<Context, { ids: Set<string>; rows: Promise<EventRecord[]> }>();
function eventsOfBooking(ctx: Context, bookingId: string): Promise<EventRecord[]> {
  let batch = pendingEvents.get(ctx);
  if (!batch) {
    const ids = new Set<string>();
    const rows = Promise.resolve().then(() => {
      pendingEvents.delete(ctx);
      return listEventsOfBookings(ctx.db, {
        companyId: ctx.credential!.companyId,
        bookingIds: [...ids],
        limit: EVENTS_OF_BOOKINGS_LIMIT,
      });
    });
    batch = { ids, rows };
    pendingEvents.set(ctx, batch);
  }
  batch.ids.add(bookingId);
  return batch.rows.then((rows) => rows.filter((e) => (e.data as { bookingId?: unknown }).bookingId === bookingId));
}

builder.prismaObjectFields('Booking', (t) => ({
  events: t.connection(
    {
      type: EventObject,
      nullable: true,
      description: "The booking's history: its events, oldest first (needs events:read)",
      authScopes: { scope: 'events:read' },
      resolve: async (b, args, ctx) => {
        const list = await eventsOfBooking(ctx, b.id);
        return { ...resolveArrayConnection({ args }, list), totalCount: list.length };
      },
    },
    EventConnection,
  ),
}));
