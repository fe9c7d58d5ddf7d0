// The embedded start's demo account (issue 2 point 12): its password and sandbox key are kept
// beside the data readable by the owner only, and a production process neither creates nor
// prints one (a demo login in a production log would be a way in).
import { chmodSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureDemo } from '../src/demo.js';
import { createTestApp, TEST_SECRET_KEY } from './helpers/app.js';
import { tempDir } from './helpers/server-process.js';

const dirs: Array<{ remove(): void }> = [];
afterAll(() => dirs.forEach((d) => d.remove()));

const mode = (file: string) => statSync(file).mode & 0o777;

describe('ensureDemo', () => {
  it('development: creates the demo and keeps its credentials in a 0600 file, also one left readable before', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const t = await createTestApp({ env: { NODE_ENV: 'development', DATA_DIR: dir.path } });
    try {
      const demo = await ensureDemo(t.services);
      expect(demo).toMatchObject({
        email: 'demo@example.com',
        password: expect.any(String),
        testKey: expect.stringMatching(/^svc_sk_test_/),
      });
      const file = join(dir.path, 'demo-credentials.json');
      expect(mode(file)).toBe(0o600);
      // A file an older version (or a copy) left world-readable is tightened on the next start.
      chmodSync(file, 0o644);
      expect((await ensureDemo(t.services))?.password).toBe(demo!.password);
      expect(mode(file)).toBe(0o600);
    } finally {
      await t.close();
    }
  });

  it('production: no demo account, no credentials file, nothing to print', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const t = await createTestApp({
      env: { NODE_ENV: 'production', SECRET_KEY: TEST_SECRET_KEY, DATA_DIR: dir.path, SEED_DEMO: '1' },
    });
    try {
      expect(t.config.SEED_DEMO).toBe(true);
      expect(await ensureDemo(t.services)).toBeNull();
      expect(await t.dbs.live.prisma.account.count()).toBe(0);
      expect(existsSync(join(dir.path, 'demo-credentials.json'))).toBe(false);
    } finally {
      await t.close();
    }
  });
});
