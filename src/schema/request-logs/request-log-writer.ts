// Writes request logs in batches off the request path (docs/api.md, Request logs): a request
// only appends its row to an in-process buffer (a line of PostgreSQL's COPY text format, written
// into a chunk of memory outside the JavaScript heap); every `flushMs`, or as soon as
// `batchRows` rows wait, each chunk is written with one COPY on its mode's database (live,
// sandbox), on a pooled connection past Prisma (Database.copyFrom).
// The buffer is bounded: when `maxBuffered` rows wait (the database is slow or down), further
// rows are dropped and counted, never queued without limit. A failed write is logged and its
// rows counted as lost: logging never fails or slows a request. close() writes what is left.
// Every value is escaped for COPY, so a row is always one line of the right columns; a row
// PostgreSQL still refuses (a value its column cannot hold) fails the whole COPY, so the chunk
// is written again in halves until only the refused rows are left out: one company's row never
// costs another company's (copyRows).
import type { Database } from '../../db/databases.js';
import type { Mode } from '../../generated/prisma/enums.js';

export interface RequestLogEntry {
  id: string;
  mode: Mode;
  companyId: string;
  createdAt: Date;
  method: string;
  route: string | null;
  path: string;
  operationName: string | null;
  status: number;
  durationMs: number;
  requestId: string;
  credentialId: string;
  credentialName: string;
  credentialPrefix: string;
  ip: string;
  idempotencyKey: string | null;
  requestBody: string | null;
  responseBody: string | null;
}

export interface RequestLogWriterOptions {
  flushMs: number;
  batchRows: number;
  maxBuffered: number;
  logger?: { warn(obj: object, msg: string): void };
}

/** What one flush did: rows written (per COPY statement) and rows lost to a failed write. */
export interface FlushResult {
  statements: number;
  written: number;
  failed: number;
}

/**
 * What a request's row needs besides its credential's columns (credentialColumns), as the
 * request hooks gather it: primitives only, the time as epoch milliseconds.
 */
export interface RequestLogRow {
  id: string;
  createdAtMs: number;
  method: string;
  route: string | null;
  path: string;
  operationName: string | null;
  status: number;
  durationMs: number;
  requestId: string;
  ip: string;
  idempotencyKey: string | null;
  requestBody: string | null;
  responseBody: string | null;
}

/**
 * The columns every request of one credential shares, serialized once: the end of each of its
 * rows' lines. Callers keep it with the credential (src/http/request-logs.ts).
 */
export interface CredentialColumns {
  mode: Mode;
  companyId: string;
  /**
   * `\tcompany\tcredential id\tname\tprefix\n` as UTF-8: the end of each of the credential's
   * lines, copied into the chunk as bytes. The prefix's `…` is not Latin-1, so as part of the
   * row's string it made every row a two-byte string, encoded to UTF-8 on the slow path.
   */
  tail: Buffer;
}

export function credentialColumns(c: {
  mode: Mode;
  companyId: string;
  credentialId: string;
  credentialName: string;
  credentialPrefix: string;
}): CredentialColumns {
  const tail = Buffer.from(
    `\t${copyText(c.companyId)}\t${copyText(c.credentialId)}\t${copyText(c.credentialName)}\t${copyText(c.credentialPrefix)}\n`,
    'utf8',
  );
  return { mode: c.mode, companyId: c.companyId, tail };
}

// A row is one line of COPY's text format: its columns in this order, separated by tabs, the
// request's own columns first and its credential's last (credentialColumns' tail, made once per
// credential). Every text column is escaped (copyText), those we believe we make ourselves too:
// the IP is the client's own X-Forwarded-For entry behind a proxy (TRUST_PROXY), where a tab or
// a backslash is allowed, and one unescaped character shifts the line's columns and fails the
// batch it is in.
const COLUMNS = [
  'id',
  'created_at',
  'method',
  'status',
  'duration_ms',
  'request_id',
  'ip',
  'route',
  'path',
  'idempotency_key',
  'operation_name',
  'request_body',
  'response_body',
  'company_id',
  'credential_id',
  'credential_name',
  'credential_prefix',
] as const;
const COMPANY_ID = COLUMNS.indexOf('company_id');

