// The request-log subject on its own: what a body keeps after redaction and the cap, the
// writer's bound on memory, its lines (every value as sent, a refused row costing only itself),
// and scrubbing an erased customer's data from stored bodies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/ids.js';
import {
  bodyForLog,
  ERASED_BODY,
  MAX_BODY_CHARS,
  RequestLogWriter,
  scrubCustomerFromRequestLogs,
  TRUNCATED,
  type RequestLogEntry,
} from '../../../src/schema/request-logs/index.js';
import { createTestDatabases, type TestDatabases } from '../../helpers/db.js';
import { createAccountWithKeys } from '../../helpers/factories.js';

let db: TestDatabases;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;

beforeAll(async () => {
  db = await createTestDatabases();
  w = await createAccountWithKeys(db.dbs);
});
afterAll(async () => {
  await db?.drop();
});

const entry = (over: Partial<RequestLogEntry> = {}): RequestLogEntry => ({
  id: newId(),
  mode: 'test',
  companyId: w.test.id,
  createdAt: new Date(),
  method: 'POST',
  route: '/api/v1/customers',
  path: '/api/v1/customers',
  operationName: null,
  status: 400,
  durationMs: 2,
  requestId: `req_${newId()}`,
  credentialId: w.testKey.apiKey.id,
  credentialName: 'test key',
  credentialPrefix: 'svc_sk_test_…abcd',
  ip: '127.0.0.1',
  idempotencyKey: null,
  requestBody: null,
  responseBody: null,
  ...over,
});

describe('bodyForLog', () => {
  it('redacts secret-named keys, card numbers (text or number) and CVCs, and keeps the rest', () => {
    const stored = bodyForLog({
      name: 'Dana',
      apiKey: 'svc_sk_live_whatever',
      nested: [{ token: 'abc', pan: '4242424242424242', amount: 1200 }],
      note: 'card 5555-5555-5555-4444 exp 12/30 CVV: 123, order 12345678',
      raw: 4111111111111111,
      security_code: '999',
      cardCvc: '321',
    })!;
    expect(JSON.parse(stored)).toEqual({
      name: 'Dana',
      apiKey: '[REDACTED]',
      nested: [{ token: '[REDACTED]', pan: '[REDACTED]', amount: 1200 }],
      note: 'card [REDACTED] exp 12/30 CVV: [REDACTED], order 12345678',
      raw: '[REDACTED]',
      security_code: '[REDACTED]',
      cardCvc: '[REDACTED]',
    });
  });

  it('reads JSON text as JSON, other text as text, and caps both', () => {
    expect(bodyForLog('{"password":"p"}')).toBe('{"password":"[REDACTED]"}');
    expect(bodyForLog('not json, Bearer abc.def')).toBe('not json, Bearer[REDACTED]');
    expect(bodyForLog('')).toBeNull();
    // PostgreSQL text holds no NUL: it goes, rather than failing the batch the row is in.
    expect(bodyForLog('a\u0000b')).toBe('ab');
    expect(bodyForLog(undefined)).toBeNull();
    const long = bodyForLog({ text: 'x'.repeat(MAX_BODY_CHARS * 2) })!;
    expect(long).toHaveLength(MAX_BODY_CHARS);
    expect(long.endsWith(TRUNCATED)).toBe(true);
  });
});

