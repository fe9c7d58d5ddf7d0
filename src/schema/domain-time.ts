// Domain time (docs/sandbox.md, Test clocks): the "now" of a company's bookings, availability,
// cut-offs, payment holds, complete/no-show eligibility and reminders. Every use case that
// judges one of those resolves it once, here, at its start and passes that one value down (and
// into SQL as a parameter, never the database's now()). Nothing else reads it: token, code and
// session expiry, rate limits, idempotency, webhook timestamps, ids and createdAt keep the
// real time.
import type { Prisma } from '../generated/prisma/client.js';

type Reader = Pick<Prisma.TransactionClient, '$queryRaw'>;

/** The company's domain time: for now, the real time. */
export async function domainNow(_db: Reader, _companyId: string): Promise<Date> {
  return new Date();
}
