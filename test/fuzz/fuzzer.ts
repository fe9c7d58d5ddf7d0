// The fuzzer: requests generated from the app's OpenAPI document, sent one at a time over a
// real socket, each judged (no 5xx, the envelope, nothing written on a 4xx, no id of the canary
// company). Every CANARY_EVERY requests the canary's answers are read again and must not have
// moved (test/fuzz/canary.ts). A run counts every problem and goes on; afterwards the first
// request of each kind of problem is replayed from the seed and shrunk by fast-check to a
// minimal counterexample (a canary's change, seen only at its next read, is named, not shrunk).
import fc from 'fast-check';
import type { Databases } from '../../src/db/databases.js';
import { CANARY_EVERY, describeChange, type Canary } from './canary.js';
import { changedTables, DbSnapshotter, type Snapshot } from './db-snapshot.js';
import { excerpt, judge, type Problem, type ProblemKind } from './judge.js';
import { edgeCases } from './edge-cases.js';
import {
  cleanRequest,
  operationsOf,
  paramKind,
  requestArbitrary,
  vocabularyOf,
  type AbstractRequest,
  type Operation,
} from './operations.js';
import { Pools, Resolver, routeKind, type Keys } from './resolve.js';
import { SchemaArbitraries, type JsonSchema } from './schema-arbitrary.js';
import { PoolId, Verbatim } from './values.js';
import { NoAnswer, send, type WireRequest } from './wire.js';

export interface FuzzTarget {
  port: number;
  dbs: Databases;
  keys: Keys;
  doc: Parameters<typeof operationsOf>[0];
  /** Companies the fuzzer never sends a request as, watched while it runs. */
  canary?: Canary;
}

export interface FuzzOptions {
  seed: number;
  /** At most this many requests... */
  requests: number;
  /** ...and for at most this long. */
  seconds: number;
  /** Replay one run of the seed (fast-check's path) and shrink it, instead of a run. */
  path?: string;
  shrinkSeconds: number;
  /** Print the per-operation table at the end. */
  perOperation: boolean;
  log: (line: string) => void;
}

interface Outcome {
  wire: WireRequest;
  /** The answer's body, when there was an answer. */
  answer: Buffer | null;
  status: number | null;
  code: string | null;
  problems: Problem[];
}

export interface Failure {
  kind: ProblemKind;
  op: string;
  run: number;
  detail: string;
  request: string;
  shrunk?: { path: string; request: string; detail: string } | 'not reproduced';
}

export interface FuzzReport {
  seed: number;
  requests: number;
  seconds: number;
  counts: Record<ProblemKind, number>;
  statuses: Record<number, number>;
  failures: Failure[];
}

const KINDS: ProblemKind[] = [
  '5xx',
  'non-envelope',
  'write-on-4xx',
  'no-answer',
  'undocumented',
  'canary-changed',
  'canary-leak',
];
/** How many distinct (problem, operation) pairs are shrunk and printed. */
const MAX_FAILURES = 5;

/** A request as text: method, target, headers, and the body (UTF-8 where it is, bytes escaped where not). */
export function describeRequest(w: WireRequest): string {
  const lines = [
    `${w.method} ${excerpt(w.target, 400)}`,
    ...w.headers.map(([k, v]) => `${k}: ${excerpt(v.replace(/(svc_sk_(?:live|test)_)[A-Za-z0-9]{8,}/, '$1…'), 200)}`),
  ];
  if (w.body) {
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(w.body);
    } catch {
      text = `(not UTF-8) ${JSON.stringify(w.body.toString('latin1'))}`;
    }
    lines.push('', excerpt(text, 600));
  }
  return lines.map((l) => `    ${l}`).join('\n');
}

/** Which credential a request was sent with, in words. */
function credentialOf(req: AbstractRequest): string {
  return req.auth instanceof Verbatim
    ? `Authorization ${JSON.stringify(excerpt(req.auth.text, 60))}`
    : `${req.auth} key`;
}

export class Fuzzer {
  readonly ops: Operation[];
  private readonly pools = new Pools();
  private readonly resolver: Resolver;
  private readonly snapshots: DbSnapshotter;
  private readonly arbitrary: fc.Arbitrary<AbstractRequest>;
  /** The edge sweep, run before the random requests (fast-check's examples, so paths count them). */
  private readonly examples: Array<[AbstractRequest]>;
  /** The snapshot taken after the last request, while nothing has run since. */
  private fresh: Snapshot | null = null;
  /** Requests since the canary was last read, in one line each (named when it changed). */
  private sinceCanary: string[] = [];
  private last: { req: AbstractRequest; wire: WireRequest } | null = null;
  /** The canary's problems seen during the warm-up, counted with the run's. */
  private warmUpProblems: Array<{ out: Outcome; op: string }> = [];

