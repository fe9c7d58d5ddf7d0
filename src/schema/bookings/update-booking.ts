// PATCH /bookings/:id { notes?, metadata? } (docs/api.md): the booking's own notes and metadata,
// in any state; its times, people and status change only through the transitions. The
// metadata is merged in SQL (metadata.ts), and booking.updated is written in the same
// transaction.
import { z } from 'zod';
import type { Db } from '../../db/databases.js';
import type { Booking } from '../../generated/prisma/client.js';
import { recordBookingEvent } from '../core/index.js';
import { domainTransaction } from '../db-errors.js';
import { findBooking } from '../find-records.js';
import { mergeMetadata, metadataPatch } from '../metadata.js';
import { parseInput, text } from '../validation.js';

const input = z
  .object({ notes: text(5000).nullable(), metadata: metadataPatch })
  .partial()
  .strict();

export async function updateBooking(
  db: Db,
  opts: { companyId: string; bookingId: string; input: unknown },
): Promise<Booking> {
  const existing = await findBooking(db, opts.companyId, opts.bookingId);
  const { metadata, ...patch } = parseInput(input, opts.input);
  return domainTransaction(db, async (tx) => {
    if (metadata)
      await mergeMetadata(tx, { table: 'bookings', id: existing.id, companyId: opts.companyId, patch: metadata });
    const after = await tx.booking.update({ where: { id: existing.id }, data: patch });
    await recordBookingEvent(tx, after, 'booking.updated');
    return after;
  });
}
