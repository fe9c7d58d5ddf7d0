// Sends a live company's queued e-mail over SMTP (SMTP_URL) with nodemailer. Sandbox e-mails
// never reach here: they are logged, not sent. A failure is retried by the queue; an e-mail
// still queued afterwards is re-enqueued by the relay's sweep.
import nodemailer from 'nodemailer';
import type { Config } from '../config.js';
import type { JobContext } from './job-catalog.js';

const transports = new WeakMap<Config, ReturnType<typeof nodemailer.createTransport>>();

function transportFor(config: Config) {
  let t = transports.get(config);
  if (!t) {
    t = nodemailer.createTransport(config.SMTP_URL!);
    transports.set(config, t);
  }
  return t;
}

export async function sendEmail(ctx: JobContext, p: { mode: 'live' | 'test'; emailId: string; sweep?: number }): Promise<void> {
  const { config } = ctx.services;
  const db = ctx.services.dbs.forMode(p.mode);
  const email = await db.email.findUnique({ where: { id: p.emailId } });
  if (!email || email.status !== 'queued' || p.mode === 'test') return;
  if (!config.SMTP_URL) {
    await db.email.update({ where: { id: email.id }, data: { status: 'failed', lastError: 'SMTP_URL is not configured' } });
    ctx.services.logger.error({ emailId: email.id }, 'live e-mail not sent: SMTP_URL is not configured');
    return;
  }
  const headers = email.headers as Record<string, string>;
  try {
    await transportFor(config).sendMail({
      from: email.from,
      // The stored recipient, structured: nodemailer must not parse a name that may hold
      // `<`, `,` or `@` (see email/mailbox.ts). The To header it writes encodes the name.
      to: { name: email.toName ?? '', address: email.to },
      subject: email.subject,
      text: email.text,
      html: email.html,
      messageId: headers['Message-ID'],
      date: headers.Date ? new Date(headers.Date) : undefined,
      headers: { 'X-Booking-Id': headers['X-Booking-Id'] ?? '', 'X-Event-Id': headers['X-Event-Id'] ?? '', 'Auto-Submitted': 'auto-generated' },
    });
  } catch (err) {
    await db.email.update({ where: { id: email.id }, data: { attempts: { increment: 1 }, lastError: (err as Error).message.slice(0, 500) } });
    throw err;
  }
  await db.email.update({ where: { id: email.id }, data: { status: 'sent', sentAt: new Date(), attempts: { increment: 1 }, lastError: null } });
}
