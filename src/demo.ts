// The embedded start's demo (issue 2, point 12): on a fresh data directory, a demo account with
// a live company and the sample test companies, and one sandbox key. The password and key are
// kept (mode 0600) beside the embedded database so every later start can print them again;
// with DATABASE_URL nothing is seeded unless SEED_DEMO=1. Never in production: a demo login and
// key printed to the logs of a production deployment would be a way in.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Services } from './services.js';
import { createAccount } from './schema/accounts/index.js';
import { createApiKey } from './schema/credentials/index.js';
import { createCompany } from './schema/companies/index.js';
import { hashToken } from './auth/tokens.js';

export interface DemoCredentials {
  email: string;
  password: string;
  liveCompanyId: string;
  /** Null once the account's sandbox has been wiped (until `svc sandbox restore`). */
  testCompanyId: string | null;
  testKey: string | null;
}

/** Owner-only, also for a file an older version or a copy left readable. */
function save(file: string, demo: DemoCredentials): void {
  writeFileSync(file, JSON.stringify(demo, null, 2), { mode: 0o600 });
  chmodSync(file, 0o600);
}

export async function ensureDemo(services: Services): Promise<DemoCredentials | null> {
  const { dbs, config } = services;
  if (config.isProduction) {
    services.logger.warn('no demo account in production: SEED_DEMO is ignored and no demo login is printed');
    return null;
  }
  const file = join(config.DATA_DIR.startsWith('memory://') ? '.' : config.DATA_DIR, 'demo-credentials.json');
  if (existsSync(file)) {
    chmodSync(file, 0o600);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as DemoCredentials;
    const account = await dbs.live.prisma.account.findUnique({ where: { email: saved.email } });
    if (account) return refreshSandboxKey(services, file, account.id, saved);
  }
  if ((await dbs.live.prisma.account.count()) > 0) return null;
  const email = 'demo@example.com';
  const password = randomBytes(12).toString('base64url');
  const { account, testCompanies } = await createAccount(dbs, { email, password }, { week: services });
  const live = await createCompany(dbs, {
    accountId: account.id,
    mode: 'live',
    name: 'Demo Company',
    timezone: 'Europe/Berlin',
    currency: 'EUR',
    email: 'hello@demo.example.com',
  });
  const salon = testCompanies[0]!;
  const { key } = await createApiKey(dbs.test.prisma, { companyId: salon.id, name: 'Demo sandbox key' });
  const demo: DemoCredentials = { email, password, liveCompanyId: live.id, testCompanyId: salon.id, testKey: key };
  if (!config.DATA_DIR.startsWith('memory://')) {
    mkdirSync(config.DATA_DIR, { recursive: true });
    save(file, demo);
  }
  return demo;
}

/**
 * `svc sandbox wipe` deletes the demo's sandbox key with its company, so a saved key may be
 * dead: mint a new one on the account's oldest test company (a restored sample), or report
 * none when the sandbox is empty. The wipe is kept: a start never brings samples back.
 */
async function refreshSandboxKey(
  services: Services,
  file: string,
  accountId: string,
  saved: DemoCredentials,
): Promise<DemoCredentials> {
  const sandbox = services.dbs.test.prisma;
  const key = saved.testKey ? await sandbox.apiKey.findUnique({ where: { keyHash: hashToken(saved.testKey) } }) : null;
  if (key && !key.revokedAt) return saved;
  const company = await sandbox.company.findFirst({
    where: { accountId, mode: 'test' },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
  const demo: DemoCredentials = { ...saved, testCompanyId: null, testKey: null };
  if (company) {
    demo.testCompanyId = company.id;
    demo.testKey = (await createApiKey(sandbox, { companyId: company.id, name: 'Demo sandbox key' })).key;
  }
  if (!services.config.DATA_DIR.startsWith('memory://')) save(file, demo);
  return demo;
}
