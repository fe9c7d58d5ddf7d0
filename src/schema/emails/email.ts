// The sandbox's e-mail log (docs/sandbox.md: logged, not sent, viewable
// with recipient, full headers and body). Live companies' e-mail is really sent and not
// readable through the API: FORBIDDEN. Scope: emails:read.
import type { Email } from '../../generated/prisma/client.js';
import { AppError } from '../../errors.js';
import { isId } from '../../ids.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { pageType, paginate } from '../pagination.js';

export const EmailType = builder.objectRef<Email>('Email').implement({
  fields: (t) => ({
    _id: t.exposeID('id'),
    to: t.exposeString('to'),
    from: t.exposeString('from'),
    subject: t.exposeString('subject'),
    text: t.exposeString('text'),
    html: t.exposeString('html'),
    headers: t.field({ type: 'JSON', resolve: (e) => e.headers }),
    kind: t.exposeString('kind', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const EmailPage = pageType<Email>('Email', EmailType);

function sandboxOnly(ctx: Context): string {
  if (ctx.credential!.mode !== 'test') {
    throw new AppError(
      'FORBIDDEN',
      'The e-mail log exists for sandbox (test) companies only; live e-mail is sent, not logged',
    );
  }
  return ctx.credential!.companyId;
}

builder.queryFields((t) => ({
  emails: t.field({
    type: EmailPage,
    authScopes: { scope: 'emails:read' },
    args: { limit: t.arg.int(), cursor: t.arg.string() },
    resolve: async (_r, args, ctx) => {
      const companyId = sandboxOnly(ctx);
      return paginate(args, (q) => ctx.db.email.findMany({ ...q, where: { companyId, ...q.where } }));
    },
  }),
  email: t.field({
    type: EmailType,
    authScopes: { scope: 'emails:read' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, { id }, ctx) => {
      const companyId = sandboxOnly(ctx);
      const email = isId(String(id)) ? await ctx.db.email.findFirst({ where: { id: String(id), companyId } }) : null;
      if (!email) throw AppError.notFound('e-mail');
      return email;
    },
  }),
}));
