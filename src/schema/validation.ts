// Field rules shared by every use case, so REST, GraphQL and the CLI refuse the same input
// with the same words. Failures become VALIDATION_ERROR with one entry per field.
import { isValidPhoneNumber, parsePhoneNumberWithError } from 'libphonenumber-js';
import { IANAZone } from 'luxon';
import { z } from 'zod';
import { AppError } from '../errors.js';
import { deepFreeze } from '../frozen.js';

const CURRENCIES = deepFreeze(new Set(Intl.supportedValuesOf('currency')));

// Text that PostgreSQL can store and a person can read: no NUL or other control characters
// (tab and newlines excepted).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

export const text = (max: number) =>
  z
    .string()
    .max(max, `must be at most ${max} characters`)
    .refine((s) => !CONTROL.test(s), 'must not contain control characters');

export const requiredText = (max: number) => text(max).refine((s) => s.trim().length > 0, 'must not be empty');

export const email = z
  .string()
  .max(254, 'must be at most 254 characters')
  .pipe(z.email('must be an e-mail address'))
  .transform((s) => s.toLowerCase());

/** E.164, with the leading + (international format with the leading +). */
export const phone = z
  .string()
  .max(32, 'must be at most 32 characters')
  .refine(
    (s) => /^\+[1-9]\d{6,14}$/.test(s.replace(/[\s().-]/g, '')) && isValidPhoneNumber(s),
    'must be a telephone number in international format, e.g. +14155550123',
  )
  .transform((s) => parsePhoneNumberWithError(s).number);

export const timezone = z
  .string()
  .max(64)
  .refine(
    (s) => (IANAZone.isValidZone(s) && s.includes('/')) || s === 'UTC',
    'must be an IANA time zone name, e.g. Europe/Berlin',
  );

export const currency = z
  .string()
  .refine(
    (s) => /^[A-Z]{3}$/.test(s) && CURRENCIES.has(s),
    'must be a three-letter upper-case ISO 4217 currency code, e.g. EUR',
  );

/** Parses input against a zod schema or throws VALIDATION_ERROR naming each bad field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  throw AppError.validation(
    r.error.issues.map((i) => ({
      path: i.path.join('.'),
      message: i.code === 'unrecognized_keys' ? `unknown field(s): ${i.keys.join(', ')}` : i.message,
    })),
  );
}
