// Live e-mail that cannot be sent is announced once at start-up (issue 14 point 10): when a
// live company exists and SMTP_URL is unset, one JSON log line that names no company, address
// or secret. The real server (`npm start`'s command, in a child process) shows it is said at
// start-up; the check's other cases run in process, on a logger writing into this test.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { warnIfLiveEmailCannotBeSent } from '../../src/workers/send-email.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabases, type TestDatabases } from '../helpers/db.js';
import { createAccountWithKeys } from '../helpers/factories.js';
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
  it('the server logs it once when a live company exists and SMTP_URL is unset', async () => {
    // A database of the server's own: the demo account it seeds comes with a live company.
    const server = await createTestDatabases();
    const env = { PORT: '0', DATA_DIR: dir.path, SEED_DEMO: '1', ...(server.url ? { DATABASE_URL: server.url } : {}) };
    if (!server.url) await server.drop();
    const s = startServer(env);
    try {
      await s.ready;
    } finally {
      await s.stop();
      if (server.url) await server.drop();
    }
    const lines: LogLine[] = s
      .stdout()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
    const warnings = lines.filter((l) => /SMTP_URL/.test(l.msg));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.level).toBe(40);
    expect(warnings[0]!.msg).toBe(MESSAGE);
    // Nothing else in the line: no company, account or address.
    expect(Object.keys(warnings[0]!).filter((k) => !['level', 'time', 'pid', 'hostname', 'msg'].includes(k))).toEqual(
      [],
    );
  }, 180_000);

  it('is said only while a live company exists and no SMTP relay is configured', async () => {
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
    await createAccountWithKeys(db.dbs);
    expect(await check({ SMTP_URL: undefined })).toEqual([[40, MESSAGE]]);
    expect(await check({ SMTP_URL: 'smtp://smtp.example.com:587' })).toEqual([]);
  });
});
