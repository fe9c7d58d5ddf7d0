// Unpaid pending bookings expire after their hold (docs/api.md: "pending → expired, the system,
// after the hold"), with booking.expired, through the booking domain's own use case, for both
// databases, and so do waitlist offers after their offerExpiresAt (offered → expired, offer_lapsed).
// Scheduled by the runtime once per minute bucket (job id), whichever worker runs it.
import { expirePendingBookings, lapseOffers } from '../schema/bookings/index.js';
import type { JobContext } from './job-types.js';

export async function expireBookings(ctx: JobContext): Promise<void> {
  for (const db of [ctx.services.dbs.live, ctx.services.dbs.test]) {
    const { expired } = await expirePendingBookings(db.prisma);
    if (expired.length) ctx.services.logger.info({ mode: db.mode, count: expired.length }, 'pending bookings expired');
    // Waitlist offers not accepted by offerExpiresAt lapse, their places passed on (docs/api.md, Class waitlists).
    const { lapsed } = await lapseOffers(db.prisma);
    if (lapsed.length) ctx.services.logger.info({ mode: db.mode, count: lapsed.length }, 'waitlist offers lapsed');
  }
}
