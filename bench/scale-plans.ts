// The plans at scale (issue 22 §3: "for each hot query, the plan at scale is captured"): each
// scale scenario's request is answered once by the real app in this process on the scale data
// set, every statement it sent recorded (`openDatabases`' `onQuery`, as test/db/query-plans.test.ts
// does), and each distinct read explained there with `EXPLAIN (ANALYZE, BUFFERS)`, inside a
// transaction rolled back (a read may lock rows: `FOR UPDATE`). Writes (INSERT, UPDATE, DELETE)
// are not explained, only counted. A plan with a sequential scan of a big table is flagged.
//
// The request is sent as the load sends it: a GET changes nothing; a booking scenario's request
// books one slot the load left free (the scale set keeps what a run books), the race's gets its 409.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabases, type SentQuery } from '../src/db/databases.js';
import { createServices } from '../src/services.js';
import { distinctStatements, isRead, seqScans, type PlanNode } from '../test/helpers/query-plans.js';
import type { RequestSpec } from './scenarios.js';

export interface ScenarioPlans {
  scenario: string;
  request: string;
  status: number;
  /** Statements sent in all, distinct writes left unexplained. */
  sent: number;
  writes: number;
  plans: Array<{ sql: string; plan: string; seqScans: string[] }>;
}

export async function capturePlans(o: {
  url: string;
  redisUrl: string;
  specs: Array<{ name: string; spec: RequestSpec }>;
}): Promise<ScenarioPlans[]> {
  let recording: SentQuery[] | null = null;
  const config = loadConfig({
    DATABASE_URL: o.url,
    REDIS_URL: o.redisUrl,
    REDIS_PREFIX: `svc_bench_h3_plans${randomBytes(3).toString('hex')}:`,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'test',
    RATE_LIMIT_PER_SECOND: '1000000000',
  });
  const dbs = await openDatabases(config, { onQuery: (q) => recording?.push(q) });
  const services = await createServices(config, { dbs });
  const app = await buildApp(services);
  await app.ready();
  const c = new pg.Client({ connectionString: o.url });
  await c.connect();
  const out: ScenarioPlans[] = [];
  try {
    await c.query(`SET statement_timeout = '30s'`);
    for (const { name, spec } of o.specs) {
      recording = [];
      const body = spec.bodies?.at(-1);
      const res = await app.inject({
        method: spec.method,
        url: spec.path,
        headers: { ...spec.headers, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { payload: body } : {}),
      });
      const sent = recording;
      recording = null;
      const reads = distinctStatements(sent, isRead);
      const writes = distinctStatements(
        sent,
        (t) => !isRead(t) && !/^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|SET|LISTEN)\b/i.test(t),
      );
      const plans: ScenarioPlans['plans'] = [];
      for (const q of reads) {
        await c.query('BEGIN');
        try {
          const text = await c.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${q.text}`, q.values);
          const json = await c.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
            `EXPLAIN (FORMAT JSON) ${q.text}`,
            q.values,
          );
          plans.push({
            sql: q.text,
            plan: text.rows.map((r) => r['QUERY PLAN']).join('\n'),
            seqScans: seqScans(json.rows[0]!['QUERY PLAN'][0]!.Plan),
          });
        } catch (err) {
          plans.push({ sql: q.text, plan: `not explained: ${(err as Error).message}`, seqScans: [] });
        } finally {
          await c.query('ROLLBACK');
        }
      }
      out.push({
        scenario: name,
        request: `${spec.method} ${spec.path}`,
        status: res.statusCode,
        sent: sent.length,
        writes: writes.length,
        plans,
      });
    }
  } finally {
    await c.end();
    await app.close();
    await services.close();
    await dbs.close();
  }
  return out;
}

/** The plans as Markdown: a section per scenario, each plan in a fenced block under its statement. */
export function plansMarkdown(all: ScenarioPlans[]): string[] {
  const lines = ['## Query plans at scale', ''];
  lines.push(
    "Each scenario's request answered once by the app in process on the scale data set; every distinct read it sent, explained there with `EXPLAIN (ANALYZE, BUFFERS)` in a transaction rolled back. Writes are not explained. **SEQ SCAN** marks a sequential scan of a big table.",
    '',
  );
  for (const s of all) {
    const flagged = s.plans.filter((p) => p.seqScans.length).length;
    lines.push(
      `### ${s.scenario}`,
      '',
      `\`${s.request.length > 160 ? `${s.request.slice(0, 160)}…` : s.request}\` answered ${s.status}; ${s.sent} statements sent, ${s.plans.length} distinct reads explained, ${s.writes} distinct writes not explained${flagged ? `; **SEQ SCAN in ${flagged}**` : ''}.`,
      '',
    );
    for (const p of s.plans)
      lines.push(
        ...(p.seqScans.length ? [`**SEQ SCAN**: ${p.seqScans.join(', ')}`, ''] : []),
        '```sql',
        p.sql,
        '```',
        '',
        '```',
        p.plan,
        '```',
        '',
      );
  }
  return lines;
}
