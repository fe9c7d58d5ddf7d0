// offered → confirmed | pending by POST /bookings/:id/accept-offer (docs/api.md, Class
// waitlists): the customer claims the place reserved for them. It becomes a held place
// (pending with a payment hold when the service is paid for up front) and the booking first
// holds a place: booking.created { fromWaitlist: true }. After offerExpiresAt the offer has
// lapsed, even if the sweep has not reached it yet: it is lapsed now (booking.offer_expired, the
// place passed on) and the claim refused.
import type { Db } from '../../db/databases.js';
import type { Booking, BookingStatus, Company } from '../../generated/prisma/client.js';
import { domainTransaction } from '../db-errors.js';
import { domainNow } from '../domain-time.js';
import { findBooking } from '../find-records.js';
import { applyTransition, invalidTransition } from './transition-booking.js';
import { firstHoldsPlace, lockClassSession, placeHeld } from './waitlist.js';

export async function acceptOffer(
  db: Db,
  opts: { company: Pick<Company, 'id' | 'mode'>; bookingId: string; now?: Date },
): Promise<Booking> {
  const found = await findBooking(db, opts.company.id, opts.bookingId);
  const now = opts.now ?? (await domainNow(db, opts.company));
  const target = (requiresPayment: boolean): BookingStatus => (requiresPayment ? 'pending' : 'confirmed');
  const outcome = await domainTransaction(db, async (tx) => {
    if (found.classSessionId) await lockClassSession(tx, found.classSessionId);
    const current = await tx.booking.findUniqueOrThrow({ where: { id: found.id } });
    const service = await tx.service.findUniqueOrThrow({
      where: { id: current.serviceId },
      select: { requiresPayment: true },
    });
    const to = target(service.requiresPayment);
    if (current.status !== 'offered')
      throw invalidTransition(
        current.status,
        to,
        current.status === 'waitlisted'
          ? `This booking is waitlisted at position ${current.waitlistPosition}; only an offered place can be accepted`
          : undefined,
      );
    if (current.offerExpiresAt!.getTime() <= now.getTime()) {
      await applyTransition(tx, current, 'lapse', { now });
      return { booking: null, lapsed: current.offerExpiresAt!, to };
    }
    const changed = await tx.booking.updateMany({
      where: { id: current.id, status: 'offered' },
      data: { offerExpiresAt: null, ...placeHeld(service.requiresPayment, now) },
    });
    if (changed.count === 0) throw invalidTransition('offered', to); // cannot happen under the lock
    await tx.classSession.update({
      where: { id: current.classSessionId! },
      data: { offeredCount: { decrement: 1 }, bookedCount: { increment: 1 } },
    });
    const after = await tx.booking.findUniqueOrThrow({ where: { id: current.id } });
    await firstHoldsPlace(tx, after, now);
    return { booking: after, lapsed: null, to };
  });
  if (outcome.booking) return outcome.booking;
  throw invalidTransition('expired', outcome.to, `The offer lapsed at ${outcome.lapsed.toISOString()}; it has expired`);
}
