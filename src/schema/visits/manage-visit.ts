// GET /visits/:id, POST /visits/:id/cancel and POST /visits/:id/reschedule (docs/api.md,
// Visits): a visit is read, cancelled and moved as one. Cancel and reschedule change every item
// in one transaction or none: the items' rows (cancel) or their employees (reschedule) are
// locked first, each item is judged, and any refusal rolls the whole visit back.
import { z } from 'zod';
import type { Config } from '../../config.js';
import type { Db, Tx } from '../../db/databases.js';
import type { Booking, Company } from '../../generated/prisma/client.js';
import type { Mode } from '../../generated/prisma/enums.js';
import { AppError, isAppError } from '../../errors.js';
import { isId } from '../../ids.js';
import { domainTransaction, isExclusionViolation } from '../db-errors.js';
import { boundedInstant } from '../domain-validation.js';
import { policyFor, type Policy, type Reason, laterItemPolicy, sequenceStarts } from '../availability/index.js';
import { lockEmployees } from '../staff/index.js';
import { replanReminders } from '../notifications/index.js';
import { parseInput } from '../validation.js';
import { domainNow } from '../domain-time.js';
import {
  checkEmployeeLocked,
  type CancelResult,
  cancelBookingsTogether,
  cancelTogetherInput,
  invalidTransition,
} from '../bookings/index.js';
import { recordBookingEvent } from '../core/index.js';
import { visitUnavailable, type ItemReason, type VisitWithBookings } from './create-visit.js';
import { holdResources, releaseHolds } from '../resources/index.js';

type Client = Db | Tx;

/** A visit of the company with its bookings in the order of the visit, or NOT_FOUND. */
export async function findVisit(db: Client, companyId: string, id: unknown): Promise<VisitWithBookings> {
  const v = isId(id)
    ? await db.visit.findFirst({
        where: { id, companyId },
        include: { bookings: { orderBy: [{ startTime: 'asc' }, { id: 'asc' }] } },
      })
    : null;
  if (!v) throw AppError.notFound('visit');
  return v;
}

/**
 * Cancels every item of the visit that holds its place, all or none (cancelBookingsTogether:
 * each item on its own terms, one past a customer's cut-off refuses the whole cancel; items
 * already cancelled, expired or served are left as they are).
 */
export async function cancelVisit(
  db: Db,
  opts: { company: Company; mode: Mode; config: Config; visitId: string; input?: unknown; now?: Date },
): Promise<VisitWithBookings & { refunds: CancelResult['refunds'] }> {
  const input = parseInput(cancelTogetherInput, opts.input ?? {});
  const visit = await findVisit(db, opts.company.id, opts.visitId);
  const refunds = await cancelBookingsTogether(db, {
    company: opts.company,
    mode: opts.mode,
    config: opts.config,
    bookingIds: visit.bookings.map((b) => b.id),
    input,
    now: opts.now ?? (await domainNow(db, opts.company)),
  });
  return { ...(await findVisit(db, opts.company.id, visit.id)), refunds };
}

const rescheduleInput = z
  .object({
    startTime: boundedInstant,
    /** A business's move: minimum notice, maximum advance, slot interval and daily limit waived. */
    skipRules: z.boolean({ error: 'must be true or false' }).nullish(),
  })
  .strict();

/**
 * Moves the whole visit to start at `startTime`, each item keeping its employee and following
 * the previous one as at creation. Every item must be confirmed (as for a booking's
 * reschedule). Under all the items' employees' locks each item is checked at its new time
 * with the visit's own bookings left out, then moved: later items first when the visit moves
 * later, earlier ones first when it moves earlier, so no item ever overlaps its own neighbour's
 * old time. One refusal rolls everything back: SLOT_UNAVAILABLE naming the item.
 */