  constructor(
    private readonly target: FuzzTarget,
    private readonly opts: FuzzOptions,
  ) {
    this.ops = operationsOf(target.doc);
    const components = target.doc.components?.schemas ?? {};
    const context = {
      resolve: (ref: string) => components[ref.replace('#/components/schemas/', '')] as JsonSchema,
      vocabulary: vocabularyOf(target.doc),
    };
    this.resolver = new Resolver(this.ops, this.pools, target.keys);
    this.snapshots = new DbSnapshotter(target.dbs);
    const clean = new SchemaArbitraries({ ...context, validWeight: 0 });
    this.arbitrary = requestArbitrary(this.ops, clean, new SchemaArbitraries({ ...context, validWeight: 6 }));
    const cleanOf = (op: Operation, i: number) =>
      fc.sample(cleanRequest(op, i, clean), { seed: opts.seed, numRuns: 1 })[0]!;
    this.examples = edgeCases(this.ops, cleanOf).map((r) => [r]);
  }

  /**
   * One request (answer), then the canary: the answer must carry none of its ids, and every
   * CANARY_EVERY requests its answers are read again.
   */
  async execute(req: AbstractRequest): Promise<Outcome> {
    const out = await this.answer(req);
    const canary = this.target.canary;
    if (!canary) return out;
    this.last = { req, wire: out.wire };
    this.sinceCanary.push(
      `${out.wire.method} ${excerpt(out.wire.target, 160)} (${credentialOf(req)}) → ${out.status ?? 'no answer'}`,
    );
    const leaks = out.answer ? canary.leaksIn(out.answer) : [];
    if (leaks.length)
      out.problems.push({ kind: 'canary-leak', detail: `${out.status} carries the canary's ${leaks.join(', ')}` });
    if (this.sinceCanary.length >= CANARY_EVERY) out.problems.push(...(await this.checkCanary()));
    return out;
  }

  /** Reads the canary's answers again: a change is a problem naming the request before it. */
  private async checkCanary(): Promise<Problem[]> {
    const since = this.sinceCanary;
    this.sinceCanary = [];
    // The canary's reads ran since the last snapshot.
    this.fresh = null;
    const changes = await this.target.canary!.check();
    if (!changes.length || !this.last) return [];
    const { req, wire } = this.last;
    this.opts.log(
      `fuzz: the canary changed; the ${since.length} requests since it was last read, oldest first:\n${since.map((l) => `    ${l}`).join('\n')}`,
    );
    return [
      {
        kind: 'canary-changed',
        detail:
          `${changes.map(describeChange).join('; ')}. Read after ${credentialOf(req)} ${wire.method} ${excerpt(wire.target, 200)}` +
          ` (the request below), or one of the ${since.length - 1} before it since the last read (in the log)`,
      },
    ];
  }

  /** One request: snapshot, send, judge, and on a 4xx compare; on a 200 learn ids and slots. */
  private async answer(req: AbstractRequest): Promise<Outcome> {
    const before = this.fresh ?? (await this.snapshots.take());
    this.fresh = null;
    const wire = this.resolver.wire(req);
    let res;
    try {
      res = await send(this.target.port, wire);
    } catch (err) {
      if (!(err instanceof NoAnswer)) throw err;
      return { wire, answer: null, status: null, code: null, problems: [{ kind: 'no-answer', detail: err.message }] };
    }
    const { problems, body } = judge(res);
    if (res.status >= 400 && res.status < 500) {
      const after = await this.snapshots.take();
      const changed = changedTables(before, after);
      if (changed.length)
        problems.push({
          kind: 'write-on-4xx',
          detail: `${res.status} ${body?.error?.code ?? ''}, and written: ${changed.join(', ')}`,
        });
      this.fresh = after;
    }
    const op = this.ops[req.op]!;
    // An error of the operation itself (not of another method on its path) is one its OpenAPI
    // entry lists, with a code of that status's enum. 431 and 408 come from Node's HTTP parser
    // before any route (src/rest/client-error.ts), whatever the path.
    const code: unknown = body?.error?.code;
    if (req.method === null && res.status >= 400 && res.status !== 431 && res.status !== 408) {
      const documented = op.errors[String(res.status)];
      if (!documented || typeof code !== 'string' || !documented.includes(code))
        problems.push({
          kind: 'undocumented',
          detail: `${res.status} ${String(code)} is not among ${op.id}'s documented errors (${documented ? documented.join(', ') : 'no such status'})`,
        });
    }
    if (res.status === 200 && body && req.method === null) {
      const mode = this.resolver.mode(req);
      this.pools.learn(mode, routeKind(op, this.ops), body.data);
      const cursor = body.meta?.pagination?.nextCursor;
      if (typeof cursor === 'string') this.pools.addCursor(mode, op.path, cursor);
    }
    return { wire, answer: res.body, status: res.status, code: body?.error?.code ?? null, problems };
  }

