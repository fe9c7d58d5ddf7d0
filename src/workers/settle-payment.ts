// The payments worker (docs/api.md): runs the payments use case settlePayment for one payment
// (the state machine and the refund of a booking that no longer holds its slot live there,
// src/schema/payments/settle-payment.ts). What it throws, the queue retries.
import { settlePayment as settle } from '../schema/payments/index.js';
import type { JobContext } from './job-types.js';

export { PROCESSOR_ATTEMPTS } from '../schema/payments/index.js';

export async function settlePayment(
  ctx: JobContext,
  p: { mode: 'live' | 'test'; paymentId: string; sweep?: number },
): Promise<void> {
  const { services } = ctx;
  await settle(
    { db: services.dbs.forMode(p.mode), config: services.config, logger: services.logger },
    { mode: p.mode, paymentId: p.paymentId },
  );
}
