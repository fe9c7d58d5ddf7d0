// PATCH /payments/:id { metadata } (docs/api.md): a payment's metadata, merged in SQL
// (metadata.ts), in any state; payment.updated is written in the same transaction. Amounts and
// states change only by charging and refunding.
import { z } from 'zod';
import type { Db } from '../../db/databases.js';
import type { Payment } from '../../generated/prisma/client.js';
import { domainTransaction } from '../db-errors.js';
import { recordEvent } from '../events/index.js';
import { mergeMetadata, metadataPatch } from '../metadata.js';
import { parseInput } from '../validation.js';
import { findPayment, paymentEventData } from '../core/index.js';

const input = z.object({ metadata: metadataPatch }).partial().strict();

export async function updatePayment(
  db: Db,
  opts: { companyId: string; paymentId: string; input: unknown },
): Promise<Payment> {
  const existing = await findPayment(db, opts.companyId, opts.paymentId);
  const { metadata } = parseInput(input, opts.input);
  return domainTransaction(db, async (tx) => {
    if (metadata)
      await mergeMetadata(tx, { table: 'payments', id: existing.id, companyId: opts.companyId, patch: metadata });
    const after = await tx.payment.findUniqueOrThrow({ where: { id: existing.id } });
    await recordEvent(tx, { companyId: after.companyId, type: 'payment.updated', data: paymentEventData(after) });
    return after;
  });
}
