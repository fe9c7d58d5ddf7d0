// The sandbox's e-mail log (docs/sandbox.md: logged, not sent, viewable
// with recipient, full headers and body). Live companies' e-mail is really sent and not
// readable through the API: FORBIDDEN. Scope: emails:read.
import type { Email } from '../../generated/prisma/client.js';
import { AppError } from '../../errors.js';
import { isId } from '../../ids.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { connectionType, ListOrderEnum, resolveConnection } from '../connections.js';
import { legacyPageArgs } from '../pagination.js';
import { EMAIL_KINDS, type EmailKind } from './templates.js';
import { NodeInterface } from '../node.js';

interface EmailAttachment {
  filename: string;
  contentType: string;
  content: string;
}

const EmailAttachmentType = builder.objectRef<EmailAttachment>('EmailAttachment').implement({
  description: "A file an e-mail carries, such as a booking's calendar invitation (invite.ics)",
  fields: (t) => ({
    filename: t.exposeString('filename', { description: 'The file name, e.g. invite.ics' }),
    contentType: t.exposeString('contentType', {
      description: 'The MIME type, e.g. text/calendar; charset=utf-8; method=REQUEST',
    }),
    content: t.exposeString('content', { description: 'The file, as text (an iCalendar file for an invitation)' }),
  }),
});

const attachmentsOf = (e: Email): EmailAttachment[] =>
  Array.isArray(e.attachments) ? (e.attachments as unknown as EmailAttachment[]) : [];

const EmailKindEnum = builder.enumType('EmailKind', {
  description: 'What a customer e-mail is about (docs/sandbox.md); the strings REST carries in kind',
  values: {
    booking_confirmed: { description: 'A booking was confirmed (at creation, when it needs no payment)' },
    booking_rescheduled: { description: 'A booking moved to another time' },
    booking_cancelled: { description: 'A booking was cancelled' },
    booking_reminder: { description: 'A reminder before a booking starts' },
    payment_receipt: { description: 'A payment succeeded' },
    waitlist_offer: { description: 'A freed class place is offered to a waitlisted customer' },
    waitlist_left: { description: 'A waitlisted or offered booking was cancelled' },
  } satisfies Record<EmailKind, { description: string }>,
});

export const EmailType = builder.objectRef<Email>('Email').implement({
  interfaces: [NodeInterface],
  description: 'An e-mail to a customer, logged in the sandbox instead of sent',
  fields: (t) => ({
    _id: t.exposeID('id', { description: 'The e-mail id' }),
    to: t.exposeString('to', { description: "The recipient's address" }),
    from: t.exposeString('from', { description: "The sender's address" }),
    subject: t.exposeString('subject', { description: 'The subject line' }),
    text: t.exposeString('text', { description: 'The plain-text body' }),
    html: t.exposeString('html', { description: 'The HTML body' }),
    headers: t.field({ type: 'JSON', description: 'Every header, by name', resolve: (e) => e.headers }),
    attachments: t.field({
      type: [EmailAttachmentType],
      description: "Files it carries: a booking e-mail's calendar invitation (docs/calendars.md)",
      resolve: attachmentsOf,
    }),
    kind: t.exposeString('kind', {
      nullable: true,
      description: 'What it is about: booking_confirmed, payment_receipt, ... (an open list)',
      deprecationReason: 'Use emailKind, the same value as an enum',
    }),
    emailKind: t.field({
      type: EmailKindEnum,
      nullable: true,
      description: 'What it is about (an open list: new values may be added); null for an e-mail of no such kind',
      resolve: (e) => ((EMAIL_KINDS as readonly string[]).includes(e.kind ?? '') ? (e.kind as EmailKind) : null),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was composed' }),
  }),
});

const EmailConnection = connectionType<Email>('Email', EmailType);

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
  emails: t.connection(
    {
      type: EmailType,
      description: 'The sandbox e-mail log, newest first (FORBIDDEN for live companies)',
      authScopes: { scope: 'emails:read' },
      args: {
        ...legacyPageArgs(t.arg),
        orderBy: t.arg({ type: ListOrderEnum, description: 'The order (default NEWEST_FIRST)' }),
      },
      resolve: (_r, a, ctx) => {
        const where = { companyId: sandboxOnly(ctx) };
        return resolveConnection(
          a,
          a.orderBy,
          where.companyId,
          (q) => ctx.db.email.findMany({ ...q, where: { ...q.where, ...where } }),
          () => ctx.db.email.count({ where }),
        );
      },
    },
    EmailConnection,
  ),
  email: t.field({
    type: EmailType,
    description: 'One logged e-mail by id (FORBIDDEN for live companies)',
    authScopes: { scope: 'emails:read' },
    args: { id: t.arg.id({ required: true, description: 'The e-mail id' }) },
    resolve: async (_r, { id }, ctx) => {
      const companyId = sandboxOnly(ctx);
      const email = isId(String(id)) ? await ctx.db.email.findFirst({ where: { id: String(id), companyId } }) : null;
      if (!email) throw AppError.notFound('e-mail');
      return email;
    },
  }),
}));
