// Erasing a customer (docs/api.md, Customers: erase and export): their personal data is
// replaced by placeholders everywhere we hold a copy, in one transaction under the customer's
// row lock, and `customer.erased` is written with it. It cannot be undone.
//
// What is replaced, and how:
// - the customer row: name, e-mail (a unique placeholder address), phone, notes, metadata;
//   erasedAt is set (updates and new bookings for them are refused from then on);
// - their bookings stay (times, status, prices, ids) but lose what a person typed or that
//   locates them: notes, cancelReason, answers, customerTimeZone; their manage links stop
//   working; metadata values that mention them are replaced;
// - the events of the customer, their bookings and their payments: the same fields, and any
//   other mention of their name, e-mail or phone;
// - e-mails to them or about their bookings: recipient, subject, bodies, headers, attachments
//   (an e-mail still queued is not sent); e-mail reminders still planned are cancelled;
// - webhook attempt excerpts and errors, request-log bodies, replayable idempotent answers and
//   payment and reminder error texts that mention them;
// - payments keep their amounts, states, card brand and last four digits.
import type { Db, Tx } from '../../db/databases.js';
import { Prisma, type Customer } from '../../generated/prisma/client.js';
import { AppError } from '../../errors.js';
import { isId } from '../../ids.js';
import { findCustomer } from '../find-records.js';
import { recordEvent } from '../events/index.js';
import { ERASED_BODY, mentionTerms, scrubCustomerFromRequestLogs } from '../request-logs/index.js';

export const ERASED_NAME = 'Erased customer';
/** What replaces a mention of the customer inside a longer text or JSON value. */
export const ERASED_MARK = '[erased]';
/** The erased customer's e-mail: unique in the company, and in a domain that can never receive mail. */
export const erasedEmail = (customerId: string) => `erased+${customerId}@erased.invalid`;

export const alreadyErased = (erasedAt: Date) =>
  new AppError('CONFLICT', 'This customer was erased; their record cannot change', {
    details: { erasedAt: erasedAt.toISOString() },
  });

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A case-insensitive PostgreSQL regular expression matching the texts that identify the
 * customer (name, e-mail, phone, and what they typed). `json`: only as JSON text writes them
 * (escaped), so replacing a match keeps the JSON valid; otherwise also as typed. Texts under 3
 * characters are left out (they would match everything); the e-mail is always there.
 */
function patternOf(texts: Array<string | null | undefined>, json: boolean): string {
  // Longest first, so a longer term is replaced whole rather than a shorter one inside it.
  return mentionTerms(texts, { jsonOnly: json })
    .sort((a, b) => b.length - a.length)
    .map(escapeRegExp)
    .join('|');
}

/** The free text of their bookings: notes, cancel reasons, and text and phone answers. */
async function bookingTexts(
  tx: Tx,
  companyId: string,
  customerId: string,
  opts: { lock: boolean } = { lock: true },
): Promise<string[]> {
  // FOR UPDATE: waits for a change of one of their bookings under way, and holds the rest until
  // the erase commits, so no booking event is written from the unscrubbed rows meanwhile. The
  // preview (erasurePreview) only reads.
  const rows = await tx.$queryRaw<Array<{ notes: string | null; cancelReason: string | null; answers: unknown }>>`
    SELECT notes, cancel_reason AS "cancelReason", answers FROM bookings
    WHERE company_id = ${companyId} AND customer_id = ${customerId} ORDER BY id
    ${opts.lock ? Prisma.sql`FOR UPDATE` : Prisma.empty}`;
  const texts: string[] = [];
  for (const r of rows) {
    if (r.notes) texts.push(r.notes);
    if (r.cancelReason) texts.push(r.cancelReason);
    for (const a of Array.isArray(r.answers) ? (r.answers as Array<{ type?: string; value?: unknown }>) : []) {
      if (['text', 'long_text', 'phone'].includes(String(a.type)) && typeof a.value === 'string') texts.push(a.value);
    }
  }
  return texts;
}

interface LockedCustomer {
  id: string;
  name: string;
  email: string;
  phone: string | null;
  notes: string | null;
  erasedAt: Date | null;
}