  /** Lists every collection (twice, so nested ones find their parents' ids) so the first requests already know real ids. */
  private async warmUp(): Promise<number> {
    let sent = 0;
    for (let round = 0; round < 2; round++) {
      for (const [i, op] of this.ops.entries()) {
        if (op.method !== 'GET' || op.query.some((q) => q.required)) continue;
        for (const auth of ['test', 'live'] as const) {
          for (let pick = 0; pick < (op.pathParams.length ? 3 : 1); pick++) {
            const limit = op.query.some((q) => q.name === 'limit') ? [{ key: 'limit', value: 100 }] : [];
            const out = await this.execute({
              op: i,
              method: null,
              path: op.pathParams.map((p) => new PoolId(paramKind(op, p.name), pick, false)),
              query: limit,
              body: { kind: 'none' },
              contentType: 'default',
              auth,
              idempotencyKey: null,
              headers: [],
            });
            // Its own checks are the run's; the canary's are counted from the first request on.
            out.problems = out.problems.filter((p) => p.kind.startsWith('canary-'));
            if (out.problems.length) this.warmUpProblems.push({ out, op: op.id });
            sent++;
          }
        }
      }
    }
    return sent;
  }

  async run(): Promise<FuzzReport> {
    const { seed, log } = this.opts;
    await this.snapshots.init();
    await this.target.canary?.start();
    const warm = await this.warmUp();
    log(
      `fuzz: seed ${seed}; ${this.ops.length} operations from /openapi.json; warm-up ${warm} requests learnt ${this.pools.size()} ids; ${this.examples.length} edge cases first`,
    );
    if (this.target.canary) log(`fuzz: canary read every ${CANARY_EVERY} requests: ${this.target.canary.describe()}`);
    if (this.opts.path !== undefined) return this.replay(this.opts.path);

    const counts = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<ProblemKind, number>;
    const statuses: Record<number, number> = {};
    const perOp = new Map<string, Record<string, number>>();
    const firsts: Failure[] = [];
    const started = Date.now();
    let lastProgress = started;
    let n = 0;
    const note = (out: Outcome, op: string, run: number) => {
      for (const kind of new Set(out.problems.map((p) => p.kind))) {
        counts[kind]++;
        const p = out.problems.find((x) => x.kind === kind)!;
        if (!firsts.some((f) => f.kind === kind && f.op === op)) {
          firsts.push({ kind, op, run, detail: p.detail, request: describeRequest(out.wire) });
          log(`fuzz: ${kind} at run ${run} (${op}): ${p.detail}`);
        }
      }
    };
    // Run -1: not one of fast-check's, so not replayed.
    for (const { out, op } of this.warmUpProblems) note(out, op, -1);
    const property = fc.asyncProperty(this.arbitrary, async (req) => {
      const run = n++;
      const out = await this.execute(req);
      const op = this.ops[req.op]!.id;
      const status = out.status ?? 0;
      statuses[status] = (statuses[status] ?? 0) + 1;
      const row = perOp.get(op) ?? {};
      const label = out.code ? `${status} ${out.code}` : String(status);
      row[label] = (row[label] ?? 0) + 1;
      perOp.set(op, row);
      note(out, op, run);
      if (Date.now() - lastProgress >= 5_000) {
        lastProgress = Date.now();
        const secs = (lastProgress - started) / 1000;
        log(
          `fuzz: ${n} requests in ${secs.toFixed(0)} s (${(n / secs).toFixed(0)}/s), 200s ${statuses[200] ?? 0}; 5xx ${counts['5xx']}, non-envelope ${counts['non-envelope']}, writes on 4xx ${counts['write-on-4xx']}, no answer ${counts['no-answer']}, canary changed ${counts['canary-changed']}, canary leaks ${counts['canary-leak']}`,
        );
      }
      return true;
    });
    await fc.check(property, {
      seed,
      numRuns: this.opts.requests,
      examples: this.examples,
      plugins: [fc.interruptAfterTimeLimit(this.opts.seconds * 1000)],
    });
    // The canary after the last requests too.
    if (this.target.canary && this.last && this.sinceCanary.length > 0) {
      const { req, wire } = this.last;
      note(
        { wire, answer: null, status: null, code: null, problems: await this.checkCanary() },
        this.ops[req.op]!.id,
        n - 1,
      );
    }
    const seconds = (Date.now() - started) / 1000;

    // The first request of each kind of problem, then of each (problem, operation), replayed from the seed and shrunk.
    const byKind = KINDS.flatMap((k) => firsts.filter((f) => f.kind === k).slice(0, 1));
    const failures = [...byKind, ...firsts.filter((f) => !byKind.includes(f))].slice(0, MAX_FAILURES);
    // A canary's change is seen at its next read, up to CANARY_EVERY requests later: one run replayed shows nothing.
    for (const f of failures)
      if (f.kind !== 'canary-changed' && f.run >= 0) f.shrunk = await this.shrink(f.kind, String(f.run));
    const report: FuzzReport = { seed, requests: n, seconds, counts, statuses, failures };
    this.print(report, perOp);
    return report;
  }

