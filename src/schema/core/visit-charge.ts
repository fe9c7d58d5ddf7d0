// A visit paid as one (docs/api.md, Payments: paying a visit): POST /payments { visitId } runs
// createPayment, which comes here. The payment is `kind: "full"` for the sum of the prices of
// the visit's items that hold their place (pending within its hold, or confirmed) when it is
// made; a deposit setting is not used (a visit is paid in full, or its items one by one). Each
// such item's share of the payment is its price, which is fixed on the booking when booked:
// the payments worker confirms those items, a cancel of one refunds its share (visitShareOf),
// and a charge settling after items were cancelled gives back the shares of those no longer
// standing (settle-payment.ts).
//
// Who pays what is decided under the items' row locks, taken in id order as every write of
// several bookings takes them (cancelBookingsTogether): a visit payment locks all its items, a
// booking's payment its one row, so a visit with an item paid alone and an item paid within a
// visit payment can never both happen. Concurrent payments of one visit meet at
// payments_one_live_per_visit, the unique index that keeps one standing payment per visit.
import type { Db, Tx } from '../../db/databases.js';
import { AppError } from '../../errors.js';
import type { Booking, Payment, Prisma } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import { assertPayable, LIVE } from './payable.js';
import { deepFreeze } from '../../frozen.js';

/** The facts of the charge itself, as createPayment read them from the request. */
export interface ChargeFacts {
  brand: string | null;
  last4: string | null;
  outcome: string | null;
  paymentMethod: string | null;
  metadata: Prisma.InputJsonValue;
}

const HOLDING = deepFreeze(new Set<Booking['status']>(['pending', 'confirmed']));

const visitAlreadyPaid = (visitId: string, paymentId?: string) =>
  new AppError('CONFLICT', 'This visit already has a payment that is processing or succeeded', {
    details: { visitId, ...(paymentId ? { paymentId } : {}) },
  });

/** The items of a visit, their rows locked in id order, in the order of the visit. */
async function lockItems(tx: Tx, visitId: string): Promise<Booking[]> {
  await tx.$queryRaw`SELECT id FROM bookings WHERE visit_id = ${visitId} ORDER BY id FOR UPDATE`;
  return tx.booking.findMany({ where: { visitId }, orderBy: [{ startTime: 'asc' }, { id: 'asc' }] });
}

export async function createVisitPayment(
  db: Db,
  opts: { companyId: string; visitId: string; now: Date; charge: ChargeFacts },
): Promise<Payment> {
  const visit = await db.visit.findFirst({
    where: { id: opts.visitId, companyId: opts.companyId },
    select: { id: true, company: { select: { currency: true } } },
  });
  if (!visit)
    throw new AppError('NOT_FOUND', 'No such visit', { details: [{ path: 'visitId', message: 'no such visit' }] });
  try {
    return await db.$transaction(async (tx) => {
      const items = await lockItems(tx, visit.id);
      const holding = items.filter((b) => HOLDING.has(b.status));
      if (holding.length === 0) {
        const from = items[0]?.status ?? 'cancelled';
        throw new AppError('INVALID_STATE_TRANSITION', `No item of this visit is pending or confirmed`, {
          details: { from, to: 'paid', visitId: visit.id },
        });
      }
      // An item whose hold has ended is expired: the visit is paid whole or not at all.
      for (const b of holding) assertPayable(b, opts.now);
      const own = await tx.payment.findFirst({
        where: { bookingId: { in: holding.map((b) => b.id) }, status: { in: LIVE } },
        select: { id: true, bookingId: true },
      });
      if (own)
        throw new AppError(
          'CONFLICT',
          'An item of this visit has a payment of its own; pay the other items one by one',
          { details: { visitId: visit.id, bookingId: own.bookingId, paymentId: own.id } },
        );
      const amount = holding.reduce((sum, b) => sum + b.price, 0);
      if (amount <= 0) throw AppError.validation([{ path: 'visitId', message: 'the visit has nothing to pay' }]);
      return tx.payment.create({
        data: {
          id: newId(),
          companyId: opts.companyId,
          visitId: visit.id,
          amount,
          kind: 'full',
          currency: visit.company.currency,
          status: 'processing',
          ...opts.charge,
        },
      });
    });
  } catch (err) {
    // payments_one_live_per_visit: another payment of this visit is processing or has succeeded.
    if ((err as { code?: string }).code === 'P2002') throw visitAlreadyPaid(visit.id);
    throw err;
  }
}

/**
 * Refuses a payment of its own for an item of a visit that has a standing visit payment. Called
 * under the booking's row lock, which the visit payment also takes (lockItems).
 */
export async function refuseIfVisitPaid(tx: Tx, booking: Booking): Promise<void> {
  if (!booking.visitId) return;
  const paid = await tx.payment.findFirst({
    where: { visitId: booking.visitId, status: { in: LIVE } },
    select: { id: true },
  });
  if (paid)
    throw new AppError('CONFLICT', "This booking is paid with its visit's payment", {
      details: { bookingId: booking.id, visitId: booking.visitId, paymentId: paid.id },
    });
}

/**
 * A booking's share of its visit's charged payment (succeeded or partially refunded): its price,
 * up to what is left of that payment. Null when the booking is not an item of a charged visit
 * payment. Only an item that holds its place was paid for (a visit payment covers exactly
 * those), so the caller asks this of an item it is about to cancel.
 */
export async function visitShareOf(
  tx: Tx,
  booking: Pick<Booking, 'visitId' | 'price'>,
): Promise<{ payment: Payment; share: number } | null> {
  if (!booking.visitId) return null;
  const payment = await tx.payment.findFirst({
    where: { visitId: booking.visitId, status: { in: ['succeeded', 'partially_refunded'] } },
  });
  if (!payment) return null;
  return { payment, share: Math.max(0, Math.min(booking.price, payment.amount - payment.amountRefunded)) };
}