describe('RequestLogWriter', () => {
  it('drops and counts rows beyond its buffer, and writes the rest in one COPY per mode', async () => {
    const writer = new RequestLogWriter(db.dbs, { flushMs: 60_000, batchRows: 100, maxBuffered: 3 });
    const rows = [entry({ mode: 'live', companyId: w.live.id }), entry(), entry(), entry(), entry()];
    for (const r of rows) writer.record(r);
    expect([writer.pending, writer.dropped]).toEqual([3, 2]);
    expect(await writer.flush()).toEqual({ statements: 2, written: 3, failed: 0 });
    expect(await db.dbs.live.prisma.requestLog.count({ where: { id: rows[0]!.id } })).toBe(1);
    expect(await db.dbs.test.prisma.requestLog.count({ where: { id: { in: rows.map((r) => r.id) } } })).toBe(2);
    await writer.close();
  });

  it('keeps every character of every column as it was sent (tabs, line breaks, backslashes, non-Latin text)', async () => {
    const writer = new RequestLogWriter(db.dbs, { flushMs: 60_000, batchRows: 100, maxBuffered: 10 });
    const odd = 'a\tb\nc\r\nd\\e \\N \\. ü 日本 🙂 "q" \'s\'';
    const createdAt = new Date('2026-11-28T14:03:07.042Z');
    const row = entry({
      createdAt,
      route: null,
      path: `/api/v1/customers/${odd}`,
      operationName: odd,
      idempotencyKey: odd,
      requestBody: `{"note":${JSON.stringify(odd)}}`,
      responseBody: odd,
      durationMs: 12.345,
      credentialName: `key ${odd}`,
    });
    const plain = entry({ durationMs: 0.5 });
    writer.record(row);
    writer.record(plain);
    expect(await writer.close()).toEqual({ statements: 1, written: 2, failed: 0 });
    const stored = await db.dbs.test.prisma.requestLog.findUniqueOrThrow({ where: { id: row.id } });
    expect(stored).toMatchObject({
      createdAt,
      route: null,
      path: row.path,
      operationName: odd,
      idempotencyKey: odd,
      requestBody: row.requestBody,
      responseBody: odd,
      durationMs: 12.345,
      credentialName: `key ${odd}`,
      credentialPrefix: 'svc_sk_test_…abcd',
      status: 400,
    });
    expect(await db.dbs.test.prisma.requestLog.findUniqueOrThrow({ where: { id: plain.id } })).toMatchObject({
      route: '/api/v1/customers',
      path: '/api/v1/customers',
      operationName: null,
      requestBody: null,
      durationMs: 0.5,
    });
  });

  it('writes a NUL (which no PostgreSQL text holds) as U+FFFD instead of losing the batch', async () => {
    const writer = new RequestLogWriter(db.dbs, { flushMs: 60_000, batchRows: 100, maxBuffered: 10 });
    const row = entry({ operationName: 'a\u0000b', responseBody: '\u0000' });
    writer.record(row);
    expect(await writer.close()).toEqual({ statements: 1, written: 1, failed: 0 });
    expect(await db.dbs.test.prisma.requestLog.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({
      operationName: 'a\uFFFDb',
      responseBody: '\uFFFD',
    });
  });

  it("leaves out a deleted company's rows instead of failing the batch", async () => {
    const writer = new RequestLogWriter(db.dbs, { flushMs: 60_000, batchRows: 100, maxBuffered: 10 });
    const gone = entry({ companyId: newId() });
    const kept = [entry(), entry()];
    writer.record(kept[0]!);
    writer.record(gone);
    writer.record(kept[1]!);
    expect(await writer.close()).toEqual({ statements: 1, written: 2, failed: 0 });
    expect(
      await db.dbs.test.prisma.requestLog.count({ where: { id: { in: [gone.id, ...kept.map((r) => r.id)] } } }),
    ).toBe(2);
    // Closed: later rows are dropped, not buffered for ever.
    writer.record(entry());
    expect([writer.pending, writer.dropped]).toEqual([0, 1]);
  });
});

describe('RequestLogWriter: values a request fills in', () => {
  it('keeps every character of the columns a request fills in itself, the address included', async () => {
    const writer = new RequestLogWriter(db.dbs, { flushMs: 60_000, batchRows: 100, maxBuffered: 100 });
    const odd = 'a\tb\nc\r\\N\\.\u0000ü';
    const row = entry({ ip: odd, method: odd, requestId: odd, id: `${newId()}\\x` });
    const plain = entry();
    writer.record(row);
    writer.record(plain);
    expect(await writer.close()).toEqual({ statements: 1, written: 2, failed: 0 });
    const kept = odd.replace('\u0000', '\uFFFD');
    expect(await db.dbs.test.prisma.requestLog.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({
      ip: kept,
      method: kept,
      requestId: kept,
      companyId: w.test.id,
    });
  });
});

describe('RequestLogWriter: a row PostgreSQL refuses', () => {
  const warnings: Array<{ obj: Record<string, unknown>; msg: string }> = [];
  const logger = {
    warn: (obj: object, msg: string) => void warnings.push({ obj: obj as Record<string, unknown>, msg }),
  };
  const stored = async (rows: RequestLogEntry[]) =>
    (
      await db.dbs.test.prisma.requestLog.findMany({
        where: { id: { in: rows.map((r) => r.id) } },
        select: { id: true },
      })
    ).map((r) => r.id);

  it('is lost alone and counted: every other row of its chunk, of every company, is written', async () => {
    warnings.length = 0;
    const writer = new RequestLogWriter(db.dbs, { flushMs: 60_000, batchRows: 100, maxBuffered: 100, logger });
    // A well-formed line whose status is past integer's range: a refusal by PostgreSQL itself.
    const refused = entry({ status: 2 ** 31 });
    const other = w.testCompanies[1]!.id;
    const good = [
      entry(),
      entry({ companyId: other }),
      entry(),
      entry({ companyId: other }),
      entry(),
      entry(),
      entry(),
    ];
    for (const r of [...good.slice(0, 3), refused, ...good.slice(3)]) writer.record(r);
    expect(await writer.flush()).toMatchObject({ written: good.length, failed: 1 });
    expect([writer.written, writer.failed]).toEqual([good.length, 1]);
    expect((await stored([...good, refused])).sort()).toEqual(good.map((r) => r.id).sort());
    expect(warnings).toEqual([
      { obj: expect.objectContaining({ rows: 1, mode: 'test' }), msg: expect.stringContaining('lost') },
    ]);
    await writer.close();
  });

  it('loses only the refused rows when several are, first and last of the chunk included', async () => {
    const writer = new RequestLogWriter(db.dbs, { flushMs: 60_000, batchRows: 100, maxBuffered: 100 });
    const refused = [entry({ status: 1.5 }), entry({ status: -(2 ** 31) - 1 }), entry({ status: 2 ** 40 })];
    const good = Array.from({ length: 20 }, () => entry());
    const rows = [refused[0]!, ...good.slice(0, 9), refused[1]!, ...good.slice(9), refused[2]!];
    for (const r of rows) writer.record(r);
    expect(await writer.close()).toMatchObject({ written: good.length, failed: refused.length });
    expect((await stored(rows)).sort()).toEqual(good.map((r) => r.id).sort());
  });

  it('retries nothing when PostgreSQL would refuse any row (here a missing column; the database down alike)', async () => {
    let copies = 0;
    const test = {
      ...db.dbs.test,
      copyFrom: (sql: string, data: Buffer) => (copies++, db.dbs.test.copyFrom(sql, data)),
    };
    const writer = new RequestLogWriter({ ...db.dbs, test }, { flushMs: 60_000, batchRows: 100, maxBuffered: 100 });
    await db.dbs.test.prisma.$executeRawUnsafe('ALTER TABLE request_logs RENAME COLUMN ip TO ip_away');
    try {
      for (let i = 0; i < 5; i++) writer.record(entry());
      expect(await writer.flush()).toEqual({ statements: 0, written: 0, failed: 5 });
      expect(copies).toBe(1);
    } finally {
      await db.dbs.test.prisma.$executeRawUnsafe('ALTER TABLE request_logs RENAME COLUMN ip_away TO ip');
    }
    await writer.close();
  });
});

describe('scrubCustomerFromRequestLogs', () => {
  it("replaces the bodies that mention the customer's id, e-mail, phone or name, in their company only", async () => {
    const customer = { id: newId(), name: 'Zoë Müller', email: 'zoe@example.com', phone: '+4915112345678' };
    const p = db.dbs.test.prisma;
    const mention = [
      { requestBody: JSON.stringify({ email: 'ZOE@example.com' }), responseBody: '{"error":{}}' },
      { requestBody: JSON.stringify({ name: 'Zoë Müller' }), responseBody: null },
      { requestBody: null, responseBody: JSON.stringify({ data: { _id: customer.id } }) },
      { requestBody: JSON.stringify({ phone: '+4915112345678' }), responseBody: '{}' },
    ].map((b) => entry(b));
    const unrelated = entry({ requestBody: '{"name":"Someone Else"}', responseBody: '{}' });
    // The account's second sample company: same database, another company.
    const otherCompany = entry({ companyId: w.testCompanies[1]!.id, requestBody: '{"email":"zoe@example.com"}' });
    const writer = new RequestLogWriter(db.dbs, {
      flushMs: 60_000,
      batchRows: 100,
      maxBuffered: 100,
    });
    for (const r of [...mention, unrelated, otherCompany]) writer.record(r);
    await writer.close();

    expect(await scrubCustomerFromRequestLogs(p, { companyId: w.test.id, customer })).toBe(mention.length);
    const rows = await p.requestLog.findMany({
      where: { id: { in: mention.map((r) => r.id) } },
      orderBy: { id: 'asc' },
    });
    expect(rows.map((r) => [r.requestBody, r.responseBody])).toEqual(
      mention.map((m) => [m.requestBody && ERASED_BODY, m.responseBody && ERASED_BODY]),
    );
    expect((await p.requestLog.findUnique({ where: { id: unrelated.id } }))!.requestBody).toBe(
      '{"name":"Someone Else"}',
    );
    expect((await p.requestLog.findUnique({ where: { id: otherCompany.id } }))!.requestBody).toContain('zoe@');
    // Done once: a second run changes nothing.
    expect(await scrubCustomerFromRequestLogs(p, { companyId: w.test.id, customer })).toBe(0);
  });
});
