// Factories return the whole created graph with unique values, so tests never collide.
import { randomBytes } from 'node:crypto';
import { generateToken, hashToken } from '../../src/auth/tokens.js';
import type { Databases } from '../../src/db/databases.js';
import { newId } from '../../src/ids.js';
import { createAccount } from '../../src/schema/accounts/create-account.js';
import { createApiKey } from '../../src/schema/credentials/create-api-key.js';
import { createCompany } from '../../src/schema/companies/create-company.js';

export const unique = () => randomBytes(4).toString('hex');

export async function createAccountWithKeys(dbs: Databases, overrides: { email?: string } = {}) {
  const email = overrides.email ?? `owner-${unique()}@example.com`;
  const password = `pw-${unique()}-${unique()}`;
  const { account, testCompanies } = await createAccount(dbs, { email, password });
  const live = await createCompany(dbs, {
    accountId: account.id,
    mode: 'live',
    name: `Live Co ${unique()}`,
    timezone: 'Europe/Berlin',
    currency: 'EUR',
    email: `live-${unique()}@example.com`,
    phone: '+493012345678',
    address: 'Alexanderplatz 1, Berlin',
  });
  const test = testCompanies[0]!;
  const liveKey = await createApiKey(dbs.live.prisma, { companyId: live.id, name: 'live key' });
  const testKey = await createApiKey(dbs.test.prisma, { companyId: test.id, name: 'test key' });
  return { account, email, password, live, test, testCompanies, liveKey, testKey };
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** An OAuth access token with only the given scopes, written as the token endpoint writes one,
 * so scope checks can be tested without running the OAuth flow. */
export async function scopedToken(
  dbs: Databases,
  o: { accountId: string; companyId: string; mode: 'live' | 'test'; scope: string },
): Promise<string> {
  const token = generateToken('at', o.mode);
  await dbs.live.prisma.oAuthToken.create({
    data: {
      id: newId(),
      tokenHash: hashToken(token),
      kind: 'access',
      clientId: 'test-client',
      accountId: o.accountId,
      companyId: o.companyId,
      mode: o.mode,
      scope: o.scope,
      grantId: newId(),
      expiresAt: new Date(Date.now() + 3600_000),
    },
  });
  return token;
}
