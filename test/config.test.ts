// Configuration (issue 2 point 10): one module validates the environment at start-up; a bad
// variable stops the process with a message naming it (src/config.ts, src/server.ts).
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { runCli, startServer, tempDir } from './helpers/server-process.js';

const dir = tempDir();
afterAll(() => dir.remove());

describe('loadConfig', () => {
  it('has working defaults for an empty environment', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      NODE_ENV: 'development',
      HOST: '127.0.0.1',
      PORT: 3000,
      DATA_DIR: './.data',
      REDIS_PREFIX: 'svc:',
      RATE_LIMIT_PER_SECOND: 100,
      RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: 20,
      TRUST_PROXY: false,
      SEED_DEMO: true,
      isProduction: false,
    });
    expect(c.DATABASE_URL).toBeUndefined();
    expect(Object.isFrozen(c)).toBe(true);
    // Empty strings count as unset (a blank line in an .env file).
    expect(loadConfig({ PORT: '', DATABASE_URL: '' }).PORT).toBe(3000);
    expect(loadConfig({ BASE_URL: 'https://api.example.com/' })).toMatchObject({
      BASE_URL: 'https://api.example.com',
      AUTH_URL: 'https://api.example.com',
    });
    expect(loadConfig({ DATABASE_URL: 'postgresql://u@h/db' }).SEED_DEMO).toBe(false);
  });

  const bad: Array<[Record<string, string>, string]> = [
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ PORT: '-1' }, 'PORT'],
    [{ PORT: '80.5' }, 'PORT'],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'mysql://u@h/db' }, 'DATABASE_URL'],
    [{ SANDBOX_DATABASE_URL: 'http://x' }, 'SANDBOX_DATABASE_URL'],
    [{ REDIS_URL: 'http://127.0.0.1:6379' }, 'REDIS_URL'],
    [{ BASE_URL: 'ftp://x' }, 'BASE_URL'],
    [{ NODE_ENV: 'staging' }, 'NODE_ENV'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ TRUST_PROXY: 'maybe' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: '10.0.0.0/33' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: '10.0.0.1, nope' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: '-1' }, 'TRUST_PROXY'],
    [{ SANDBOX_SCHEMA: 'Robert"); DROP TABLE' }, 'SANDBOX_SCHEMA'],
    [{ RATE_LIMIT_PER_SECOND: '0' }, 'RATE_LIMIT_PER_SECOND'],
    [{ CREDENTIAL_CACHE_TTL_SECONDS: '3600' }, 'CREDENTIAL_CACHE_TTL_SECONDS'],
    [{ TLS_CERT: '/nonexistent/cert.pem', TLS_KEY: '/nonexistent/key.pem' }, 'TLS_CERT'],
    [{ TLS_CERT: '/etc', TLS_KEY: '/etc' }, 'TLS_KEY'],
  ];
  for (const [env, variable] of bad) {
    it(`refuses ${JSON.stringify(env)}, naming ${variable}`, () => {
      let error: unknown;
      try {
        loadConfig(env);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(new RegExp(`^Invalid configuration:\\n(.*\\n)*  ${variable}: .+`, 'm'));
    });
  }

  it('TRUST_PROXY: off, a hop count (true is one hop, never "every hop"), or proxy addresses', () => {
    const trust = (v: string) => loadConfig({ TRUST_PROXY: v }).TRUST_PROXY;
    for (const v of ['false', 'no', '0']) expect(trust(v)).toBe(false);
    for (const v of ['true', 'yes', '1', 'TRUE']) expect(trust(v)).toBe(1);
    expect(trust('2')).toBe(2);
    expect(trust('10.0.0.5')).toEqual(['10.0.0.5']);
    expect(trust('10.0.0.0/8, 192.168.1.7,fd00::/8 ,loopback')).toEqual([
      '10.0.0.0/8',
      '192.168.1.7',
      'fd00::/8',
      'loopback',
    ]);
  });

  it('names every bad variable at once, and TLS_CERT without TLS_KEY', () => {
    expect(() => loadConfig({ PORT: 'x', REDIS_URL: 'nope' })).toThrow(/PORT: .*\n\s+REDIS_URL: /s);
    const cert = join(dir.path, 'cert.pem');
    writeFileSync(cert, 'not really a certificate');
    expect(() => loadConfig({ TLS_CERT: cert })).toThrow('TLS_CERT and TLS_KEY must be set together');
  });
});

describe('start-up with a bad environment', () => {
  const cases: Array<[Record<string, string>, string]> = [
    [{ PORT: 'eighty' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://root@127.0.0.1/app' }, 'DATABASE_URL'],
    [{ TLS_CERT: '/nonexistent/cert.pem', TLS_KEY: '/nonexistent/key.pem' }, 'TLS_CERT'],
  ];
  for (const [env, variable] of cases) {
    it(`the server exits 78 (EX_CONFIG) naming ${variable}, before touching anything`, async () => {
      const s = startServer({ DATA_DIR: join(dir.path, 'never-created'), ...env });
      const { code } = await s.exited;
      expect(code).toBe(78);
      expect(s.stderr()).toMatch(new RegExp(`^Invalid configuration:\\n  ${variable}: .+$`, 'm'));
      // A message, not a stack trace; and nothing on stdout.
      expect(s.stderr()).not.toMatch(/\n\s+at /);
      expect(s.stdout()).toBe('');
      expect(existsSync(join(dir.path, 'never-created'))).toBe(false);
    });
  }

  it('the CLI reads the same configuration and says the same', async () => {
    const res = await runCli(['migrate', '--json'], { PORT: 'eighty' });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/^Invalid configuration:\n {2}PORT: /m);
    expect(res.stdout).toBe('');
  });
});
