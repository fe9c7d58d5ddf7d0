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

const COLUMNS: Array<[column: string, field: keyof RequestLogEntry, type: string]> = [
  ['id', 'id', 'text'],
  ['company_id', 'companyId', 'text'],
  ['created_at', 'createdAt', 'timestamptz'],
  ['method', 'method', 'text'],
  ['route', 'route', 'text'],
  ['path', 'path', 'text'],
  ['operation_name', 'operationName', 'text'],
  ['status', 'status', 'int'],
  ['duration_ms', 'durationMs', 'float8'],
  ['request_id', 'requestId', 'text'],
  ['credential_id', 'credentialId', 'text'],
  ['credential_name', 'credentialName', 'text'],
  ['credential_prefix', 'credentialPrefix', 'text'],
  ['ip', 'ip', 'text'],
  ['idempotency_key', 'idempotencyKey', 'text'],
  ['request_body', 'requestBody', 'text'],
  ['response_body', 'responseBody', 'text'],
];

// One statement and one parameter for any number of rows: the batch travels as one JSON array
// of arrays (JSON.stringify is native and cheap, and without the keys a batch is half the size;
// binding thousands of array elements one by one cost the API process more CPU than the
// requests themselves, bench/ "me-logs-on"), taken apart again by jsonb_array_elements (jsonb: the
// batch is parsed once; with json each `->>` parsed its element again, 17 times a row). A row of
// a company deleted since (a sandbox wipe) is left out: the table has no foreign key to do it.
const INSERT =
  `INSERT INTO request_logs (${COLUMNS.map(([c]) => c).join(', ')}) ` +
  `SELECT ${COLUMNS.map(([, , t], i) => (t === 'text' ? `e->>${i}` : t === 'timestamptz' ? `to_timestamp((e->>${i})::float8 / 1000)` : `(e->>${i})::${t}`)).join(', ')} ` +
  `FROM jsonb_array_elements($1::jsonb) AS e ` +
  `WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = e->>1)`;

/**
 * A row as the INSERT reads it: the JSON array of its columns, in COLUMNS' order, the time as
 * epoch milliseconds. Written out rather than mapped over COLUMNS: it runs once a request.
 */
function rowJson(r: RequestLogEntry): string {
  return JSON.stringify([
    r.id,
    r.companyId,
    r.createdAt.getTime(),
    r.method,
    r.route,
    r.path,
    r.operationName,
    r.status,
    r.durationMs,
    r.requestId,
    r.credentialId,
    r.credentialName,
    r.credentialPrefix,
    r.ip,
    r.idempotencyKey,
    r.requestBody,
    r.responseBody,
  ]);
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
 * Rows of one mode for one INSERT: the JSON array of their rowJson forms, `[row,row,…`, as
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

/** Inserts rows of one mode with one statement; returns how many were written. */
export async function insertRequestLogs(db: Database, rows: readonly RequestLogEntry[]): Promise<number> {
  if (rows.length === 0) return 0;
  return db.execute(INSERT, [`[${rows.map(rowJson).join(',')}]`]);
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

  /** Appends a row; never throws, never waits. */
  record(entry: RequestLogEntry): void {
    if (this.closed || this.buffered >= this.opts.maxBuffered) {
      this.dropped++;
      return;
    }
    const json = rowJson(entry);
    const chunk = (this.filling[entry.mode] ??= this.chunk(entry.mode));
    // UTF-8 takes at most 3 bytes per UTF-16 unit; one more for the separator, one for the `]`.
    const need = chunk.length + json.length * 3 + 2;
    if (need > chunk.bytes.length) {
      const bigger = Buffer.allocUnsafeSlow(Math.max(need, chunk.bytes.length * 2));
      chunk.bytes.copy(bigger, 0, 0, chunk.length);
      chunk.bytes = bigger;
    }
    chunk.bytes[chunk.length++] = chunk.rows === 0 ? OPEN_BRACKET : COMMA;
    chunk.length += chunk.bytes.write(json, chunk.length);
    chunk.rows++;
    this.buffered++;
    if (chunk.rows >= this.opts.batchRows) {
      this.full.push(chunk);
      this.filling[entry.mode] = null;
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
      const batch = chunk.bytes.toString('utf8', 0, chunk.length);
      if (this.spare.length < SPARE_CHUNKS && chunk.bytes.length <= SPARE_BYTES) this.spare.push(chunk.bytes);
      try {
        result.written += await this.dbs[chunk.mode].execute(INSERT, [batch]);
        result.statements++;
      } catch (err) {
        result.failed += chunk.rows;
        this.opts.logger?.warn(
          { err: { message: (err as Error).message }, rows: chunk.rows, mode: chunk.mode },
          'could not write request logs; these rows are lost',
        );
      }
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
