// Retention (README "Retention", issue 14 point 6): every table that grows with traffic loses
// exactly its stale rows, in both databases, batch after batch; events, live e-mails, spent
// refresh tokens still within their lifetime and pending webhook deliveries stay; request logs go
// after 30 days. The second
// test runs it the way production does: the workers schedule the hourly purge job themselves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/databases.js';
import { newId } from '../../src/ids.js';
import { purgeExpiredRecords, RETENTION_RULES } from '../../src/schema/maintenance/purge-expired-records.js';
import { startWorkers } from '../../src/workers/runtime.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAccountWithKeys } from '../helpers/factories.js';
import { FAST_WORKERS, waitFor } from '../helpers/receiver.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const ago = (ms: number) => new Date(Date.now() - ms);
const ahead = (ms: number) => new Date(Date.now() + ms);

type Table =
  | 'idempotency_records'
  | 'sessions'
  | 'oauth_codes'
  | 'oauth_tokens'
  | 'oauth_grants'
  | 'webhook_attempts'
  | 'webhook_deliveries'
  | 'emails'
  | 'request_logs'
  | 'events';

interface Seeded {
  stale: Record<Table, string[]>;
  fresh: Record<Table, string[]>;
}

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;

beforeAll(async () => {
  t = await createTestApp({ env: FAST_WORKERS });
  w = await createAccountWithKeys(t.dbs);
});
afterAll(async () => {
  await t?.close();
});

