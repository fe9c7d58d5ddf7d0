// Writes request logs in batches off the request path (docs/api.md, Request logs): a request
// only appends its row to an in-process buffer (the JSON of its columns, written into a chunk
// of memory outside the JavaScript heap); every `flushMs`, or as soon as `batchRows` rows wait,
// each chunk is written with one multi-row INSERT on its mode's database (live, sandbox), on a
// pooled connection past Prisma (Database.execute).
// The buffer is bounded: when `maxBuffered` rows wait (the database is slow or down), further
// rows are dropped and counted, never queued without limit. A failed write is logged and its
// rows counted as lost: logging never fails or slows a request. close() writes what is left.
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

/** What one flush did: rows written (per INSERT statement) and rows lost to a failed write. */
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
 * rows' JSON. Callers keep it with the credential (src/http/request-logs.ts).
 */
export interface CredentialColumns {
  mode: Mode;
  companyId: string;
  /**
   * `,"company","credential id","name","prefix"]` as UTF-8: copied into the chunk as bytes. The
   * prefix's `…` is not Latin-1, so as part of the row's string it made every row a two-byte
   * string, encoded to UTF-8 on the slow path (most of the row's cost, --cpu-prof).
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
    `,${JSON.stringify([c.companyId, c.credentialId, c.credentialName, c.credentialPrefix]).slice(1)}`,
    'utf8',
  );
  return { mode: c.mode, companyId: c.companyId, tail };
}

// A row's JSON array, in this order: the request's own columns first, its credential's last
// (credentialColumns' tail, serialized once per credential). `quoted` columns are written as
// they are between quotes: record ids and request ids (hex, or [A-Za-z0-9._:-], src/rest/request-id.ts),
// the method (an HTTP token) and the IP hold no character JSON escapes.
const COLUMNS: Array<[column: string, type: string]> = [
  ['id', 'text'],
  ['created_at', 'timestamptz'],
  ['method', 'text'],
  ['status', 'int'],
  ['duration_ms', 'float8'],
  ['request_id', 'text'],
  ['ip', 'text'],
  ['route', 'text'],
  ['path', 'text'],
  ['idempotency_key', 'text'],
  ['operation_name', 'text'],
  ['request_body', 'text'],
  ['response_body', 'text'],
  ['company_id', 'text'],
  ['credential_id', 'text'],
  ['credential_name', 'text'],
  ['credential_prefix', 'text'],
];
const COMPANY_ID = COLUMNS.findIndex(([c]) => c === 'company_id');

// One statement and one parameter for any number of rows: the batch travels as one JSON array
// of arrays (without the keys a batch is half the size; binding thousands of array elements one
// by one cost the API process more CPU than the requests themselves, bench/ "me-logs-on"),
// taken apart again by jsonb_array_elements (jsonb: the batch is parsed once; with json each
// `->>` parsed its element again, 17 times a row). It is sent as the UTF-8 bytes it was written
// in (bytea, as it is): as a string it was decoded from the chunk, as UTF-16 since every row has
// a `…`, and encoded again by the driver, a microsecond a row. A row of a company deleted since
// (a sandbox wipe) is left out: the table has no foreign key to do it.
const INSERT =
  `INSERT INTO request_logs (${COLUMNS.map(([c]) => c).join(', ')}) ` +
  `SELECT ${COLUMNS.map(([, t], i) => (t === 'text' ? `e->>${i}` : t === 'timestamptz' ? `to_timestamp((e->>${i})::float8 / 1000)` : `(e->>${i})::${t}`)).join(', ')} ` +
  `FROM jsonb_array_elements(convert_from($1::bytea, 'UTF8')::jsonb) AS e ` +
  `WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = e->>${COMPANY_ID})`;

const text = (s: string | null) => (s === null ? 'null' : JSON.stringify(s));
/** Routes are few: each one's JSON is made once. */
const routeJson = new Map<string, string>();
function routeText(route: string | null): string {
  if (route === null) return 'null';
  let json = routeJson.get(route);
  if (json === undefined) {
    json = JSON.stringify(route);
    if (routeJson.size < 10_000) routeJson.set(route, json);
  }
  return json;
}

/**
 * A row as the INSERT reads it, without its credential's tail: the JSON array of its columns
 * in COLUMNS' order up to the credential's. Written out by hand: it runs once a request, and
 * JSON.stringify of a 17-element array was its largest cost (--cpu-prof of
 * bench/request-logs-micro.ts).
 */
function rowHead(r: RequestLogRow): string {
  const route = routeText(r.route);
  // A path that is its route (no parameters) is written as the route's JSON, already made.
  const path = r.path === r.route ? route : JSON.stringify(r.path);
  return (
    `["${r.id}",${r.createdAtMs},"${r.method}",${r.status},${r.durationMs},"${r.requestId}","${r.ip}",${route},${path},` +
    `${text(r.idempotencyKey)},${text(r.operationName)},${text(r.requestBody)},${text(r.responseBody)}`
  );
}

const OPEN_BRACKET = 0x5b;
const COMMA = 0x2c;
const CLOSE_BRACKET = 0x5d;
/** A chunk's first size in bytes; it doubles as needed and is reused after its write. */
const CHUNK_BYTES = 64 * 1024;
/** Chunk memory kept for reuse, at most: 4 chunks of up to 1 MiB (batches of large bodies are let go). */
const SPARE_CHUNKS = 4;
const SPARE_BYTES = 1024 * 1024;

/**
 * Rows of one mode for one INSERT: the JSON array of their rows, `[row,row,…`, as
 * UTF-8 in a Buffer (memory outside the JavaScript heap). A row waits up to flushMs; kept as a
 * string on the heap it outlived a young-generation collection or two and was copied by each,
 * then promoted and marked again; written here, its string is garbage as soon as it is made.
 */
interface Chunk {
  mode: Mode;
  bytes: Buffer;
  /** Bytes used. */
  length: number;
  rows: number;
}

/** An entry as the hooks would have gathered it (tests and tools write entries). */
function rowOf(e: RequestLogEntry): RequestLogRow {
  return {
    ...e,
    createdAtMs: e.createdAt.getTime(),
    // Not from a request: escaped like any text, so the row stays valid JSON.
    id: JSON.stringify(e.id).slice(1, -1),
    method: JSON.stringify(e.method).slice(1, -1),
    requestId: JSON.stringify(e.requestId).slice(1, -1),
    ip: JSON.stringify(e.ip).slice(1, -1),
  };
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
    // UTF-8 takes at most 3 bytes per UTF-16 unit; one more for the separator, one for the `]`.
    const need = chunk.length + head.length * 3 + tail.length + 2;
    if (need > chunk.bytes.length) {
      const bigger = Buffer.allocUnsafeSlow(Math.max(need, chunk.bytes.length * 2));
      chunk.bytes.copy(bigger, 0, 0, chunk.length);
      chunk.bytes = bigger;
    }
    chunk.bytes[chunk.length++] = chunk.rows === 0 ? OPEN_BRACKET : COMMA;
    chunk.length += chunk.bytes.write(head, chunk.length);
    chunk.length += tail.copy(chunk.bytes, chunk.length);
    chunk.rows++;
    this.buffered++;
    if (chunk.rows >= this.opts.batchRows) {
      this.full.push(chunk);
      this.filling[mode] = null;
    }
    if (this.buffered >= this.opts.batchRows && !this.running) void this.flush();
  }

  private chunk(mode: Mode): Chunk {
    return { mode, bytes: this.spare.pop() ?? Buffer.allocUnsafeSlow(CHUNK_BYTES), length: 0, rows: 0 };
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
      chunk.bytes[chunk.length++] = CLOSE_BRACKET;
      try {
        // The driver copies the bytes into its message; the chunk is reused once it is done.
        result.written += await this.dbs[chunk.mode].execute(INSERT, [chunk.bytes.subarray(0, chunk.length)]);
        result.statements++;
      } catch (err) {
        result.failed += chunk.rows;
        this.opts.logger?.warn(
          { err: { message: (err as Error).message }, rows: chunk.rows, mode: chunk.mode },
          'could not write request logs; these rows are lost',
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

  /** Stops the timer and writes what is buffered (shutdown); later rows are dropped. */
  async close(): Promise<FlushResult> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    const result = await this.flush();
    this.closed = true;
    return result;
  }
}
