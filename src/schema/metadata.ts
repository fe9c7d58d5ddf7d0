// Metadata (docs/api.md, Metadata): the integration's own key/value pairs on companies, bookings,
// customers, employees, services and payments. One rule for all six: an object of at most 50
// keys of 1–40 characters, each value a string of at most 500 characters. Set whole on create;
// a PATCH merges (a key set to null is removed) in one UPDATE, so two concurrent patches of
// different keys both stay, and the 50-key limit is judged on the merged result in the same
// transaction.
import { z } from 'zod';
import { AppError } from '../errors.js';
import { Prisma } from '../generated/prisma/client.js';
import type { Tx } from '../db/databases.js';

export const METADATA_MAX_KEYS = 50;
export const METADATA_MAX_KEY_LENGTH = 40;
export const METADATA_MAX_VALUE_LENGTH = 500;
// A patch may remove as many keys as it sets: 50 set and 50 removed replace the whole object.
const PATCH_MAX_ENTRIES = 2 * METADATA_MAX_KEYS;

export type Metadata = Record<string, string>;
export type MetadataPatch = Record<string, string | null>;

// Text PostgreSQL's jsonb can hold and a person can read: no NUL or other control characters.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

const describeType = (v: unknown) => {
  const name = Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v;
  return name === 'null' ? name : /^[aeiou]/.test(name) ? `an ${name}` : `a ${name}`;
};

/**
 * The zod rule of metadata; issues name the key (`metadata.plan` once parseInput adds the
 * field's name). With `patch`, a value may be null (remove the key).
 */
function metadataRule(opts: { patch: boolean }) {
  return z.unknown().transform((value, ctx) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      ctx.addIssue({ code: 'custom', message: `must be an object of string values, not ${describeType(value)}` });
      return z.NEVER;
    }
    const entries = Object.entries(value);
    const max = opts.patch ? PATCH_MAX_ENTRIES : METADATA_MAX_KEYS;
    if (entries.length > max) {
      ctx.addIssue({ code: 'custom', message: `must have at most ${max} keys, not ${entries.length}` });
      return z.NEVER;
    }
    for (const [key, v] of entries) {
      if (key.length < 1 || key.length > METADATA_MAX_KEY_LENGTH || CONTROL.test(key)) {
        ctx.addIssue({
          code: 'custom',
          path: key.length > 0 && !CONTROL.test(key) ? [key] : [],
          message: `keys must be 1 to ${METADATA_MAX_KEY_LENGTH} characters without control characters`,
        });
      } else if (v === null && opts.patch) {
        continue;
      } else if (typeof v !== 'string') {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `must be a string${opts.patch ? ' (or null to remove it)' : ''}, not ${describeType(v)}`,
        });
      } else if (v.length > METADATA_MAX_VALUE_LENGTH || CONTROL.test(v)) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `must be at most ${METADATA_MAX_VALUE_LENGTH} characters without control characters`,
        });
      }
    }
    if (opts.patch) {
      const set = entries.filter(([, v]) => v !== null).length;
      if (set > METADATA_MAX_KEYS)
        ctx.addIssue({ code: 'custom', message: `must set at most ${METADATA_MAX_KEYS} keys, not ${set}` });
    }
    return value as Metadata;
  });
}

/** Metadata as given on create: the whole object. */
export const metadataInput = metadataRule({ patch: false }) as z.ZodType<Metadata, unknown>;

/** Metadata as given on PATCH: keys to set, and keys set to null to remove. */
export const metadataPatch = metadataRule({ patch: true }) as z.ZodType<MetadataPatch, unknown>;

/** The filter `?metadata[key]=value`: exactly one key with its value. */
export const metadataFilter = metadataInput.refine((m) => Object.keys(m).length === 1, 'must name exactly one key');

/** The tables whose rows carry metadata (a closed list: the name is written into SQL). */
export type MetadataTable = 'companies' | 'bookings' | 'customers' | 'employees' | 'services' | 'payments';

const RECORD: Record<MetadataTable, string> = {
  companies: 'company',
  bookings: 'booking',
  customers: 'customer',
  employees: 'employee',
  services: 'service',
  payments: 'payment',
};

/**
 * Merges a patch into one row's metadata inside the caller's transaction: one UPDATE computes
 * `(metadata || set) - removed` on the row as committed (PostgreSQL re-reads a row another
 * transaction changed meanwhile before applying the expression), and takes the row's lock until
 * the transaction ends. A merged result of more than 50 keys throws VALIDATION_ERROR, which
 * rolls the caller's transaction back: nothing is stored.
 */
export async function mergeMetadata(
  tx: Tx,
  opts: { table: MetadataTable; id: string; companyId: string; patch: MetadataPatch },
): Promise<void> {
  const set = Object.fromEntries(Object.entries(opts.patch).filter(([, v]) => v !== null));
  const removed = Object.keys(opts.patch).filter((k) => opts.patch[k] === null);
  // The companies table's own id is the company; every other table is scoped by company_id.
  const scope = opts.table === 'companies' ? Prisma.empty : Prisma.sql`AND "company_id" = ${opts.companyId}`;
  const rows = await tx.$queryRaw<Array<{ keys: number }>>`
    UPDATE ${Prisma.raw(`"${opts.table}"`)}
       SET "metadata" = ("metadata" || ${JSON.stringify(set)}::jsonb) - ${removed}::text[],
           "updated_at" = now()
     WHERE "id" = ${opts.id} ${scope}
 RETURNING (SELECT count(*) FROM jsonb_object_keys("metadata"))::int AS keys`;
  const keys = rows[0]?.keys;
  if (keys === undefined) throw AppError.notFound(RECORD[opts.table]);
  if (keys > METADATA_MAX_KEYS)
    throw AppError.validation([
      {
        path: 'metadata',
        message: `must have at most ${METADATA_MAX_KEYS} keys: merged with the stored keys it would have ${keys}`,
      },
    ]);
}
