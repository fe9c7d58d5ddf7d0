// Events (docs/api.md, docs/webhooks.md): every event ever emitted for the company, so a client that missed
// webhooks can re-sync. Scope: events:read.
import type { Event, Prisma } from '../../generated/prisma/client.js';
import { AppError } from '../../errors.js';
import { isId } from '../../ids.js';
import { builder } from '../builder.js';
import { EVENT_TYPES } from './events.js';
import { pageArgs, pageType, paginate } from '../pagination.js';

export const EventObject = builder.objectRef<Event>('Event').implement({
  description: 'Something that happened in the company, as webhooks deliver it (docs/webhooks.md)',
  fields: (t) => ({
    _id: t.exposeID('id', { description: 'The event id (X-Webhook-Id of its deliveries)' }),
    type: t.exposeString('type', {
      description: 'The event name, e.g. booking.created (dotted names are no GraphQL enum; an open list)',
    }),
    data: t.expose('data', { type: 'JSON', description: "The event's payload, as webhooks carry it" }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it happened' }),
  }),
});

const EventPage = pageType('Event', EventObject);

builder.queryFields((t) => ({
  events: t.field({
    type: EventPage,
    description: 'Every event emitted for the company, newest first, so a client that missed webhooks can re-sync',
    authScopes: { scope: 'events:read' },
    args: {
      ...pageArgs(t.arg),
      type: t.arg.string({ description: 'Only events of this name' }),
      from: t.arg({ type: 'DateTime', description: 'Only events created at or after this instant' }),
    },
    resolve: (_r, a, ctx) => {
      if (a.type && !(EVENT_TYPES as readonly string[]).includes(a.type)) {
        throw AppError.validation([{ path: 'type', message: `must be one of ${EVENT_TYPES.join(', ')}` }]);
      }
      const where: Prisma.EventWhereInput = {
        companyId: ctx.credential!.companyId,
        ...(a.type ? { type: a.type } : {}),
        ...(a.from ? { createdAt: { gte: a.from } } : {}),
      };
      return paginate(a, (q) => ctx.db.event.findMany({ ...q, where: { ...q.where, ...where } }));
    },
  }),
  event: t.field({
    type: EventObject,
    description: 'One event by id',
    authScopes: { scope: 'events:read' },
    args: { id: t.arg.id({ required: true, description: 'The event id' }) },
    resolve: async (_r, args, ctx) => {
      const id = String(args.id);
      const e = isId(id) ? await ctx.db.event.findFirst({ where: { id, companyId: ctx.credential!.companyId } }) : null;
      if (!e) throw AppError.notFound('event');
      return e;
    },
  }),
}));