/** Stale and fresh rows of every table with a rule (and of events, which have none). */
async function seed(db: Database, companyId: string): Promise<Seeded> {
  const p = db.prisma;
  const tables: Table[] = [
    'idempotency_records',
    'sessions',
    'oauth_codes',
    'oauth_tokens',
    'oauth_grants',
    'webhook_attempts',
    'webhook_deliveries',
    'emails',
    'request_logs',
    'events',
  ];
  const s: Seeded = { stale: {} as Seeded['stale'], fresh: {} as Seeded['fresh'] };
  for (const table of tables) [s.stale[table], s.fresh[table]] = [[], []];
  const note = (stale: boolean, table: Table, id: string) => (stale ? s.stale : s.fresh)[table].push(id);

  // Idempotency records: kept until a day past their expiry. Five stale ones, more than a batch.
  const records: Array<[boolean, Date]> = [
    [true, ago(25 * HOUR)],
    [true, ago(30 * DAY)],
    [true, ago(2 * DAY)],
    [true, ago(24 * HOUR + MIN)],
    [true, ago(3 * DAY)],
    [false, ago(23 * HOUR)],
    [false, ahead(HOUR)],
  ];
  for (const [stale, expiresAt] of records) {
    const id = newId();
    await p.idempotencyRecord.create({
      data: { id, credentialId: `cred-${id}`, key: 'k', requestHash: 'h', state: 'completed', expiresAt },
    });
    note(stale, 'idempotency_records', id);
  }

  // Admin sessions: until they expire.
  for (const [stale, expiresAt] of [
    [true, ago(MIN)],
    [false, ahead(HOUR)],
  ] as const) {
    const id = newId();
    await p.session.create({
      data: { id, tokenHash: `session-${id}`, accountId: w.account.id, csrfToken: 'c', expiresAt },
    });
    note(stale, 'sessions', id);
  }

  // OAuth: codes and tokens until they expire (a spent refresh token too), a grant until
  // nothing refers to it any more.
  const subject = { clientId: 'client-retention', accountId: w.account.id, companyId, mode: db.mode };
  const grant = async (stale: boolean, revoked = false) => {
    const id = newId();
    await p.oAuthGrant.create({
      data: { id, ...subject, scope: 'bookings:read', revokedAt: revoked ? ago(HOUR) : null, createdAt: ago(40 * DAY) },
    });
    note(stale, 'oauth_grants', id);
    return id;
  };
  const code = async (grantId: string, expiresAt: Date, stale: boolean) => {
    const id = newId();
    await p.oAuthCode.create({
      data: {
        id,
        codeHash: `code-${id}`,
        ...subject,
        redirectUri: 'https://app.example/cb',
        scope: 'bookings:read',
        grantId,
        expiresAt,
      },
    });
    note(stale, 'oauth_codes', id);
  };
  const token = async (
    grantId: string,
    kind: 'access' | 'refresh',
    expiresAt: Date,
    stale: boolean,
    extra: { usedAt?: Date; revokedAt?: Date } = {},
  ) => {
    const id = newId();
    await p.oAuthToken.create({
      data: { id, tokenHash: `token-${id}`, kind, ...subject, scope: 'bookings:read', grantId, expiresAt, ...extra },
    });
    note(stale, 'oauth_tokens', id);
  };
  // Every code and token of this grant has expired: all of it goes.
  const dead = await grant(true);
  await code(dead, ago(MIN), true);
  await token(dead, 'access', ago(2 * HOUR), true);
  await token(dead, 'refresh', ago(MIN), true, { usedAt: ago(10 * DAY) });
  // Revoked after a refresh token was reused: the spent refresh token stays until its expiry,
  // and so does its grant.
  const reused = await grant(false, true);
  await token(reused, 'access', ago(HOUR), true, { revokedAt: ago(HOUR) });
  await token(reused, 'refresh', ahead(20 * DAY), false, { usedAt: ago(2 * HOUR), revokedAt: ago(HOUR) });
  // Just approved: its code is still valid.
  const approved = await grant(false);
  await code(approved, ahead(9 * MIN), false);
  // In use: an access token within its hour.
  const inUse = await grant(false);
  await token(inUse, 'access', ahead(HOUR), false);
  await token(inUse, 'refresh', ahead(29 * DAY), false);

  // Webhooks: attempts go after 30 days, a finished delivery with its last attempt; events stay.
  const endpoint = await p.webhookEndpoint.create({
    data: {
      id: newId(),
      companyId,
      url: 'https://hooks.example.com/retention',
      events: ['*'],
      secretEnc: 'x',
      tokenEnc: 'x',
    },
  });
  const delivery = async (o: {
    stale: boolean;
    status: string;
    createdAt: Date;
    attempts: Array<[boolean, Date]>;
    nextAttemptAt?: Date;
  }) => {
    const event = await p.event.create({
      data: {
        id: newId(),
        companyId,
        type: 'booking.created',
        data: {},
        createdAt: ago(400 * DAY),
        dispatchedAt: ago(400 * DAY),
      },
    });
    note(false, 'events', event.id);
    const id = newId();
    await p.webhookDelivery.create({
      data: {
        id,
        companyId,
        endpointId: endpoint.id,
        eventId: event.id,
        status: o.status,
        attemptCount: o.attempts.length,
        nextAttemptAt: o.nextAttemptAt ?? null,
        createdAt: o.createdAt,
      },
    });
    note(o.stale, 'webhook_deliveries', id);
    for (const [stale, createdAt] of o.attempts) {
      const a = await p.webhookAttempt.create({
        data: { id: newId(), companyId, deliveryId: id, statusCode: 500, durationMs: 12, createdAt },
      });
      note(stale, 'webhook_attempts', a.id);
    }
  };
  await delivery({
    stale: true,
    status: 'failed',
    createdAt: ago(40 * DAY),
    attempts: [
      [true, ago(40 * DAY)],
      [true, ago(39 * DAY)],
      [true, ago(31 * DAY)],
    ],
  });
  // Retried by hand yesterday: the old attempt goes, the delivery stays with its new attempt.
  await delivery({
    stale: false,
    status: 'succeeded',
    createdAt: ago(40 * DAY),
    attempts: [
      [true, ago(40 * DAY)],
      [false, ago(DAY)],
    ],
  });
  // Still being retried (due tomorrow): stays, however old.
  await delivery({
    stale: false,
    status: 'pending',
    createdAt: ago(40 * DAY),
    attempts: [],
    nextAttemptAt: ahead(DAY),
  });
  await delivery({ stale: false, status: 'failed', createdAt: ago(29 * DAY), attempts: [[false, ago(29 * DAY)]] });

  // E-mails: the sandbox's log goes after 30 days; live e-mails are kept.
  const email = async (stale: boolean, status: string, createdAt: Date) => {
    const id = newId();
    await p.email.create({
      data: {
        id,
        companyId,
        to: 'dana@example.com',
        from: 'shop@example.com',
        subject: 'Booked',
        text: 't',
        html: '<p>t</p>',
        headers: {},
        status,
        createdAt,
      },
    });
    note(stale, 'emails', id);
  };
  if (db.mode === 'test') {
    await email(true, 'logged', ago(31 * DAY));
    await email(true, 'logged', ago(90 * DAY));
    await email(false, 'logged', ago(29 * DAY));
  } else {
    await email(false, 'sent', ago(90 * DAY));
    await email(false, 'failed', ago(31 * DAY));
  }

  // Request logs, live and sandbox alike: 30 days after the request. Three stale, past a batch.
  const requestLog = async (stale: boolean, createdAt: Date) => {
    const id = newId();
    await p.requestLog.create({
      data: {
        id,
        companyId,
        createdAt,
        method: 'GET',
        route: '/api/v1/me',
        path: '/api/v1/me',
        status: 200,
        durationMs: 1.5,
        requestId: `req_${id}`,
        credentialId: newId(),
        credentialName: 'key',
        credentialPrefix: 'svc_sk_test_…abcd',
        ip: '127.0.0.1',
      },
    });
    note(stale, 'request_logs', id);
  };
  await requestLog(true, ago(31 * DAY));
  await requestLog(true, ago(30 * DAY + MIN));
  await requestLog(true, ago(365 * DAY));
  await requestLog(false, ago(29 * DAY));
  await requestLog(false, ago(MIN));
  return s;
}

