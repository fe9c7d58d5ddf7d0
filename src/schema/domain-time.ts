// Domain time (docs/sandbox.md, Test clocks): the "now" of a company's bookings, availability,
// cut-offs, payment holds, complete/no-show eligibility and reminders. For a sandbox company
// attached to a test clock it is the clock's time; for every other company the real time.
// Every use case that judges one of those resolves it once, here, at its start and passes that
// one value down (and into SQL as a parameter, never the database's now()). Nothing else reads
// it: token, code and session expiry, rate limits, idempotency, webhook timestamps, ids and
// createdAt keep the real time.
import type { Tx } from '../db/databases.js';
import type { Mode } from '../generated/prisma/enums.js';

type Reader = Pick<Tx, '$queryRaw'>;

/**
 * The company's domain time: its test clock's time when it is attached to one, else the real
 * time. Given the company itself, a live one is answered without a query: only test companies
 * can be attached to a clock, so the booking paths of live companies pay nothing for clocks.
 * Nor does a test company whose row says it is attached to none: the row a request carries is
 * its credential's (src/auth/credentials.ts), which attaching a clock (updateMe, the one way to
 * attach) drops on every instance, or the admin guard's, read per request. The clock itself is
 * always read: its time moves without the company's row changing.
 */
export async function domainNow(
  db: Reader,
  company: string | { id: string; mode: Mode; testClockId?: string | null },
): Promise<Date> {
  if (typeof company !== 'string' && (company.mode === 'live' || company.testClockId === null)) return new Date();
  const companyId = typeof company === 'string' ? company : company.id;
  const rows = await db.$queryRaw<Array<{ frozen_time: Date }>>`
    SELECT tc.frozen_time FROM companies c JOIN test_clocks tc ON tc.id = c.test_clock_id
    WHERE c.id = ${companyId}`;
  return rows[0]?.frozen_time ?? new Date();
}