/**
 * POST /customers/:id/erase. NOT_FOUND for an unknown id or another company's customer, CONFLICT
 * for one already erased; in both cases nothing changes. Answers the anonymised customer.
 */
export async function eraseCustomer(db: Db, opts: { companyId: string; customerId: string }): Promise<Customer> {
  const { companyId, customerId } = opts;
  if (!isId(customerId)) throw AppError.notFound('customer');
  return db.$transaction(
    async (tx) => {
      // The row lock orders the erase with every update of the customer and every new booking
      // for them (both take a lock on the row and check erasedAt under it).
      const [c] = await tx.$queryRaw<LockedCustomer[]>`
        SELECT id, name, email, phone, notes, erased_at AS "erasedAt" FROM customers
        WHERE id = ${customerId} AND company_id = ${companyId} FOR UPDATE`;
      if (!c) throw AppError.notFound('customer');
      if (c.erasedAt) throw alreadyErased(c.erasedAt);
      const erasedAt = new Date();
      const texts = [c.name, c.email, c.phone, c.notes, ...(await bookingTexts(tx, companyId, c.id))];
      await scrubCopies(tx, companyId, c, texts);
      await scrubCustomerFromRequestLogs(tx, { companyId, customer: { ...c, texts } });
      const customer = await tx.customer.update({
        where: { id: c.id },
        data: {
          name: ERASED_NAME,
          email: erasedEmail(c.id),
          phone: null,
          notes: null,
          metadata: {},
          erasedAt,
        },
      });
      await recordEvent(tx, {
        companyId,
        type: 'customer.erased',
        data: { customerId: c.id, erasedAt: erasedAt.toISOString() },
      });
      return customer;
    },
    // A company with a long history has many rows to rewrite.
    { timeout: 60_000 },
  );
}

