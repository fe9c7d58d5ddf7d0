// `svc sandbox wipe` and `svc sandbox restore` (docs/cli.md) as an operator runs them: the real
// bin as a child process over this file's own database. With --json, stdout is exactly one
// JSON object; errors go to stderr with a non-zero exit and nothing on stdout.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabases, type Databases } from '../../src/db/databases.js';
import { createTestDatabases, embedded, type TestDatabases } from '../helpers/db.js';
import { unique } from '../helpers/factories.js';

let db: TestDatabases | undefined;
let dataDir: string | undefined;
const email = `cli-${unique()}@example.com`;

beforeAll(async () => {
  // Embedded runs give the CLI a PGlite directory of its own (one process at a time).
  if (embedded()) dataDir = mkdtempSync(join(tmpdir(), 'svc-sandbox-cli-'));
  else db = await createTestDatabases();
});
afterAll(async () => {
  await db?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function svc(...args: string[]): Promise<Run> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
  };
  if (db) env.DATABASE_URL = db.url;
  else env.DATA_DIR = dataDir;
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/svc.mjs', ...args], { env, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** The one JSON object of a successful --json run. */
function json(run: Run): any {
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(run.stdout.endsWith('\n')).toBe(true);
  expect(run.stdout.trim().split('\n')).toHaveLength(1);
  return JSON.parse(run.stdout);
}

async function withDatabases<T>(fn: (dbs: Databases) => Promise<T>): Promise<T> {
  if (db) return fn(db.dbs);
  const dbs = await openDatabases({ DATA_DIR: dataDir!, SANDBOX_SCHEMA: 'sandbox', DATABASE_POOL_SIZE: 1 });
  try {
    return await fn(dbs);
  } finally {
    await dbs.close();
  }
}

const ID = expect.stringMatching(/^[0-9a-f]{24}$/);
const SAMPLES = [
  { _id: ID, name: 'Sample Hair Salon' },
  { _id: ID, name: 'Sample Medical Clinic' },
  { _id: ID, name: 'Sample Fitness Center' },
];

describe('svc sandbox', { timeout: 240_000 }, () => {
  let accountId: string;
  let liveId: string;
  let restored: string[];

  it('account create → wipe → restore, each printing its documented object', async () => {
    const created = json(
      await svc('account', 'create', '--email', email, '--password', 'a long enough password', '--json'),
    );
    expect(created).toEqual({ accountId: ID, testCompanies: SAMPLES });
    accountId = created.accountId;
    const live = json(
      await svc('company', 'create', '--account', email, '--name', 'Real Salon', '--mode', 'live', '--json'),
    );
    expect(live).toEqual({ _id: ID, name: 'Real Salon', mode: 'live' });
    liveId = live._id;

    expect(json(await svc('sandbox', 'wipe', '--account', email, '--json'))).toEqual({ deletedCompanies: 3 });
    expect(json(await svc('sandbox', 'wipe', '--account', email.toUpperCase(), '--json'))).toEqual({
      deletedCompanies: 0,
    });

    const back = json(await svc('sandbox', 'restore', '--account', email, '--json'));
    expect(back).toEqual({ testCompanies: SAMPLES });
    expect(json(await svc('sandbox', 'restore', '--account', email, '--json'))).toEqual(back);
    restored = back.testCompanies.map((c: { _id: string }) => c._id);

    const reset = json(await svc('sandbox', 'restore', '--account', email, '--reset', '--json'));
    expect(reset).toEqual({ testCompanies: SAMPLES });
    for (const [i, c] of reset.testCompanies.entries()) expect(c._id).not.toBe(restored[i]);
    for (const c of created.testCompanies) expect(restored).not.toContain(c._id);
  });

  it('left the live company in place and the sandbox with exactly the three fresh samples', async () => {
    await withDatabases(async (dbs) => {
      expect(await dbs.live.prisma.company.findUnique({ where: { id: liveId } })).toMatchObject({
        name: 'Real Salon',
        mode: 'live',
        accountId,
      });
      const sandbox = await dbs.test.prisma.company.findMany({ where: { accountId }, orderBy: { id: 'asc' } });
      expect(sandbox.map((c) => c.name)).toEqual([
        'Sample Hair Salon',
        'Sample Medical Clinic',
        'Sample Fitness Center',
      ]);
      expect(await dbs.test.prisma.employee.count({ where: { companyId: { in: sandbox.map((c) => c.id) } } })).toBe(12);
    });
  });

  it.each([
    ['an unknown account', ['sandbox', 'wipe', '--account', 'nobody@example.com'], 1, /NOT_FOUND/],
    ['no --account', ['sandbox', 'restore'], 1, /VALIDATION_ERROR: --account is required/],
    ['an unknown option', ['sandbox', 'wipe', '--account', email, '--everything'], 64, /unknown option '--everything'/],
    ['a value for the --reset flag', ['sandbox', 'restore', '--account', email, '--reset=yes'], 64, /--reset/],
  ])('%s: stderr and a non-zero exit, nothing on stdout', async (_, args, code, message) => {
    const run = await svc(...args, '--json');
    expect(run.code).toBe(code);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
  });
});
