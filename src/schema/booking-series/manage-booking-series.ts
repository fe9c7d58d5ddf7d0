// GET /booking-series/:id and POST /booking-series/:id/cancel { from?, reason?, cancelledBy?,
// waiveFee? } (docs/api.md, Booking series): the remaining occurrences (those starting at or
// after `from`; every one without it) are cancelled as one, each on its own terms
// (cancelBookingsTogether).
import type { Config } from '../../config.js';
import type { Db, Tx } from '../../db/databases.js';
import type { Company } from '../../generated/prisma/client.js';
import type { Mode } from '../../generated/prisma/enums.js';

import { AppError } from '../../errors.js';
import { isId } from '../../ids.js';
import { boundedInstant } from '../domain-validation.js';
import { parseInput } from '../validation.js';
import { domainNow } from '../domain-time.js';
import { cancelBookingsTogether, cancelTogetherInput } from '../bookings/index.js';
import type { SeriesWithBookings } from './create-booking-series.js';

type Client = Db | Tx;

export async function findBookingSeries(db: Client, companyId: string, id: unknown): Promise<SeriesWithBookings> {
  const s = isId(id)
    ? await db.bookingSeries.findFirst({
        where: { id, companyId },
        include: { bookings: { orderBy: [{ startTime: 'asc' }, { id: 'asc' }] } },
      })
    : null;
  if (!s) throw AppError.notFound('booking series');
  return s;
}

const cancelInput = cancelTogetherInput.extend({ from: boundedInstant.nullish() }).strict();

export async function cancelBookingSeries(
  db: Db,
  opts: { company: Company; mode: Mode; config: Config; seriesId: string; input?: unknown; now?: Date },
): Promise<SeriesWithBookings> {
  const { from, ...rest } = parseInput(cancelInput, opts.input ?? {});
  const series = await findBookingSeries(db, opts.company.id, opts.seriesId);
  const chosen = series.bookings.filter((b) => !from || b.startTime.getTime() >= from.getTime());
  if (chosen.length === 0)
    throw AppError.validation([{ path: 'from', message: 'no occurrence of this series starts at or after it' }]);
  await cancelBookingsTogether(db, {
    company: opts.company,
    mode: opts.mode,
    config: opts.config,
    bookingIds: chosen.map((b) => b.id),
    input: rest,
    now: opts.now ?? (await domainNow(db, opts.company)),
  });
  return findBookingSeries(db, opts.company.id, series.id);
}
