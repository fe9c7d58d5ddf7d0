// Live e-mail that cannot be sent is announced once at start-up (issue 14 point 10): when a
// live company takes bookings (a service or a staff member) and SMTP_URL is unset, one JSON log
// line that names no company, address or secret. The real server (`npm start`'s command, in a
// child process) shows it is said at start-up, and not for the demo's live company, which has not
// begun; the check's other cases run in process, on a logger writing into this test.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { warnIfLiveEmailCannotBeSent } from '../../src/workers/send-email.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabases, type TestDatabases } from '../helpers/db.js';
import { createAccountWithKeys } from '../helpers/factories.js';
import { ALL_DAY } from '../helpers/domain.js';
import { createEmployee } from '../../src/schema/staff/index.js';
import { startServer, tempDir } from '../helpers/server-process.js';

const MESSAGE =
  'SMTP_URL is not set: e-mails of live companies are not sent but marked failed; set SMTP_URL to an SMTP relay';
type LogLine = { level: number; msg: string } & Record<string, unknown>;

const dir = tempDir();
let db: TestDatabases;

beforeAll(async () => {
  db = await createTestDatabases();
});
afterAll(async () => {
  await db?.drop();
  dir.remove();
});

describe('start-up warning about live e-mail', () => {
  it('the server logs it once when a live company takes bookings and SMTP_URL is unset', async () => {
    // A database of the server's own: the demo account it seeds comes with a live company, which
    // has not begun, so the first start says nothing of e-mail (the quiet start of the first hour).
    // On PostgreSQL, that company then gets a staff member, and the next start warns once.
    const server = await createTestDatabases();
    const env = { PORT: '0', DATA_DIR: dir.path, SEED_DEMO: '1', ...(server.url ? { DATABASE_URL: server.url } : {}) };
    const smtpLines = async () => {
      const s = startServer(env);
      try {
        await s.ready;
      } finally {
        await s.stop();
      }
      return s
        .stdout()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as LogLine)
        .filter((l) => /SMTP_URL/.test(l.msg));
    };
    try {
      if (!server.url) await server.drop();
      expect(await smtpLines()).toEqual([]);
      if (!server.url) return;
      const demo = await server.dbs.live.prisma.company.findFirstOrThrow({ where: { mode: 'live' } });
      await createEmployee(server.dbs.live.prisma, {
        companyId: demo.id,
        input: { name: 'Alex', workingHours: ALL_DAY },
      });
      const warnings = await smtpLines();
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.level).toBe(40);
      expect(warnings[0]!.msg).toBe(MESSAGE);
      // Nothing else in the line: no company, account or address.
      expect(Object.keys(warnings[0]!).filter((k) => !['level', 'time', 'pid', 'hostname', 'msg'].includes(k))).toEqual(
        [],
      );
    } finally {
      if (server.url) await server.drop();
    }
  }, 240_000);

  it('is said only while a live company takes bookings and no SMTP relay is configured', async () => {
    const lines: LogLine[] = [];
    const logger = createLogger(
      'info',
      new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(String(chunk))), done()) }),
    );
    const check = async (env: Record<string, string | undefined>) => {
      lines.length = 0;
      await warnIfLiveEmailCannotBeSent({ config: testConfig(env), dbs: db.dbs, logger });
      return lines.map((l) => [l.level, l.msg]);
    };
    // Test companies only: their e-mail is logged, never sent.
    await createAccountWithKeys(db.dbs);
    await db.dbs.live.prisma.company.deleteMany({ where: { mode: 'live' } });
    expect(await check({ SMTP_URL: undefined })).toEqual([]);
    // A live company that has not begun (no service, no staff: the demo's) sends no e-mail yet.
    const { live } = await createAccountWithKeys(db.dbs);
    expect(await check({ SMTP_URL: undefined })).toEqual([]);
    // Once it takes bookings, its customers' e-mails would fail.
    await createEmployee(db.dbs.live.prisma, { companyId: live.id, input: { name: 'Alex', workingHours: ALL_DAY } });
    expect(await check({ SMTP_URL: undefined })).toEqual([[40, MESSAGE]]);
    expect(await check({ SMTP_URL: 'smtp://smtp.example.com:587' })).toEqual([]);
  });
});
