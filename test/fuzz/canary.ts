// The canary: companies the fuzzer never sends a request as, one in each mode, of the same
// account as the fuzzer's own (so a path that answered by account instead of company would show
// too). Their answers must not move while the fuzzer runs, and their ids must never appear in
// an answer the fuzzer gets: one request changing or revealing another company's answers is
// the class of defect that a per-file process and database never shows (a shared array that a
// refused request wrote into emptied every company's availability until a restart).
//
// Each canary company's availability for a fixed free window, its explain answer for a fixed
// free start and its booking list are read over the same socket path as the fuzzer's requests
// (test/fuzz/wire.ts) before the run and then every CANARY_EVERY requests (test/fuzz/fuzzer.ts);
// an answer that differs from the last one read is a failure naming the request before it.
import { excerpt } from './judge.js';
import { NoAnswer, send } from './wire.js';

export interface CanaryCompany {
  mode: 'live' | 'test';
  /** Its API key: never given to the fuzzer. */
  key: string;
  /** Its records' ids, each with what it is ("test employee"), for the failure's words. */
  ids: Record<string, string>;
  /** The answers compared, by name: request targets under /api/v1. */
  reads: Record<string, string>;
}

/** How many of the fuzzer's requests go between two reads of the canary. */
export const CANARY_EVERY = 100;

/** A change of one of the canary's answers. */
export interface CanaryChange {
  read: string;
  before: string;
  after: string;
}

export class Canary {
  /** The last answer read, by `mode name`, in the form compared. */
  private readonly last = new Map<string, string>();
  private readonly ids: Array<[id: string, what: string]>;

  constructor(
    private readonly port: number,
    readonly companies: CanaryCompany[],
  ) {
    this.ids = companies.flatMap((c) => Object.entries(c.ids));
  }

  /** Reads every answer once (before the run); each must be a 200. */
  async start(): Promise<void> {
    for (const [read, answer] of await this.readAll()) {
      if (!answer.startsWith('200 ')) throw new Error(`the canary's ${read} is not readable: ${excerpt(answer)}`);
      this.last.set(read, answer);
    }
  }

  /**
   * Reads every answer again: the ones that differ from the last read. A changed answer becomes
   * the one compared next, so one change is reported once.
   */
  async check(): Promise<CanaryChange[]> {
    const changes: CanaryChange[] = [];
    for (const [read, after] of await this.readAll()) {
      const before = this.last.get(read)!;
      if (after === before) continue;
      changes.push({ read, before, after });
      this.last.set(read, after);
    }
    return changes;
  }

  /** The canary's ids an answer of the fuzzer carries, with what each is. */
  leaksIn(body: Buffer): string[] {
    const found: string[] = [];
    for (const [id, what] of this.ids) if (body.includes(id)) found.push(`${what} ${id}`);
    return found;
  }

  /** The ids watched, and the reads compared, in words (the run's first line). */
  describe(): string {
    return this.companies
      .map((c) => `${c.mode} company ${Object.keys(c.ids)[0]} (${Object.keys(c.reads).join(', ')})`)
      .join('; ');
  }

  /**
   * Every read as compared: the status and the body without what differs on every answer (the
   * request id and the time of the answer).
   */
  private async readAll(): Promise<Array<[string, string]>> {
    const out: Array<[string, string]> = [];
    for (const c of this.companies) {
      for (const [name, target] of Object.entries(c.reads)) {
        const read = `${c.mode} ${name}`;
        try {
          const res = await send(this.port, {
            method: 'GET',
            target,
            headers: [['Authorization', `Bearer ${c.key}`]],
            body: null,
          });
          const body = JSON.parse(res.body.toString('utf8')) as { meta?: Record<string, unknown> };
          const { requestId: _id, timestamp: _at, ...meta } = body.meta ?? {};
          out.push([read, `${res.status} ${JSON.stringify({ ...body, meta })}`]);
        } catch (err) {
          if (!(err instanceof NoAnswer) && !(err instanceof SyntaxError)) throw err;
          out.push([read, `no answer: ${err.message}`]);
        }
      }
    }
    return out;
  }
}

/** Where two answers first differ, with a little of each around it. */
export function describeChange(c: CanaryChange): string {
  let at = 0;
  while (at < c.before.length && c.before[at] === c.after[at]) at++;
  const around = (s: string) => `${at > 80 ? '…' : ''}${excerpt(s.slice(Math.max(0, at - 80)), 400)}`;
  return `the canary's ${c.read} changed: before ${around(c.before)}; after ${around(c.after)}`;
}
