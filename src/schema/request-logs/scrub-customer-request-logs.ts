// Erasing a customer (docs/api.md, Retention and privacy: the erase replaces the customer's
// personal data everywhere we hold a copy, request logs included). The erase use case
// (customers/erase-customer.ts) calls this in its transaction. A request log's bodies (4xx/5xx
// only) may quote a customer's name, e-mail or phone, or their id beside such data: every row of the company
// whose bodies mention any of them has both bodies replaced by ERASED_BODY. The row itself
// (time, path, status) stays: it says nothing about the person.
import type { Db, Tx } from '../../db/databases.js';

export const ERASED_BODY = '[erased: the customer’s data was removed]';

export interface ErasedCustomer {
  id: string;
  name?: string | null;
  email?: string | null;
  phone?: string | null;
  /** Other texts that identify them: notes, what they answered. */
  texts?: Array<string | null>;
}

/**
 * The strings that identify a customer inside stored text (the erase uses them too): each value
 * trimmed, JSON-escaped as JSON text holds it and, unless `jsonOnly`, as typed. Values under 3
 * characters are left out: a one- or two-letter name would match half of everything; the id and
 * e-mail still match.
 */
export function mentionTerms(values: Array<string | null | undefined>, opts: { jsonOnly?: boolean } = {}): string[] {
  const terms = new Set<string>();
  for (const v of values) {
    const s = v?.trim();
    if (!s || s.length < 3) continue;
    if (!opts.jsonOnly) terms.add(s);
    terms.add(JSON.stringify(s).slice(1, -1));
  }
  return [...terms];
}

/** The strings that identify the customer as bodies hold them, lower-cased for the match. */
const termsOf = (c: ErasedCustomer) => [
  ...new Set(mentionTerms([c.id, c.name, c.email, c.phone, ...(c.texts ?? [])]).map((t) => t.toLowerCase())),
];

/** Replaces the bodies of the company's request logs that mention the customer; returns how many rows. */
export async function scrubCustomerFromRequestLogs(
  db: Db | Tx,
  opts: { companyId: string; customer: ErasedCustomer },
): Promise<number> {
  const terms = termsOf(opts.customer);
  if (terms.length === 0) return 0;
  return db.$executeRawUnsafe(
    `UPDATE request_logs SET request_body = CASE WHEN request_body IS NULL THEN NULL ELSE $3 END,
            response_body = CASE WHEN response_body IS NULL THEN NULL ELSE $3 END
      WHERE company_id = $1
        AND (request_body IS NOT NULL OR response_body IS NOT NULL)
        AND (request_body IS DISTINCT FROM $3 OR response_body IS DISTINCT FROM $3)
        AND EXISTS (SELECT 1 FROM unnest($2::text[]) AS t(term)
                     WHERE strpos(lower(coalesce(request_body, '')), t.term) > 0
                        OR strpos(lower(coalesce(response_body, '')), t.term) > 0)`,
    opts.companyId,
    terms,
    ERASED_BODY,
  );
}