export async function rescheduleVisit(
  db: Db,
  opts: { company: Company; visitId: string; input: unknown; now?: Date },
): Promise<VisitWithBookings> {
  const data = parseInput(rescheduleInput, opts.input);
  const company = opts.company;
  const visit = await findVisit(db, company.id, opts.visitId);
  const now = opts.now ?? (await domainNow(db, company));
  const start = data.startTime.getTime();
  if (start <= now.getTime()) throw AppError.validation([{ path: 'startTime', message: 'must be in the future' }]);
  const notConfirmed = visit.bookings.find((b) => b.status !== 'confirmed');
  if (notConfirmed)
    throw invalidTransition(
      notConfirmed.status,
      'confirmed',
      `Only a visit whose items are all confirmed can be rescheduled; item ${visit.bookings.indexOf(notConfirmed)} is ${notConfirmed.status}`,
    );
  const services = await db.service.findMany({
    where: { id: { in: [...new Set(visit.bookings.map((b) => b.serviceId))] } },
  });
  const serviceOf = (b: Booking) => services.find((s) => s.id === b.serviceId)!;
  const starts = sequenceStarts(visit.bookings.map(serviceOf), start);
  const ids = visit.bookings.map((b) => b.id);
  try {
    return await domainTransaction(db, async (tx) => {
      await lockEmployees(
        tx,
        company.id,
        visit.bookings.map((b) => b.employeeId),
      );
      const reasons: ItemReason[] = [];
      for (const [i, b] of visit.bookings.entries()) {
        const service = serviceOf(b);
        try {
          await checkEmployeeLocked(tx, {
            company,
            service,
            employeeId: b.employeeId,
            start: starts[i]!,
            policy: (i === 0 ? (p: Policy) => p : laterItemPolicy)(
              policyFor(company, service, now.getTime(), data.skipRules ?? false),
            ),
            ignoreBookingId: ids,
          });
        } catch (err) {
          if (!(isAppError(err) && err.code === 'SLOT_UNAVAILABLE')) throw err;
          const why = (err.details as { reasons?: Reason[] } | undefined)?.reasons ?? [];
          reasons.push(...why.map((r) => ({ ...r, itemIndex: i })));
        }
      }
      if (reasons.length > 0) throw visitUnavailable(reasons);
      // The items' rooms and equipment are let go and taken again at the new times below.
      for (const id of ids) await releaseHolds(tx, { bookingId: id });
      const order = [...visit.bookings.keys()];
      if (start > visit.startTime.getTime()) order.reverse();
      for (const i of order) {
        const b = visit.bookings[i]!;
        const service = serviceOf(b);
        const s = starts[i]!;
        const e = s + service.durationMinutes * 60_000;
        const changed = await tx.booking.updateMany({
          where: { id: b.id, status: 'confirmed' },
          data: {
            startTime: new Date(s),
            endTime: new Date(e),
            blockStart: new Date(s - service.bufferBeforeMinutes * 60_000),
            blockEnd: new Date(e + service.bufferAfterMinutes * 60_000),
            calendarSequence: { increment: 1 },
          },
        });
        if (changed.count === 0) {
          const current = await tx.booking.findUniqueOrThrow({ where: { id: b.id } });
          throw invalidTransition(current.status, 'confirmed');
        }
        const after = await tx.booking.findUniqueOrThrow({ where: { id: b.id } });
        await holdResources(tx, {
          companyId: company.id,
          zone: company.timezone,
          needs: service,
          owner: { bookingId: b.id },
          start: after.startTime,
          end: after.endTime,
          blockStart: after.blockStart,
          blockEnd: after.blockEnd,
        });
        await recordBookingEvent(tx, after, 'booking.rescheduled', {
          previousStartTime: b.startTime.toISOString(),
          previousEndTime: b.endTime.toISOString(),
          rescheduledBy: 'business',
          calendarSequence: after.calendarSequence,
        });
        await replanReminders(tx, after, { now });
      }
      const last = visit.bookings.length - 1;
      await tx.visit.update({
        where: { id: visit.id },
        data: {
          startTime: new Date(starts[0]!),
          endTime: new Date(starts[last]! + serviceOf(visit.bookings[last]!).durationMinutes * 60_000),
        },
      });
      return findVisit(tx, company.id, visit.id);
    });
  } catch (err) {
    if (isExclusionViolation(err))
      throw visitUnavailable([{ code: 'BOOKED', message: 'Another booking took that time' }]);
    throw err;
  }
}