  /** Replays run `path` of the seed and lets fast-check shrink it while the problem persists. */
  private async shrink(kind: ProblemKind, path: string): Promise<Failure['shrunk']> {
    let last: Outcome | null = null;
    const property = fc.asyncProperty(this.arbitrary, async (req) => {
      const out = await this.execute(req);
      if (!out.problems.some((p) => p.kind === kind)) return true;
      last = out;
      return false;
    });
    const details = await fc.check(property, {
      seed: this.opts.seed,
      path,
      numRuns: 1,
      examples: this.examples,
      plugins: [fc.interruptAfterTimeLimit(this.opts.shrinkSeconds * 1000)],
    });
    const found = last as Outcome | null;
    if (!details.failed || !found) return 'not reproduced';
    return {
      path: details.counterexamplePath ?? path,
      request: describeRequest(found.wire),
      detail: found.problems.find((p) => p.kind === kind)!.detail,
    };
  }

  private async replay(path: string): Promise<FuzzReport> {
    const counts = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<ProblemKind, number>;
    const failures: Failure[] = [];
    for (const kind of KINDS) {
      if (kind === 'canary-changed') continue;
      const shrunk = await this.shrink(kind, path);
      if (shrunk === 'not reproduced') continue;
      counts[kind]++;
      failures.push({ kind, op: '', run: Number(path.split(':')[0]), detail: shrunk!.detail, request: '', shrunk });
    }
    const report: FuzzReport = { seed: this.opts.seed, requests: 1, seconds: 0, counts, statuses: {}, failures };
    this.print(report, new Map());
    return report;
  }

  private print(r: FuzzReport, perOp: Map<string, Record<string, number>>): void {
    const { log } = this.opts;
    if (this.opts.perOperation && perOp.size) {
      log('fuzz: answers per operation');
      for (const op of this.ops) {
        const row = perOp.get(op.id);
        if (!row) continue;
        const total = Object.values(row).reduce((a, b) => a + b, 0);
        const parts = Object.entries(row)
          .sort((a, b) => b[1] - a[1])
          .map(([k, v]) => `${k} ×${v}`);
        log(`  ${op.id.padEnd(52)} ${String(total).padStart(5)}  ${parts.join(', ')}`);
      }
    }
    for (const f of r.failures) {
      const run = f.run < 0 ? 'the warm-up' : `run ${f.run}`;
      log(`\nFAIL ${f.kind} on ${f.op || 'the replayed run'} (${run} of seed ${r.seed}): ${f.detail}`);
      if (f.request) log(`  the request${f.kind === 'canary-changed' ? ' before the read' : ''}:\n${f.request}`);
      if (f.shrunk === 'not reproduced')
        log(
          '  (not reproduced on replay: it depended on the data at the time; the request above is the one that failed)',
        );
      else if (f.shrunk) {
        log(`  minimal counterexample (path ${f.shrunk.path}): ${f.shrunk.detail}\n${f.shrunk.request}`);
        log(`  replay: FUZZ_SEED=${r.seed} FUZZ_PATH=${f.shrunk.path} npm run fuzz`);
      }
    }
    const histogram = Object.entries(r.statuses)
      .map(([s, c]) => `${s === '0' ? 'none' : s} ×${c}`)
      .join(', ');
    log(
      `\nfuzz totals: requests ${r.requests}, seed ${r.seed}, ${r.seconds.toFixed(0)} s; 5xx ${r.counts['5xx']}, non-envelope ${r.counts['non-envelope']}, ` +
        `writes on 4xx ${r.counts['write-on-4xx']}, no answer ${r.counts['no-answer']}, undocumented ${r.counts.undocumented}, ` +
        `canary changed ${r.counts['canary-changed']}, canary leaks ${r.counts['canary-leak']}\nfuzz statuses: ${histogram}`,
    );
  }
}
