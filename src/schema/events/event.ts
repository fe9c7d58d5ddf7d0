// Events (docs/api.md, docs/webhooks.md): every event ever emitted for the company, so a client that missed
// webhooks can re-sync. Scope: events:read.
import type { Event, Prisma } from '../../generated/prisma/client.js';
import { AppError } from '../../errors.js';
import { isId } from '../../ids.js';
import { builder } from '../builder.js';
import { EVENT_TYPES } from './events.js';
import { pageType, paginate } from '../pagination.js';

export const EventObject = builder.objectRef<Event>('Event').implement({
  fields: (t) => ({
    _id: t.exposeID('id'),
    type: t.exposeString('type'),
    data: t.expose('data', { type: 'JSON' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const EventPage = pageType('Event', EventObject);

builder.queryFields((t) => ({
  events: t.field({
    type: EventPage,
    authScopes: { scope: 'events:read' },
    args: { limit: t.arg.int(), cursor: t.arg.string(), type: t.arg.string(), from: t.arg({ type: 'DateTime' }) },
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
    authScopes: { scope: 'events:read' },
    args: { id: t.arg.string({ required: true }) },
    resolve: async (_r, args, ctx) => {
      const e = isId(args.id)
        ? await ctx.db.event.findFirst({ where: { id: args.id, companyId: ctx.credential!.companyId } })
        : null;
      if (!e) throw AppError.notFound('event');
      return e;
    },
  }),
}));
