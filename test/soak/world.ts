// The system under test as the soak test sees it: one server process reached over a real socket,
// the companies of each run and of the whole process, and the one check every answer gets: no id
// of another company in it (docs/api.md, Ids: another company's records are "not found").
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export type Mode = 'live' | 'test';

/** One company the soak drives: its id, mode, zone and API key. */
export interface Co {
  /** How the commands and reports name it: L0, L1, T0, T1 in a run; canary-live, canary-test. */
  label: string;
  id: string;
  mode: Mode;
  zone: string;
  key: string;
}

/** An answer as the client saw it, with the real time around the request (domain time, live). */
export interface Answer {
  status: number;
  body: any;
  text: string;
  /** Date.now() just before the request was sent and just after its answer was read. */
  t0: number;
  t1: number;
}

/** An id that names no record of anyone: random, never made by the server (src/ids.ts). */
export const unknownId = () => randomBytes(12).toString('hex');
/** A page cursor as the API writes them (opaque to clients; the soak needs foreign ones). */
export const cursorOf = (id: string) => Buffer.from(`c1.${id}`).toString('base64url');

export class LeakError extends Error {}

/**
 * Which company every id the soak has seen belongs to (from the database's company_id columns and
 * from the answers that created them), and the scan of every answer against it.
 */
export class Registry {
  private owner = new Map<string, string>();
  private labels = new Map<string, string>();

  company(co: Co) {
    this.owner.set(co.id, co.id);
    this.labels.set(co.id, co.label);
  }

  own(companyId: string, id: string | null | undefined) {
    if (typeof id === 'string' && /^[0-9a-f]{24}$/.test(id) && !this.owner.has(id)) this.owner.set(id, companyId);
  }

  label(companyId: string) {
    return this.labels.get(companyId) ?? companyId;
  }

  /** Every 24-hex id (also inside cursors) of `text` that belongs to a company other than `co`. */
  foreign(co: Co, text: string): Array<{ id: string; owner: string }> {
    const out: Array<{ id: string; owner: string }> = [];
    const ids = [...text.matchAll(/[0-9a-f]{24}/g)].map((m) => m[0]);
    // Cursors are base64url of "c1.<id>": the ids inside them count too.
    for (const m of text.matchAll(/"(?:cursor|endCursor|startCursor|nextCursor)":"([A-Za-z0-9_-]+)"/g)) {
      const decoded = Buffer.from(m[1]!, 'base64url').toString();
      if (decoded.startsWith('c1.')) ids.push(decoded.slice(3));
    }
    for (const id of ids) {
      const owner = this.owner.get(id);
      if (owner !== undefined && owner !== co.id) out.push({ id, owner });
    }
    return out;
  }
}

/** The API over the socket: every answer is scanned for other companies' ids before it is used. */
export class Api {
  /** Requests sent (for the progress lines). */
  requests = 0;

  constructor(
    readonly origin: string,
    readonly registry: Registry,
  ) {}

  async call(co: Co, method: string, path: string, body?: unknown): Promise<Answer> {
    const t0 = Date.now();
    const res = await fetch(`${this.origin}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${co.key}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    const t1 = Date.now();
    this.requests++;
    const leaked = this.registry.foreign(co, text);
    if (leaked.length > 0)
      throw new LeakError(
        `${method} ${path} of ${co.label} answered ids of other companies: ${leaked
          .map((l) => `${l.id} (${this.registry.label(l.owner)})`)
          .join(', ')}\n${text.slice(0, 2000)}`,
      );
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`${method} ${path} of ${co.label}: ${res.status}, not JSON: ${text.slice(0, 500)}`);
    }
    return { status: res.status, body: parsed, text, t0, t1 };
  }

  gql(co: Co, query: string, variables: Record<string, unknown> = {}) {
    return this.call(co, 'POST', '/graphql', { query, variables });
  }
}

/** A short description of an answer for failure messages. */
export const brief = (a: Answer) =>
  `${a.status} ${a.body?.error ? `${a.body.error.code} ${JSON.stringify(a.body.error.details ?? null)}` : a.text.slice(0, 300)}`;

/** Fails unless the answer is a 200 in the envelope; answers its data. */
export function okData(a: Answer, what: string): any {
  if (a.status !== 200 || a.body?.status !== true) throw new Error(`${what}: expected 200, got ${brief(a)}`);
  return a.body.data;
}

/** Fails unless the answer is the error `code` with HTTP `status`. */
export function expectError(a: Answer, status: number, code: string, what: string) {
  if (a.status !== status || a.body?.status !== false || a.body?.error?.code !== code)
    throw new Error(`${what}: expected ${status} ${code}, got ${brief(a)}`);
  return a.body.error;
}

/** Plain pg pools on the test file's database, one per mode (the reference reads rows with them). */
export function openPools(url: string, sandboxSchema: string): Record<Mode, pg.Pool> {
  return {
    live: new pg.Pool({ connectionString: url, max: 3 }),
    test: new pg.Pool({ connectionString: url, max: 3, options: `-c search_path=${sandboxSchema},public` }),
  };
}
