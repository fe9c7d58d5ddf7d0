// What can be paid (docs/api.md, Payments), shared by a booking's payment (create-payment.ts)
// and a visit's (visit-charge.ts).
import { AppError } from '../../errors.js';
import type { Booking } from '../../generated/prisma/client.js';
import type { PaymentStatus } from '../../generated/prisma/enums.js';

/**
 * A pending booking holding its slot, or a confirmed one. A pending booking whose hold has ended
 * is expired (docs/api.md) even before the expiry job gets to it, so it can no longer be paid.
 */
export function assertPayable(b: Pick<Booking, 'status' | 'holdExpiresAt'>, now: Date): void {
  if (b.status !== 'pending' && b.status !== 'confirmed') {
    throw new AppError('INVALID_STATE_TRANSITION', `A ${b.status} booking cannot be paid`, {
      details: { from: b.status, to: 'paid' },
    });
  }
  if (b.status === 'pending' && b.holdExpiresAt && b.holdExpiresAt.getTime() <= now.getTime()) {
    throw new AppError(
      'INVALID_STATE_TRANSITION',
      `The booking's hold ended at ${b.holdExpiresAt.toISOString()}; it can no longer be paid`,
      {
        details: { from: 'expired', to: 'paid' },
      },
    );
  }
}

// Payments that stand: processing, or charged and not refunded in full.
export const LIVE: PaymentStatus[] = ['processing', 'succeeded', 'partially_refunded'];