async function scrubCopies(tx: Tx, companyId: string, c: LockedCustomer, texts: Array<string | null>): Promise<void> {
  const text = patternOf(texts, false);
  const json = patternOf(texts, true);
  const email = erasedEmail(c.id);
  // Their bookings (locked by bookingTexts) before the events are read: a change of one of them
  // that committed first has its event read below; a later one reads the scrubbed booking.
  const bookingIds = (
    await tx.$queryRaw<Array<{ id: string }>>`
      UPDATE bookings SET notes = NULL, cancel_reason = NULL, answers = '[]'::jsonb, customer_time_zone = NULL,
             manage_link_version = manage_link_version + 1, updated_at = now(),
             metadata = CASE WHEN metadata::text ~* ${json}
                             THEN regexp_replace(metadata::text, ${json}, ${ERASED_MARK}, 'gi')::jsonb
                             ELSE metadata END
      WHERE company_id = ${companyId} AND customer_id = ${c.id}
      RETURNING id`
  ).map((b) => b.id);
  const paymentIds = (
    await tx.payment.findMany({
      where: { OR: [{ bookingId: { in: bookingIds } }, { visit: { companyId, customerId: c.id } }] },
      select: { id: true },
    })
  ).map((p) => p.id);
  // The events that are about them: their customer events, and those of their bookings and payments.
  const eventIds = (
    await tx.$queryRaw<Array<{ id: string }>>`
      SELECT id FROM events
      WHERE company_id = ${companyId}
        AND (data->>'customerId' = ${c.id} OR data->>'bookingId' = ANY(${bookingIds}::text[])
             OR data->>'paymentId' = ANY(${paymentIds}::text[]))`
  ).map((e) => e.id);

  await tx.$executeRaw`
    UPDATE events SET data = data || jsonb_build_object('name', ${ERASED_NAME}::text, 'email', ${email}::text,
                                                        'phone', NULL, 'metadata', '{}'::jsonb)
    WHERE id = ANY(${eventIds}::text[]) AND type LIKE 'customer.%'`;
  await tx.$executeRaw`
    UPDATE events SET data = data || '{"answers": []}'::jsonb WHERE id = ANY(${eventIds}::text[]) AND data ? 'answers'`;
  await tx.$executeRaw`
    UPDATE events SET data = data || '{"reason": null}'::jsonb
    WHERE id = ANY(${eventIds}::text[]) AND type = 'booking.cancelled' AND data ? 'reason'`;
  await tx.$executeRaw`
    UPDATE events SET data = regexp_replace(data::text, ${json}, ${ERASED_MARK}, 'gi')::jsonb
    WHERE id = ANY(${eventIds}::text[]) AND data::text ~* ${json}`;

  await tx.$executeRaw`
    UPDATE payments SET metadata = regexp_replace(metadata::text, ${json}, ${ERASED_MARK}, 'gi')::jsonb,
           failure_message = regexp_replace(failure_message, ${text}, ${ERASED_MARK}, 'gi'),
           last_error = regexp_replace(last_error, ${text}, ${ERASED_MARK}, 'gi'), updated_at = now()
    WHERE id = ANY(${paymentIds}::text[])
      AND (metadata::text ~* ${json} OR failure_message ~* ${text} OR last_error ~* ${text})`;

  // E-mail reminders still planned would go to the placeholder address: withdrawn (the version
  // moves, so a sender that read the row before cannot claim it).
  await tx.$executeRaw`
    UPDATE notifications SET status = 'cancelled', reason = 'customer_erased', version = version + 1
    WHERE booking_id = ANY(${bookingIds}::text[]) AND status = 'scheduled' AND channel = 'email'`;
  await tx.$executeRaw`
    UPDATE notifications SET last_error = regexp_replace(last_error, ${text}, ${ERASED_MARK}, 'gi')
    WHERE booking_id = ANY(${bookingIds}::text[]) AND last_error ~* ${text}`;
  // Every e-mail to them or about their bookings; one still queued is never sent.
  await tx.$executeRaw`
    UPDATE emails SET "to" = ${email}, to_name = NULL, subject = ${ERASED_MARK}, "text" = ${ERASED_BODY},
           html = ${ERASED_BODY}, headers = '{}'::jsonb, attachments = '[]'::jsonb,
           status = CASE WHEN status = 'queued' THEN 'failed' ELSE status END,
           last_error = CASE WHEN status = 'queued' THEN 'customer_erased'
                             ELSE regexp_replace(last_error, ${text}, ${ERASED_MARK}, 'gi') END
    WHERE company_id = ${companyId}
      AND (lower("to") = ${c.email.toLowerCase()} OR event_id = ANY(${eventIds}::text[])
           OR notification_id IN (SELECT id FROM notifications WHERE booking_id = ANY(${bookingIds}::text[])))`;
  // What receivers answered, or the errors of reaching them, may echo a payload back: every
  // excerpt of a delivery of an event about them (an excerpt is cut at 1 KiB, perhaps inside
  // a name), and any other that mentions them.
  await tx.$executeRaw`
    UPDATE webhook_attempts a
       SET response_excerpt = CASE WHEN a.response_excerpt IS NULL THEN NULL ELSE ${ERASED_BODY} END,
           error = CASE WHEN a.error IS NULL THEN NULL ELSE ${ERASED_BODY} END
      FROM webhook_deliveries d
     WHERE a.delivery_id = d.id AND d.company_id = ${companyId}
       AND (d.event_id = ANY(${eventIds}::text[]) OR a.response_excerpt ~* ${text} OR a.error ~* ${text})`;
  // A replayable answer of an Idempotency-Key that carries the customer (found by their id,
  // which no other company's answer holds).
  await tx.$executeRaw`
    UPDATE idempotency_records
       SET response_body = regexp_replace(response_body::text, ${json}, ${ERASED_MARK}, 'gi')::jsonb
     WHERE strpos(response_body::text, ${c.id}) > 0 AND response_body::text ~* ${json}`;
}

/** What erasing a customer would change and keep, counted now (the admin area's confirmation). */
export interface ErasurePreview {
  customer: Customer;
  /** Their bookings: all kept, anonymous (times, status, prices, ids). */
  bookings: number;
  /** Of those, the ones with notes, a cancel reason, answers or a time zone to remove. */
  bookingsWithText: number;
  /** Payments of their bookings: kept with amounts, states, card brand and last four digits. */
  payments: number;
  /** Of those, the ones whose metadata or error texts mention them. */
  paymentsMentioning: number;
  /** Events about them whose payloads are rewritten. */
  events: number;
  /** E-mails to them or about their bookings: recipient, subject and bodies replaced. */
  emails: number;
  /** Of those, the ones still queued, which are then never sent. */
  emailsQueued: number;
  /** E-mail reminders still planned, withdrawn. */
  remindersPlanned: number;
  /** Webhook attempts whose recorded answer or error is replaced. */
  webhookAttempts: number;
}

