// Customers (docs/api.md): name and email required, email unique in the company (stored
// lower-cased; a second one is CONFLICT), phone in E.164. Every change writes its event in the
// same transaction (customer.created / customer.updated, docs/webhooks.md).
import { z } from 'zod';
import { sqlOf, sqlRows, type Db, type Transaction } from '../../db/databases.js';
import { Prisma, type Customer } from '../../generated/prisma/client.js';
import { AppError } from '../../errors.js';
import { newId } from '../../ids.js';
import { isForeignKeyViolation, isUniqueViolation } from '../db-errors.js';
import { eventInsert, recordEvent } from '../events/index.js';
import { returningAll } from '../model-columns.js';
import { CustomerTable } from '../../generated/rows.js';
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
export async function findOrCreateCustomer(tx: Transaction, companyId: string, input: unknown): Promise<Customer> {
  const data = parseInput(createCustomerInput, input);
  const now = new Date();
  const made: Customer = {
    id: newId(),
    companyId,
    name: data.name,
    email: data.email,
    phone: data.phone ?? null,
    notes: data.notes ?? null,
    metadata: data.metadata ?? {},
    erasedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  // The row and its customer.created event in one statement; the event only when it was made.
  const [created] = await sqlRows<Customer>(
    tx,
    Prisma.sql`
      WITH c AS (
        INSERT INTO customers (id, company_id, name, email, phone, notes, metadata, created_at, updated_at)
        VALUES (${made.id}, ${companyId}, ${made.name}, ${made.email}, ${made.phone}, ${made.notes},
                ${JSON.stringify(made.metadata)}::jsonb, ${now}, ${now})
        ON CONFLICT (company_id, email) DO NOTHING
        RETURNING ${CUSTOMER_RETURNING}
      ),
      e AS (${eventInsert({ companyId, type: 'customer.created', data: customerEventData(made) }, 'c')})
      SELECT * FROM c`,
  );
  if (created) return created;
  // Found, not made: it may be an erasure under way (or one that took this address's
  // placeholder); the lock waits for it and refuses an erased customer.
  const [found] = await sqlRows<Customer>(
    tx,
    Prisma.sql`SELECT ${CUSTOMER_RETURNING} FROM customers WHERE company_id = ${companyId} AND email = ${data.email} FOR KEY SHARE`,
  );
  lockedCustomer(found);
  return found;
}

// Every column of a customer under its Prisma field name: a row read past Prisma is the model's.
const CUSTOMER_RETURNING = returningAll(CustomerTable);

export async function updateCustomer(db: Db, opts: { companyId: string; customerId: string; input: unknown }) {
  return (await changeCustomer(db, opts)).after;
}

/**
 * updateCustomer that also answers the row as it was before the change (the admin's audit entry
 * shows both): the row it read to find the customer, so no second read is needed.
 */
export async function changeCustomer(
  db: Db,
  opts: { companyId: string; customerId: string; input: unknown },
): Promise<{ before: Customer; after: Customer }> {
  const existing = await findCustomer(db, opts.companyId, opts.customerId);
  const { metadata, ...patch } = parseInput(updateInput, opts.input);
  try {
    const after = await db.$transaction(async (tx) => {
      // Under the row lock an erase also takes: an update never writes personal data back
      // onto an erased customer, whichever of the two comes first.
      await lockCustomer(tx, opts.companyId, existing.id, 'FOR NO KEY UPDATE');
      if (metadata)
        await mergeMetadata(tx, { table: 'customers', id: existing.id, companyId: opts.companyId, patch: metadata });
      const customer = await tx.customer.update({ where: { id: existing.id }, data: patch });
      await recordEvent(tx, { companyId: opts.companyId, type: 'customer.updated', data: customerEventData(customer) });
      return customer;
    });
    return { before: existing, after };
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
  tx: Transaction,
  companyId: string,
  customerId: string,
  lock: 'FOR KEY SHARE' | 'FOR NO KEY UPDATE',
): Promise<void> {
  const rows = await sqlOf(tx)<{ erasedAt: Date | null }>(
    `SELECT erased_at AS "erasedAt" FROM customers WHERE id = $1 AND company_id = $2 ${lock}`,
    [customerId, companyId],
  );
  lockedCustomer(rows[0]);
}

/** What lockCustomer answers of the row its lock read: NOT_FOUND when none, CONFLICT when erased. */
export function lockedCustomer<R extends { erasedAt: Date | null }>(row: R | undefined): asserts row is R {
  if (!row) throw AppError.notFound('customer');
  if (row.erasedAt) throw alreadyErased(row.erasedAt);
}