// COPY rather than INSERT … SELECT over a JSON batch: PostgreSQL parsed the batch as jsonb and
// took 17 columns out of each element again, more of its CPU a row than COPY's text
// (see docs/performance.md, "Request log rows"), on the same cores as the API.
const COPY = `COPY request_logs (${COLUMNS.join(', ')}) FROM STDIN`;
// A row of a company deleted since (a sandbox wipe) is left out: the table has no foreign key
// to do it (a lookup and a lock on the company row for every row cost more than the row).
const LIVE_COMPANIES = `SELECT id FROM companies WHERE id = ANY(string_to_array($1, ','))`;

const COPY_SPECIAL = /[\\\t\n\r\0]/;
const COPY_SPECIALS = /[\\\t\n\r\0]/g;
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\0': '\uFFFD' };
/**
 * A text value as COPY's text format reads it: backslash, tab and line breaks escaped. A NUL,
 * which no PostgreSQL text can hold, becomes U+FFFD (it would fail the whole batch). The test
 * alone is what most values cost (it runs for each column of each request).
 */
function copyText(s: string): string {
  return COPY_SPECIAL.test(s) ? s.replace(COPY_SPECIALS, (c) => COPY_ESCAPES[c]!) : s;
}
const nullable = (s: string | null) => (s === null ? '\\N' : copyText(s));

/**
 * Routes are few: each one's text is made once. Keyed by the route's pattern as declared
 * (`/api/v1/bookings/:id`, never a request's path: a path no route serves has none), so it holds
 * no company's data, and is bounded anyway.
 */
// eslint-disable-next-line no-restricted-syntax -- process state: request-log writer
const routeCopy = new Map<string, string>();
function routeText(route: string | null): string {
  if (route === null) return '\\N';
  let text = routeCopy.get(route);
  if (text === undefined) {
    text = copyText(route);
    if (routeCopy.size < 10_000) routeCopy.set(route, text);
  }
  return text;
}

/**
 * `YYYY-MM-DD HH:MM:SS` of the last second asked (rows come in time order, seconds apart): a
 * memo of the clock's text, the same for every company.
 */
// eslint-disable-next-line no-restricted-syntax -- process state: request-log writer
let second = -1;
// eslint-disable-next-line no-restricted-syntax -- process state: request-log writer
let secondText = '';
/** A timestamptz as COPY reads it, to the millisecond, in UTC. */
function timestampText(ms: number): string {
  const whole = Math.round(ms);
  const s = Math.floor(whole / 1000);
  if (s !== second) {
    second = s;
    secondText = new Date(s * 1000).toISOString().slice(0, 19).replace('T', ' ');
  }
  const milli = whole - s * 1000;
  return `${secondText}.${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}+00`;
}

/**
 * A row's line without its credential's tail: its columns in COLUMNS' order up to the
 * credential's. Written out by hand: it runs once a request.
 */
function rowHead(r: RequestLogRow): string {
  const route = routeText(r.route);
  // A path that is its route (no parameters) is the route's text, already made.
  const path = r.path === r.route ? route : copyText(r.path);
  return (
    `${copyText(r.id)}\t${timestampText(r.createdAtMs)}\t${copyText(r.method)}\t${r.status}\t${r.durationMs}\t` +
    `${copyText(r.requestId)}\t${copyText(r.ip)}\t${route}\t${path}\t` +
    `${nullable(r.idempotencyKey)}\t${nullable(r.operationName)}\t${nullable(r.requestBody)}\t${nullable(r.responseBody)}`
  );
}

/** A chunk's first size in bytes; it doubles as needed and is reused after its write. */
const CHUNK_BYTES = 64 * 1024;
/** Chunk memory kept for reuse, at most: 4 chunks of up to 1 MiB (batches of large bodies are let go). */
const SPARE_CHUNKS = 4;
const SPARE_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;
const TAB = 0x09;

/**
 * Rows of one mode for one COPY: their lines as UTF-8 in a Buffer (memory outside the
 * JavaScript heap). A row waits up to flushMs; kept as a string on the heap it outlived a
 * young-generation collection or two and was copied by each, then promoted and marked again;
 * written here, its string is garbage as soon as it is made.
 */
interface Chunk {
  mode: Mode;
  bytes: Buffer;
  /** Bytes used. */
  length: number;
  rows: number;
  /** The companies whose rows it holds (most chunks: one or a few). */
  companies: Set<string>;
  lastCompany: string;
}

