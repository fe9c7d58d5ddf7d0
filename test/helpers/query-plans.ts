// What the query-plan test (test/db/query-plans.test.ts) and the scale bench's plans
// (bench/scale-plans.ts) share: which statements the app sent are reads worth explaining, the
// tables that grow with a platform's history, and reading a JSON plan for how it reads them.
import type { SentQuery } from '../../src/db/databases.js';

/** The tables that grow with the history: a read of one that no index narrows is a bug at scale. */
export const BIG_TABLES = new Set(['bookings', 'events', 'webhook_deliveries', 'customers', 'class_sessions']);

export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

/** A statement's first word, past the comments that open it (PLANNED_WITH_VALUES, say). */
export const verbOf = (text: string): string =>
  /^(?:\s*\/\*[\s\S]*?\*\/)*\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? '';

/** A statement that only reads: a SELECT, or a WITH without a write in it. */
export const isRead = (text: string): boolean =>
  ['SELECT', 'WITH'].includes(verbOf(text)) && !/\b(INSERT\s+INTO|UPDATE\s+"?\w+"?\s+SET|DELETE\s+FROM)\b/i.test(text);

/** The distinct statements of one mode that `keep` accepts, each once, in the order first sent. */
export function distinctStatements(
  sent: SentQuery[],
  keep: (text: string) => boolean,
  mode: SentQuery['mode'] = 'live',
): SentQuery[] {
  const out = new Map<string, SentQuery>();
  for (const q of sent) if (q.mode === mode && keep(q.text) && !out.has(q.text)) out.set(q.text, q);
  return [...out.values()];
}

/**
 * The reads of a big table that no index condition narrows: a sequential scan, or an index
 * walked from end to end (with sequential scans off, the planner would rather walk a whole
 * primary key than admit it has no index for the condition).
 */
export function unnarrowed(node: PlanNode, out: string[] = []): string[] {
  const table = node['Relation Name'];
  if (table && BIG_TABLES.has(table)) {
    const type = node['Node Type'];
    const narrowed =
      type === 'Index Scan' || type === 'Index Only Scan'
        ? Boolean(node['Index Cond'])
        : type === 'Bitmap Heap Scan'
          ? (node.Plans ?? []).some(function cond(p: PlanNode): boolean {
              return Boolean(p['Index Cond']) || (p.Plans ?? []).some(cond);
            })
          : false;
    if (!narrowed) out.push(`${type} on ${table}${node['Index Name'] ? ` (${node['Index Name']})` : ''}`);
  }
  for (const child of node.Plans ?? []) unnarrowed(child, out);
  return out;
}

/** The sequential scans of big tables in a plan (as the planner chose it, sequential scans allowed). */
export function seqScans(node: PlanNode, out: string[] = []): string[] {
  const table = node['Relation Name'];
  if (node['Node Type'] === 'Seq Scan' && table && BIG_TABLES.has(table)) out.push(`Seq Scan on ${table}`);
  for (const child of node.Plans ?? []) seqScans(child, out);
  return out;
}