/** Which of the seeded ids of each table are still there. */
async function remaining(db: Database, s: Seeded): Promise<Record<Table, string[]>> {
  const ids = (table: Table) => [...s.stale[table], ...s.fresh[table]];
  const pick = (rows: Array<{ id: string }>) => rows.map((r) => r.id).sort();
  const p = db.prisma;
  const where = (table: Table) => ({ where: { id: { in: ids(table) } }, select: { id: true } });
  return {
    idempotency_records: pick(await p.idempotencyRecord.findMany(where('idempotency_records'))),
    sessions: pick(await p.session.findMany(where('sessions'))),
    oauth_codes: pick(await p.oAuthCode.findMany(where('oauth_codes'))),
    oauth_tokens: pick(await p.oAuthToken.findMany(where('oauth_tokens'))),
    oauth_grants: pick(await p.oAuthGrant.findMany(where('oauth_grants'))),
    webhook_attempts: pick(await p.webhookAttempt.findMany(where('webhook_attempts'))),
    webhook_deliveries: pick(await p.webhookDelivery.findMany(where('webhook_deliveries'))),
    emails: pick(await p.email.findMany(where('emails'))),
    request_logs: pick(await p.requestLog.findMany(where('request_logs'))),
    events: pick(await p.event.findMany(where('events'))),
  };
}

const sorted = (s: Seeded, kind: 'stale' | 'fresh') =>
  Object.fromEntries(Object.entries(s[kind]).map(([k, v]) => [k, [...v].sort()]));

describe('retention', () => {
  it('has a rule for every table that grows with traffic, and none for events', () => {
    expect(RETENTION_RULES.map((r) => r.table).sort()).toEqual([
      'emails',
      'idempotency_records',
      'oauth_codes',
      'oauth_grants',
      'oauth_tokens',
      'request_logs',
      'sessions',
      'webhook_attempts',
      'webhook_deliveries',
    ]);
  });

  it('deletes exactly the stale rows of each table in both databases, in batches', async () => {
    const seeded = { live: await seed(t.dbs.live, w.live.id), test: await seed(t.dbs.test, w.test.id) };
    for (const db of [t.dbs.live, t.dbs.test]) {
      const s = seeded[db.mode];
      // Batches of two: every table with more stale rows than that needs several.
      const deleted = await purgeExpiredRecords(db.prisma, { batchSize: 2 });
      for (const rule of RETENTION_RULES)
        expect(deleted[rule.table], `${db.mode} ${rule.table}`).toBe(s.stale[rule.table as Table].length);
      expect(await remaining(db, s)).toEqual(sorted(s, 'fresh'));
    }
    // A second run finds nothing more.
    for (const db of [t.dbs.live, t.dbs.test]) {
      const again = await purgeExpiredRecords(db.prisma, { batchSize: 2 });
      expect(
        Object.values(again).every((n) => n === 0),
        JSON.stringify(again),
      ).toBe(true);
      expect(await remaining(db, seeded[db.mode])).toEqual(sorted(seeded[db.mode], 'fresh'));
    }
  });

  it('runs as the workers’ hourly job, over the live and the sandbox database', async () => {
    const seeded = { live: await seed(t.dbs.live, w.live.id), test: await seed(t.dbs.test, w.test.id) };
    const workers = await startWorkers(t.services);
    try {
      for (const db of [t.dbs.live, t.dbs.test]) {
        const s = seeded[db.mode];
        const staleLeft = async () =>
          Object.entries(await remaining(db, s)).flatMap(([table, ids]) =>
            ids.filter((id) => s.stale[table as Table].includes(id)),
          );
        await waitFor(async () => (await staleLeft()).length === 0, {
          what: `the purge job in the ${db.mode} database`,
          timeoutMs: 20_000,
        });
        expect(await remaining(db, s)).toEqual(sorted(s, 'fresh'));
      }
    } finally {
      await workers.stop();
    }
  });
});