/** An entry as the hooks would have gathered it (tests and tools write entries). */
function rowOf(e: RequestLogEntry): RequestLogRow {
  return { ...e, createdAtMs: e.createdAt.getTime() };
}

/**
 * Whether PostgreSQL refused a COPY for what its rows hold: a data exception (SQLSTATE class
 * 22: a value its column cannot take, a malformed line) or an integrity constraint's violation
 * (class 23). Only then may the same rows, split, be written after all. Anything else (the
 * database down or timing out, a missing table or column) would refuse any rows: they are lost,
 * as they were, and not retried.
 */
function refusedForItsRows(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('23'));
}

/** The byte offset just after the first `rows` lines of data. */
function afterLines(data: Buffer, rows: number): number {
  let at = 0;
  for (let i = 0; i < rows; i++) at = data.indexOf(NEWLINE, at) + 1;
  return at;
}

/** What one chunk's write has done so far: kept when a later statement of it fails. */
interface ChunkProgress {
  /** Rows to write: the chunk's, less those of companies deleted since. */
  rows: number;
  written: number;
  statements: number;
  /** Rows PostgreSQL refused on their own, and what it said of the first. */
  refused: number;
  refusal: string | undefined;
}

/** The chunk's lines without those of the given companies (read only when one was deleted). */
function withoutCompanies(chunk: Chunk, gone: Set<string>): { data: Buffer; rows: number } {
  const kept: Buffer[] = [];
  let rows = 0;
  let start = 0;
  while (start < chunk.length) {
    const end = chunk.bytes.indexOf(NEWLINE, start) + 1;
    const line = chunk.bytes.subarray(start, end);
    // Escaped text holds no raw tab: the company is the text after the COMPANY_ID-th tab.
    let at = 0;
    for (let i = 0; i < COMPANY_ID; i++) at = line.indexOf(TAB, at) + 1;
    const company = line.toString('utf8', at, line.indexOf(TAB, at));
    if (!gone.has(company)) {
      kept.push(line);
      rows++;
    }
    start = end;
  }
  return { data: Buffer.concat(kept), rows };
}

export class RequestLogWriter {
  /** The chunk each mode is filling. */
  private readonly filling: Record<Mode, Chunk | null> = { live: null, test: null };
  /** Chunks that reached batchRows, oldest first. */
  private full: Chunk[] = [];
  private spare: Buffer[] = [];
  private buffered = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<FlushResult> | null = null;
  private waiters: Array<(r: FlushResult) => void> = [];
  private closed = false;
  /** Rows dropped because the buffer was full, since the start. */
  dropped = 0;
  /** Rows lost to failed writes, since the start. */
  failed = 0;
  /** Rows written, since the start. */
  written = 0;

