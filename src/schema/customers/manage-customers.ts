// Customers (docs/api.md): name and email required, email unique in the company (stored
// lower-cased; a second one is CONFLICT), phone in E.164. Every change writes its event in the
// same transaction (customer.created / customer.updated, docs/webhooks.md).
import { z } from 'zod';
import type { Db } from '../../db/databases.js';
import type { Customer, Prisma } from '../../generated/prisma/client.js';
import { AppError } from '../../errors.js';
import { newId } from '../../ids.js';
import { isForeignKeyViolation, isUniqueViolation } from '../db-errors.js';
import { recordEvent } from '../events/events.js';
import { mergeMetadata, metadataInput, metadataPatch } from '../metadata.js';
import { email, parseInput, phone, requiredText, text } from '../validation.js';
import { findCustomer } from '../find-records.js';
import { alreadyErased } from './erase-customer.js';

export const customerFields = { name: requiredText(200), email, phone: phone.nullable(), notes: text(5000).nullable() };
export const createCustomerInput = z
  .object({ ...customerFields, metadata: metadataInput })
  .partial({ phone: true, notes: true, metadata: true })
  .strict();
const updateInput = z
  .object({ ...customerFields, metadata: metadataPatch })
  .partial()
  .strict();

export const customerEventData = (c: Customer) => ({
  customerId: c.id,
  name: c.name,
  email: c.email,
  phone: c.phone,
  metadata: c.metadata,
});

const emailTaken = (value: string) =>
  new AppError('CONFLICT', 'A customer with this e-mail already exists in this company', {
    details: { field: 'email', value },
  });

export async function createCustomer(db: Db, opts: { companyId: string; input: unknown }) {
  const data = parseInput(createCustomerInput, opts.input);
  try {
    return await db.$transaction(async (tx) => {
      const customer = await tx.customer.create({ data: { id: newId(), companyId: opts.companyId, ...data } });
      await recordEvent(tx, { companyId: opts.companyId, type: 'customer.created', data: customerEventData(customer) });
      return customer;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw emailTaken(data.email);
    throw err;
  }
}

/**
 * The customer with this e-mail, created if there is none (POST /bookings with an inline
 * customer). INSERT ... ON CONFLICT DO NOTHING, so two concurrent bookings by a new customer
 * neither fail nor create two; an existing customer's name and phone are left as they are.
 */
export async function findOrCreateCustomer(
  tx: Prisma.TransactionClient,
  companyId: string,
  input: unknown,
): Promise<Customer> {
  const data = parseInput(createCustomerInput, input);
  const id = newId();
  const { count } = await tx.customer.createMany({ data: [{ id, companyId, ...data }], skipDuplicates: true });
  const customer = await tx.customer.findUniqueOrThrow({
    where: { companyId_email: { companyId, email: data.email } },
  });
  if (count === 1) await recordEvent(tx, { companyId, type: 'customer.created', data: customerEventData(customer) });
  // Found, not made: it may be an erasure under way (or one that took this address's
  // placeholder); the lock waits for it and refuses an erased customer.
  else await lockCustomer(tx, companyId, customer.id, 'FOR KEY SHARE');
  return customer;
}

export async function updateCustomer(db: Db, opts: { companyId: string; customerId: string; input: unknown }) {
  const existing = await findCustomer(db, opts.companyId, opts.customerId);
  const { metadata, ...patch } = parseInput(updateInput, opts.input);
  try {
    return await db.$transaction(async (tx) => {
      // Under the row lock an erase also takes: an update never writes personal data back
      // onto an erased customer, whichever of the two comes first.
      await lockCustomer(tx, opts.companyId, existing.id, 'FOR NO KEY UPDATE');
      if (metadata)
        await mergeMetadata(tx, { table: 'customers', id: existing.id, companyId: opts.companyId, patch: metadata });
      const customer = await tx.customer.update({ where: { id: existing.id }, data: patch });
      await recordEvent(tx, { companyId: opts.companyId, type: 'customer.updated', data: customerEventData(customer) });
      return customer;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw emailTaken(patch.email ?? '');
    throw err;
  }
}

/**
 * Deletes a customer who has no bookings. One with bookings is a CONFLICT: deleting would
 * take their booking and payment history with it. The foreign key decides (bookings.customer_id
 * is ON DELETE RESTRICT), so a booking made concurrently with the delete either commits first
 * and the delete is refused, or finds the customer gone; never is it deleted with the customer.
 */
export async function deleteCustomer(db: Db, opts: { companyId: string; customerId: string }) {
  const existing = await findCustomer(db, opts.companyId, opts.customerId);
  let deleted: number;
  try {
    deleted = (await db.customer.deleteMany({ where: { id: existing.id, companyId: opts.companyId } })).count;
  } catch (err) {
    if (!isForeignKeyViolation(err)) throw err;
    const bookings = await db.booking.count({ where: { customerId: existing.id } });
    throw new AppError('CONFLICT', 'This customer has bookings and cannot be deleted', {
      details: { bookings },
      cause: err,
    });
  }
  if (deleted === 0) throw AppError.notFound('customer'); // deleted concurrently
  return existing;
}

/**
 * Locks the customer's row and answers NOT_FOUND if it is gone, CONFLICT if the customer was
 * erased. `FOR KEY SHARE` is what a new booking for them takes (it waits for an erase under way
 * and then sees it); `FOR NO KEY UPDATE` what a change of the customer takes.
 */
export async function lockCustomer(
  tx: Prisma.TransactionClient,
  companyId: string,
  customerId: string,
  lock: 'FOR KEY SHARE' | 'FOR NO KEY UPDATE',
): Promise<void> {
  const rows = await tx.$queryRawUnsafe<Array<{ erasedAt: Date | null }>>(
    `SELECT erased_at AS "erasedAt" FROM customers WHERE id = $1 AND company_id = $2 ${lock}`,
    customerId,
    companyId,
  );
  const [row] = rows;
  if (!row) throw AppError.notFound('customer');
  if (row.erasedAt) throw alreadyErased(row.erasedAt);
}
