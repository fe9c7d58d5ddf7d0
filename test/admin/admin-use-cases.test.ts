// The use cases the admin area added: rolling a key (the old one works until its grace period
// ends, then 401; the range is 0–7 days), deleting a key, and deleting an OAuth app (every
// token it holds stops at once; another app's tokens do not).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToken, hashToken } from '../../src/auth/tokens.js';
import { newId } from '../../src/ids.js';
import { createApiKey } from '../../src/schema/credentials/create-api-key.js';
import { createOAuthClient } from '../../src/schema/credentials/create-oauth-client.js';
import { deleteApiKey } from '../../src/schema/credentials/delete-api-key.js';
import { deleteOAuthClient } from '../../src/schema/credentials/delete-oauth-client.js';
import { MAX_ROLL_GRACE_SECONDS, rollApiKey } from '../../src/schema/credentials/roll-api-key.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { bearer, createAccountWithKeys } from '../helpers/factories.js';

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;

beforeAll(async () => {
  t = await createTestApp();
  w = await createAccountWithKeys(t.dbs);
});
afterAll(async () => {
  await t?.close();
});

const me = async (key: string) =>
  (await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(key) })).statusCode;

describe('rollApiKey', () => {
  it('refuses a grace period outside 0..7 days, naming the field, and changes nothing', async () => {
    for (const graceSeconds of [-1, MAX_ROLL_GRACE_SECONDS + 1, 1.5, Number.NaN]) {
      await expect(
        rollApiKey(t.dbs.live.prisma, t.services.credentials, {
          companyId: w.live.id,
          keyId: w.liveKey.apiKey.id,
          graceSeconds,
        }),
      ).rejects.toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'graceSeconds' }] });
    }
    expect(await t.dbs.live.prisma.apiKey.count({ where: { companyId: w.live.id } })).toBe(1);
    expect((await t.dbs.live.prisma.apiKey.findUnique({ where: { id: w.liveKey.apiKey.id } }))!.expiresAt).toBeNull();
  });

  it('another company’s key is NOT_FOUND', async () => {
    await expect(
      rollApiKey(t.dbs.test.prisma, t.services.credentials, {
        companyId: w.test.id,
        keyId: w.liveKey.apiKey.id,
        graceSeconds: 0,
      }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(
      rollApiKey(t.dbs.live.prisma, t.services.credentials, {
        companyId: w.testCompanies[1]!.id,
        keyId: w.liveKey.apiKey.id,
        graceSeconds: 0,
      }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('the old key works through its grace period and stops at its end, even when cached', async () => {
    expect(await me(w.liveKey.key)).toBe(200); // cached now
    // A roll an hour ago with a one-hour grace: the period ends now.
    const rolled = await rollApiKey(t.dbs.live.prisma, t.services.credentials, {
      companyId: w.live.id,
      keyId: w.liveKey.apiKey.id,
      graceSeconds: 3600,
      now: new Date(Date.now() - 3600_000),
    });
    expect(rolled.apiKey).toMatchObject({
      name: w.liveKey.apiKey.name,
      mode: 'live',
      companyId: w.live.id,
      expiresAt: null,
    });
    expect(rolled.previous.expiresAt!.getTime()).toBeLessThanOrEqual(Date.now());
    expect(await me(w.liveKey.key)).toBe(401);
    expect(await me(rolled.key)).toBe(200);
    // A stopped key cannot be rolled again.
    await expect(
      rollApiKey(t.dbs.live.prisma, t.services.credentials, {
        companyId: w.live.id,
        keyId: w.liveKey.apiKey.id,
        graceSeconds: 0,
      }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });

    const later = await rollApiKey(t.dbs.live.prisma, t.services.credentials, {
      companyId: w.live.id,
      keyId: rolled.apiKey.id,
      graceSeconds: MAX_ROLL_GRACE_SECONDS,
    });
    expect(await me(rolled.key)).toBe(200);
    expect(await me(later.key)).toBe(200);
    expect(later.previous.expiresAt!.getTime()).toBeGreaterThan(Date.now() + MAX_ROLL_GRACE_SECONDS * 1000 - 60_000);
    // A key in its grace period has its successor already: rolling it again is refused and
    // neither creates a key nor moves its end.
    const keysBefore = await t.dbs.live.prisma.apiKey.count({ where: { companyId: w.live.id } });
    await expect(
      rollApiKey(t.dbs.live.prisma, t.services.credentials, {
        companyId: w.live.id,
        keyId: rolled.apiKey.id,
        graceSeconds: 0,
      }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await t.dbs.live.prisma.apiKey.count({ where: { companyId: w.live.id } })).toBe(keysBefore);
    expect((await t.dbs.live.prisma.apiKey.findUniqueOrThrow({ where: { id: rolled.apiKey.id } })).expiresAt).toEqual(
      later.previous.expiresAt,
    );
    expect(await me(rolled.key)).toBe(200);
  });

  it('two rolls of one key at once make exactly one successor', async () => {
    const created = await createApiKey(t.dbs.live.prisma, { companyId: w.live.id, name: 'raced' });
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, () =>
        rollApiKey(t.dbs.live.prisma, t.services.credentials, {
          companyId: w.live.id,
          keyId: created.apiKey.id,
          graceSeconds: 3600,
        }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'CONFLICT' });
    expect(await t.dbs.live.prisma.apiKey.count({ where: { companyId: w.live.id, name: 'raced' } })).toBe(2);
  });
});

describe('deleteApiKey', () => {
  it('removes the key and stops it at once; another company’s key is NOT_FOUND', async () => {
    expect(await me(w.testKey.key)).toBe(200);
    await expect(
      deleteApiKey(t.dbs.test.prisma, t.services.credentials, {
        companyId: w.testCompanies[1]!.id,
        keyId: w.testKey.apiKey.id,
      }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await me(w.testKey.key)).toBe(200);
    await deleteApiKey(t.dbs.test.prisma, t.services.credentials, { companyId: w.test.id, keyId: w.testKey.apiKey.id });
    expect(await me(w.testKey.key)).toBe(401);
    await expect(
      deleteApiKey(t.dbs.test.prisma, t.services.credentials, { companyId: w.test.id, keyId: w.testKey.apiKey.id }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('deleteOAuthClient', () => {
  async function tokenOf(clientId: string, kind: 'access' | 'refresh') {
    const token = generateToken(kind === 'access' ? 'at' : 'rt', 'test');
    const grantId = newId();
    await t.dbs.live.prisma.oAuthGrant.create({
      data: {
        id: grantId,
        clientId,
        accountId: w.account.id,
        companyId: w.test.id,
        mode: 'test',
        scope: 'company:read',
      },
    });
    await t.dbs.live.prisma.oAuthToken.create({
      data: {
        id: newId(),
        tokenHash: hashToken(token),
        kind,
        clientId,
        accountId: w.account.id,
        companyId: w.test.id,
        mode: 'test',
        scope: 'company:read',
        grantId,
        expiresAt: new Date(Date.now() + 3600_000),
      },
    });
    return token;
  }

  it('revokes the app’s grants and tokens at once; another app’s tokens keep working', async () => {
    const mk = (name: string) =>
      createOAuthClient(t.dbs, {
        accountId: w.account.id,
        name,
        redirectUris: ['https://x.example/cb'],
        type: 'confidential',
      });
    const [doomed, kept] = [(await mk('Doomed')).client, (await mk('Kept')).client];
    const [access, , other] = [
      await tokenOf(doomed.clientId, 'access'),
      await tokenOf(doomed.clientId, 'refresh'),
      await tokenOf(kept.clientId, 'access'),
    ];
    expect(await me(access)).toBe(200);
    expect(await me(other)).toBe(200);

    const stranger = await createAccountWithKeys(t.dbs);
    await expect(
      deleteOAuthClient(t.dbs, t.services.credentials, { accountId: stranger.account.id, id: doomed.id }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await me(access)).toBe(200);

    const result = await deleteOAuthClient(t.dbs, t.services.credentials, { accountId: w.account.id, id: doomed.id });
    expect(result.revokedTokens).toBe(1);
    expect(await me(access)).toBe(401);
    expect(await me(other)).toBe(200);
    expect(await t.dbs.live.prisma.oAuthClient.count({ where: { id: doomed.id } })).toBe(0);
    expect(await t.dbs.live.prisma.oAuthToken.count({ where: { clientId: doomed.clientId, revokedAt: null } })).toBe(0);
    expect(await t.dbs.live.prisma.oAuthGrant.count({ where: { clientId: doomed.clientId, revokedAt: null } })).toBe(0);
    expect(await t.dbs.live.prisma.oAuthToken.count({ where: { clientId: kept.clientId, revokedAt: null } })).toBe(1);
  });
});