  constructor(
    private readonly dbs: Record<Mode, Database>,
    private readonly opts: RequestLogWriterOptions,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(), this.opts.flushMs);
    this.timer.unref();
  }

  /** How many rows wait for the next flush. */
  get pending(): number {
    return this.buffered;
  }

  /** Appends an entry; never throws, never waits. */
  record(entry: RequestLogEntry): void {
    this.recordRow(rowOf(entry), credentialColumns(entry));
  }

  /** Appends a request's row (the request hooks); never throws, never waits. */
  recordRow(row: RequestLogRow, credential: CredentialColumns): void {
    if (this.closed || this.buffered >= this.opts.maxBuffered) {
      this.dropped++;
      return;
    }
    const head = rowHead(row);
    const tail = credential.tail;
    const mode = credential.mode;
    const chunk = (this.filling[mode] ??= this.chunk(mode));
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    const need = chunk.length + head.length * 3 + tail.length;
    if (need > chunk.bytes.length) {
      const bigger = Buffer.allocUnsafeSlow(Math.max(need, chunk.bytes.length * 2));
      chunk.bytes.copy(bigger, 0, 0, chunk.length);
      chunk.bytes = bigger;
    }
    chunk.length += chunk.bytes.write(head, chunk.length);
    chunk.length += tail.copy(chunk.bytes, chunk.length);
    chunk.rows++;
    if (credential.companyId !== chunk.lastCompany) {
      chunk.companies.add(credential.companyId);
      chunk.lastCompany = credential.companyId;
    }
    this.buffered++;
    if (chunk.rows >= this.opts.batchRows) {
      this.full.push(chunk);
      this.filling[mode] = null;
    }
    if (this.buffered >= this.opts.batchRows && !this.running) void this.flush();
  }

  private chunk(mode: Mode): Chunk {
    return {
      mode,
      bytes: this.spare.pop() ?? Buffer.allocUnsafeSlow(CHUNK_BYTES),
      length: 0,
      rows: 0,
      companies: new Set(),
      lastCompany: '',
    };
  }

  /** Resolves when the next flush that writes something has finished (for tests and shutdown). */
  nextFlush(): Promise<FlushResult> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Writes everything buffered now; flushes never overlap (a second call waits for the first). */
  async flush(): Promise<FlushResult> {
    while (this.running) await this.running;
    if (this.buffered === 0) return { statements: 0, written: 0, failed: 0 };
    const chunks = this.full;
    this.full = [];
    for (const mode of ['live', 'test'] as const) {
      const chunk = this.filling[mode];
      if (chunk) chunks.push(chunk);
      this.filling[mode] = null;
    }
    this.buffered = 0;
    this.running = this.write(chunks);
    try {
      return await this.running;
    } finally {
      this.running = null;
    }
  }

  private async write(chunks: Chunk[]): Promise<FlushResult> {
    const result: FlushResult = { statements: 0, written: 0, failed: 0 };
    for (const chunk of chunks) {
      const done: ChunkProgress = { rows: chunk.rows, written: 0, statements: 0, refused: 0, refusal: undefined };
      try {
        await this.copy(chunk, done);
      } catch (err) {
        const lost = done.rows - done.written - done.refused;
        result.failed += lost;
        this.opts.logger?.warn(
          { err: { message: (err as Error).message }, rows: lost, mode: chunk.mode },
          'could not write request logs; these rows are lost',
        );
      }
      result.written += done.written;
      result.statements += done.statements;
      if (done.refused > 0) {
        result.failed += done.refused;
        this.opts.logger?.warn(
          { err: { message: done.refusal }, rows: done.refused, mode: chunk.mode },
          'PostgreSQL refused these request logs; they are lost, and only they',
        );
      }
      if (this.spare.length < SPARE_CHUNKS && chunk.bytes.length <= SPARE_BYTES) this.spare.push(chunk.bytes);
    }
    this.written += result.written;
    this.failed += result.failed;
    const waiters = this.waiters.splice(0);
    for (const w of waiters) w(result);
    return result;
  }

  /** One chunk's COPY, less the rows of companies deleted since they were recorded. */
  private async copy(chunk: Chunk, done: ChunkProgress): Promise<void> {
    const db = this.dbs[chunk.mode];
    let data = chunk.bytes.subarray(0, chunk.length);
    const live = await db.queryRows<{ id: string }>(LIVE_COMPANIES, [[...chunk.companies].join(',')]);
    if (live.length < chunk.companies.size) {
      const gone = new Set(chunk.companies);
      for (const { id } of live) gone.delete(id);
      const kept = withoutCompanies(chunk, gone);
      done.rows = kept.rows;
      if (kept.rows === 0) return;
      data = kept.data;
    }
    // The driver copies the bytes into its messages; the chunk is reused once it is done.
    await this.copyRows(db, data, done.rows, done);
  }

  /**
   * Writes `rows` whole lines with one COPY. A COPY is all or nothing, so when PostgreSQL refuses
   * it for what a row holds, each half is written on its own, and so on down to the refused rows,
   * which are left out and counted: a refused row among n costs about 2·log2(n) statements, and
   * a chunk never more than 2n − 1. Any other failure ends the chunk's write (it is thrown, and
   * its rows not yet written are lost): a database that is down is not asked again for it.
   */
  private async copyRows(db: Database, data: Buffer, rows: number, done: ChunkProgress): Promise<void> {
    try {
      const written = await db.copyFrom(COPY, data);
      done.written += written;
      if (written > 0) done.statements++;
    } catch (err) {
      if (!refusedForItsRows(err)) throw err;
      if (rows === 1) {
        done.refused++;
        done.refusal ??= (err as Error).message;
        return;
      }
      const half = rows >> 1;
      const at = afterLines(data, half);
      await this.copyRows(db, data.subarray(0, at), half, done);
      await this.copyRows(db, data.subarray(at), rows - half, done);
    }
  }

  /** Stops the timer and writes what is buffered (shutdown); later rows are dropped. */
  async close(): Promise<FlushResult> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    const result = await this.flush();
    this.closed = true;
    return result;
  }
}
