// Domain time (docs/sandbox.md, Test clocks): the "now" of a company's bookings, availability,
// cut-offs, payment holds, complete/no-show eligibility and reminders. For a sandbox company
// attached to a test clock it is the clock's time; for every other company the real time.
// Every use case that judges one of those resolves it once, here, at its start and passes that
// one value down (and into SQL as a parameter, never the database's now()). Nothing else reads
// it: token, code and session expiry, rate limits, idempotency, webhook timestamps, ids and
// createdAt keep the real time.
import type { Prisma } from '../generated/prisma/client.js';

type Reader = Pick<Prisma.TransactionClient, '$queryRaw'>;

/** The company's domain time: its test clock's time when it is attached to one, else the real time. */
export async function domainNow(db: Reader, companyId: string): Promise<Date> {
  const rows = await db.$queryRaw<Array<{ frozen_time: Date }>>`
    SELECT tc.frozen_time FROM companies c JOIN test_clocks tc ON tc.id = c.test_clock_id
    WHERE c.id = ${companyId}`;
  return rows[0]?.frozen_time ?? new Date();
}
