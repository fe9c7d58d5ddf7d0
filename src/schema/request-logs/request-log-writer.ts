// Writes request logs in batches off the request path (docs/api.md, Request logs): a request
// only appends its row to an in-process buffer; every `flushMs`, or as soon as `batchRows` rows
// wait, the buffer is written with one multi-row INSERT per mode's database (live, sandbox).
// The buffer is bounded: when `maxBuffered` rows wait (the database is slow or down), further
// rows are dropped and counted, never queued without limit. A failed write is logged and its
// rows counted as lost: logging never fails or slows a request. close() writes what is left.
import type { Db } from '../../db/databases.js';
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

/** Inserts rows already in rowJson form with one statement; returns how many were written. */
function insertRowJson(db: Db, rows: readonly string[]): Promise<number> {
  return db.$executeRawUnsafe(INSERT, `[${rows.join(',')}]`);
}

/** Inserts rows of one mode with one statement; returns how many were written. */
export async function insertRequestLogs(db: Db, rows: readonly RequestLogEntry[]): Promise<number> {
  if (rows.length === 0) return 0;
  return insertRowJson(db, rows.map(rowJson));
}

/** A buffered row: its mode and its JSON (one string, not an object graph that lives until the flush). */
interface Buffered {
  mode: Mode;
  json: string;
}

export class RequestLogWriter {
  private buffer: Buffered[] = [];
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
    private readonly forMode: (mode: Mode) => Db,
    private readonly opts: RequestLogWriterOptions,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(), this.opts.flushMs);
    this.timer.unref();
  }

  /** How many rows wait for the next flush. */
  get pending(): number {
    return this.buffer.length;
  }

  /** Appends a row; never throws, never waits. */
  record(entry: RequestLogEntry): void {
    if (this.closed || this.buffer.length >= this.opts.maxBuffered) {
      this.dropped++;
      return;
    }
    // Serialized now: a row waits up to flushMs, long enough for the garbage collector to move
    // it to the old generation, where one string costs it far less than an object of 17 fields.
    this.buffer.push({ mode: entry.mode, json: rowJson(entry) });
    if (this.buffer.length >= this.opts.batchRows && !this.running) void this.flush();
  }

  /** Resolves when the next flush that writes something has finished (for tests and shutdown). */
  nextFlush(): Promise<FlushResult> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Writes everything buffered now; flushes never overlap (a second call waits for the first). */
  async flush(): Promise<FlushResult> {
    while (this.running) await this.running;
    if (this.buffer.length === 0) return { statements: 0, written: 0, failed: 0 };
    this.running = this.write(this.buffer.splice(0));
    try {
      return await this.running;
    } finally {
      this.running = null;
    }
  }

  private async write(rows: Buffered[]): Promise<FlushResult> {
    const result: FlushResult = { statements: 0, written: 0, failed: 0 };
    for (const mode of ['live', 'test'] as const) {
      const ofMode = rows.filter((r) => r.mode === mode).map((r) => r.json);
      for (let i = 0; i < ofMode.length; i += this.opts.batchRows) {
        const batch = ofMode.slice(i, i + this.opts.batchRows);
        try {
          result.written += await insertRowJson(this.forMode(mode), batch);
          result.statements++;
        } catch (err) {
          result.failed += batch.length;
          this.opts.logger?.warn(
            { err: { message: (err as Error).message }, rows: batch.length, mode },
            'could not write request logs; these rows are lost',
          );
        }
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