/**
 * What eraseCustomer would do to this customer, counted with the same selections it rewrites
 * (scrubCopies) without changing anything. NOT_FOUND like the erase; an erased customer's
 * counts are what the erase left (the confirmation page says it is done instead).
 */
export async function erasurePreview(db: Db, opts: { companyId: string; customerId: string }): Promise<ErasurePreview> {
  const { companyId } = opts;
  const customer = await findCustomer(db, companyId, opts.customerId);
  return db.$transaction(
    async (tx) => {
      const texts = [
        customer.name,
        customer.email,
        customer.phone,
        customer.notes,
        ...(await bookingTexts(tx, companyId, customer.id, { lock: false })),
      ];
      const text = patternOf(texts, false);
      const json = patternOf(texts, true);
      const [b] = await tx.$queryRaw<Array<{ bookings: bigint; withText: bigint }>>`
        SELECT count(*) AS bookings,
               count(*) FILTER (WHERE notes IS NOT NULL OR cancel_reason IS NOT NULL OR answers <> '[]'::jsonb
                                OR customer_time_zone IS NOT NULL OR metadata::text ~* ${json}) AS "withText"
        FROM bookings WHERE company_id = ${companyId} AND customer_id = ${customer.id}`;
      const bookingIds = (
        await tx.booking.findMany({ where: { companyId, customerId: customer.id }, select: { id: true } })
      ).map((x) => x.id);
      const [p] = await tx.$queryRaw<Array<{ payments: bigint; mentioning: bigint }>>`
        SELECT count(*) AS payments,
               count(*) FILTER (WHERE metadata::text ~* ${json} OR failure_message ~* ${text}
                                OR last_error ~* ${text}) AS mentioning
        FROM payments WHERE booking_id = ANY(${bookingIds}::text[])`;
      const paymentIds = (
        await tx.payment.findMany({ where: { bookingId: { in: bookingIds } }, select: { id: true } })
      ).map((x) => x.id);
      const eventIds = (
        await tx.$queryRaw<Array<{ id: string }>>`
          SELECT id FROM events
          WHERE company_id = ${companyId}
            AND (data->>'customerId' = ${customer.id} OR data->>'bookingId' = ANY(${bookingIds}::text[])
                 OR data->>'paymentId' = ANY(${paymentIds}::text[]))`
      ).map((e) => e.id);
      const [m] = await tx.$queryRaw<Array<{ emails: bigint; queued: bigint }>>`
        SELECT count(*) AS emails, count(*) FILTER (WHERE status = 'queued') AS queued FROM emails
        WHERE company_id = ${companyId}
          AND (lower("to") = ${customer.email.toLowerCase()} OR event_id = ANY(${eventIds}::text[])
               OR notification_id IN (SELECT id FROM notifications WHERE booking_id = ANY(${bookingIds}::text[])))`;
      const remindersPlanned = await tx.notification.count({
        where: { bookingId: { in: bookingIds }, status: 'scheduled', channel: 'email' },
      });
      const [w] = await tx.$queryRaw<Array<{ attempts: bigint }>>`
        SELECT count(*) AS attempts FROM webhook_attempts a JOIN webhook_deliveries d ON a.delivery_id = d.id
        WHERE d.company_id = ${companyId} AND (a.response_excerpt IS NOT NULL OR a.error IS NOT NULL)
          AND (d.event_id = ANY(${eventIds}::text[]) OR a.response_excerpt ~* ${text} OR a.error ~* ${text})`;
      return {
        customer,
        bookings: Number(b!.bookings),
        bookingsWithText: Number(b!.withText),
        payments: Number(p!.payments),
        paymentsMentioning: Number(p!.mentioning),
        events: eventIds.length,
        emails: Number(m!.emails),
        emailsQueued: Number(m!.queued),
        remindersPlanned,
        webhookAttempts: Number(w!.attempts),
      };
    },
    { isolationLevel: 'RepeatableRead' },
  );
}
