import { z } from 'zod';
import type { Databases, Tx } from '../../db/databases.js';
import type { Company } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import {
  SAMPLE_ORDER,
  SAMPLE_TEMPLATES,
  type SampleTemplate,
  seedSampleCompany,
  buildSampleCompany,
  type SampleBuildOptions,
} from '../sandbox/index.js';
import { metadataInput } from '../metadata.js';
import { LATEST_API_VERSION } from './api-versions.js';
import { currency, email, parseInput, phone, requiredText, text, timezone } from '../validation.js';

const createCompanyInput = z
  .object({
    accountId: z.string().regex(/^[0-9a-f]{24}$/),
    mode: z.enum(['live', 'test']),
    name: requiredText(200),
    timezone: timezone.default('UTC'),
    currency: currency.default('USD'),
    email: email.nullish(),
    phone: phone.nullish(),
    address: text(500).nullish(),
    template: z.enum(SAMPLE_ORDER as [SampleTemplate, ...SampleTemplate[]]).nullish(),
    metadata: metadataInput.optional(),
  })
  .strict()
  // Sample staff and customers are made-up data: they belong in the sandbox only (docs/sandbox.md).
  .refine((c) => !c.template || c.mode === 'test', {
    path: ['template'],
    message: 'templates are for test companies only',
  });

// `name` may be left out when a template gives it; otherwise its absence is a VALIDATION_ERROR.
export type CreateCompanyInput = Omit<z.input<typeof createCompanyInput>, 'name'> & { name?: string };

// A transaction that writes a whole sample graph; the default 5 s is tight on a busy PGlite.
export const SEED_TRANSACTION = { maxWait: 10_000, timeout: 30_000 } as const;

/** A template's profile under the caller's fields: "from a template" fills what was not given. */
function withTemplateProfile(input: CreateCompanyInput): CreateCompanyInput {
  const t = input.template;
  if (typeof t !== 'string' || !Object.hasOwn(SAMPLE_TEMPLATES, t)) return input;
  const given = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
  return { ...SAMPLE_TEMPLATES[t], ...given } as CreateCompanyInput;
}

export type ParsedCompanyInput = z.output<typeof createCompanyInput>;

/** Validates company input, a template's profile filling the fields not given. */
export function parseCompanyInput(input: CreateCompanyInput): ParsedCompanyInput {
  return parseInput(createCompanyInput, withTemplateProfile(input));
}

/** Writes a validated company and its template's sample data inside the caller's transaction. */
export async function insertCompany(tx: Tx, data: ParsedCompanyInput, opts: { now?: Date } = {}): Promise<Company> {
  const company = await tx.company.create({ data: { id: newId(), apiVersion: LATEST_API_VERSION, ...data } });
  if (data.template)
    await seedSampleCompany(tx, {
      companyId: company.id,
      template: data.template,
      timezone: company.timezone,
      now: opts.now,
    });
  return company;
}

/**
 * Creates a company in the database of its mode (docs/sandbox.md: test companies are the sandbox).
 * With a `template`, the company is a test company made from that sample: the template's
 * profile fills the fields not given, and its staff, services, classes and customers are
 * written in the same transaction, so a company never exists half-seeded. Its sample bookings
 * are made right after that transaction commits, by the API's own use cases, which run
 * transactions of their own (src/schema/sandbox/sample-bookings.ts).
 */
export async function createCompany(
  dbs: Databases,
  input: CreateCompanyInput,
  opts: SampleBuildOptions = {},
): Promise<Company> {
  const data = parseCompanyInput(input);
  const db = dbs.forMode(data.mode);
  if (!data.template) return db.company.create({ data: { id: newId(), apiVersion: LATEST_API_VERSION, ...data } });
  const company = await db.$transaction((tx) => insertCompany(tx, data, opts), SEED_TRANSACTION);
  await buildSampleCompany(db, company, opts);
  return company;
}

/** The sample test companies every account starts with; returns them in template order. */
export async function createSampleCompanies(
  dbs: Databases,
  accountId: string,
  templates: SampleTemplate[] = SAMPLE_ORDER,
  opts: SampleBuildOptions = {},
): Promise<Company[]> {
  const out: Company[] = [];
  for (const template of templates) {
    const data = parseCompanyInput({ accountId, mode: 'test', template });
    out.push(await dbs.test.prisma.$transaction((tx) => insertCompany(tx, data, opts), SEED_TRANSACTION));
  }
  // Their sample bookings side by side: each company's are independent of the others', and
  // account creation waits for the slowest, not for the sum (see docs/performance.md,
  // "Account creation and the sample bookings").
  await Promise.all(out.map((company) => buildSampleCompany(dbs.test.prisma, company, opts)));
  return out;
}
