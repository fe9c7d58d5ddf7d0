// The invitation e-mail (docs/admin.md, Team and roles): written to the e-mail log of the company
// it was sent from, like every other e-mail — in the sandbox only logged, in live mode queued for
// SMTP (the outbox relay's sweep sends queued e-mails).
import type { Config } from '../../config.js';
import type { Db } from '../../db/databases.js';
import type { Invitation } from '../../generated/prisma/client.js';
import type { Mode } from '../../generated/prisma/enums.js';
import { newId } from '../../ids.js';
import { publicOrigin } from '../core/index.js';

export const invitationUrl = (config: Config, token: string) => `${publicOrigin(config)}/admin/invitations/${token}`;

export async function logInvitationEmail(
  db: Db,
  config: Config,
  o: { mode: Mode; companyId: string; companyName: string; invitation: Invitation; token: string; now: Date },
): Promise<void> {
  const url = invitationUrl(config, o.token);
  const subject = `You are invited to ${o.companyName}'s team`;
  const text = [
    `You have been invited to join the team of ${o.companyName} as ${o.invitation.role}.`,
    '',
    `Accept the invitation: ${url}`,
    '',
    `The link works once and expires on ${o.invitation.expiresAt.toUTCString()}.`,
  ].join('\n');
  const escape = (s: string) =>
    s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
  const html =
    `<p>You have been invited to join the team of ${escape(o.companyName)} as ${o.invitation.role}.</p>` +
    `<p><a href="${escape(url)}">Accept the invitation</a></p>` +
    `<p>The link works once and expires on ${escape(o.invitation.expiresAt.toUTCString())}.</p>`;
  await db.email.create({
    data: {
      id: newId(o.now.getTime()),
      companyId: o.companyId,
      to: o.invitation.email,
      from: config.EMAIL_FROM,
      subject,
      text,
      html,
      headers: {
        From: config.EMAIL_FROM,
        To: `<${o.invitation.email}>`,
        Subject: subject,
        Date: o.now.toUTCString(),
        'MIME-Version': '1.0',
        'Content-Type': 'multipart/alternative',
        'Auto-Submitted': 'auto-generated',
      },
      kind: 'team_invitation',
      // Sandbox: kept in the e-mail log, not sent (docs/sandbox.md); live: sent by send-email.
      status: o.mode === 'test' ? 'logged' : 'queued',
    },
  });
}
