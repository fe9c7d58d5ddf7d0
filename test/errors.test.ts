// One cause, one code (src/errors.ts): each cause is driven through REST and through GraphQL
// and the two answers compared (code, message, details); REST's status is the table's. A
// database outage is also met by an admin page and by the CLI. GraphQL's document limits have
// no REST counterpart: their code and status are checked against the table.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabases } from '../src/db/databases.js';
import { ERROR_STATUS, type ErrorCode } from '../src/errors.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { createTestDatabases, embedded } from './helpers/db.js';
import { createDomainApp, futureHour, post, salon } from './helpers/domain.js';
import { bearer, createAccountWithKeys, unique } from './helpers/factories.js';
import { runCli } from './helpers/server-process.js';
import { startTcpProxy } from './helpers/tcp-proxy.js';

type Res = Awaited<ReturnType<TestApp['app']['inject']>>;
type Inject = { method: 'GET' | 'POST' | 'PATCH'; url: string; payload?: object };

let t: TestApp;
let auth: Record<string, string>;

beforeAll(async () => {
  t = await createDomainApp();
  auth = bearer((await createAccountWithKeys(t.dbs)).testKey.key);
});
afterAll(async () => {
  await t?.close();
});

const rest = (app: TestApp['app'], headers: Record<string, string>, r: Inject) => app.inject({ ...r, headers });
const gql = (app: TestApp['app'], headers: Record<string, string>, query: string) =>
  app.inject({ method: 'POST', url: '/graphql', headers, payload: { query } });

/** REST's error, its status checked against the table. */
function restError(res: Res): { code: ErrorCode; message: string; details?: unknown } {
  const { error } = res.json();
  expect(res.statusCode, res.body).toBe(ERROR_STATUS[error.code as ErrorCode]);
  return error;
}

/** GraphQL's one error as REST would put it: the code from extensions, details beside it. */
function graphqlError(res: Res): { code: ErrorCode; message: string; details?: unknown } {
  const body = res.json();
  expect(body.errors, res.body).toHaveLength(1);
  const [{ message, extensions }] = body.errors;
  return {
    code: extensions.code,
    message,
    ...(extensions.details !== undefined ? { details: extensions.details } : {}),
  };
}

/** The same cause through both transports: the same error, with this code. */
async function expectSameError(code: ErrorCode, viaRest: Promise<Res>, viaGraphQL: Promise<Res>) {
  const [r, g] = [restError(await viaRest), graphqlError(await viaGraphQL)];
  expect(r.code).toBe(code);
  expect(g).toEqual(r);
  return r;
}

describe('one cause, one code over REST and GraphQL', () => {
  it('a validation error', async () => {
    const error = await expectSameError(
      'VALIDATION_ERROR',
      rest(t.app, auth, { method: 'PATCH', url: '/api/v1/me', payload: { timezone: 'Mars/Olympus_Mons' } }),
      gql(t.app, auth, 'mutation { updateMe(input: { timezone: "Mars/Olympus_Mons" }) { name } }'),
    );
    expect(error.details).toEqual([expect.objectContaining({ path: 'timezone' })]);
  });

  it('a record that does not exist', async () => {
    await expectSameError(
      'NOT_FOUND',
      rest(t.app, auth, { method: 'GET', url: '/api/v1/bookings/0123456789abcdef01234567' }),
      gql(t.app, auth, '{ booking(id: "0123456789abcdef01234567") { _id } }'),
    );
  });

  it('a conflict: an e-mail taken in the company', async () => {
    const email = `taken-${unique()}@example.com`;
    await post(t.app, '/api/v1/customers', auth, { name: 'First', email });
    await expectSameError(
      'CONFLICT',
      rest(t.app, auth, { method: 'POST', url: '/api/v1/customers', payload: { name: 'Second', email } }),
      gql(t.app, auth, `mutation { createCustomer(input: { name: "Second", email: "${email}" }) { _id } }`),
    );
  });

  it('a state transition that is not allowed: confirming a cancelled booking', async () => {
    const { service } = await salon(t.app, auth);
    const booking = await post(t.app, '/api/v1/bookings', auth, {
      serviceId: service._id,
      startTime: futureHour(3),
      customer: { name: 'Ada', email: `ada-${unique()}@example.com` },
    });
    await post(t.app, `/api/v1/bookings/${booking._id}/cancel`, auth, {});
    const error = await expectSameError(
      'INVALID_STATE_TRANSITION',
      rest(t.app, auth, { method: 'POST', url: `/api/v1/bookings/${booking._id}/confirm`, payload: {} }),
      gql(t.app, auth, `mutation { confirmBooking(id: "${booking._id}") { _id } }`),
    );
    expect(error.details).toEqual({ from: 'cancelled', to: 'confirmed' });
  });

  it('an error nobody foresaw (a table gone from under the app) is INTERNAL_ERROR and says nothing of it', async () => {
    const db = t.dbs.test.prisma;
    await db.$executeRawUnsafe('ALTER TABLE services RENAME TO services_gone');
    try {
      const error = await expectSameError(
        'INTERNAL_ERROR',
        rest(t.app, auth, { method: 'GET', url: '/api/v1/services' }),
        gql(t.app, auth, '{ services { data { _id } } }'),
      );
      expect(JSON.stringify(error)).not.toMatch(/services_gone|relation|prisma|42P01/i);
    } finally {
      await db.$executeRawUnsafe('ALTER TABLE services_gone RENAME TO services');
    }
  });

  // The proxy lets this test take the database away from one app of its own; the shared one
  // stays up for everyone else.
  it.skipIf(embedded())(
    'a database outage, met by the operation itself (the credential is cached), by an admin page and by the CLI',
    async () => {
      const db = await createTestDatabases();
      const url = new URL(db.url!);
      const proxy = await startTcpProxy(url);
      url.port = String(proxy.port);
      const dbs = await openDatabases({
        DATABASE_URL: url.toString(),
        SANDBOX_SCHEMA: 'sandbox',
        DATABASE_POOL_SIZE: 2,
        DATA_DIR: '.data',
      });
      const down = await createTestApp({
        db: { dbs, url: url.toString(), drop: async () => undefined },
        env: { CREDENTIAL_CACHE_TTL_SECONDS: '300' },
      });
      try {
        const k = await createAccountWithKeys(db.dbs);
        const key = bearer(k.liveKey.key);
        // The credential is resolved and cached while the database is there...
        expect((await gql(down.app, key, '{ me { _id } }')).json()).toEqual({ data: { me: { _id: k.live.id } } });
        await proxy.close();
        // ...so the outage meets the resolver, not the authentication: GraphQL answers an error
        // at the field's path, not the hook's envelope.
        const viaGraphQL = gql(down.app, key, '{ customers { data { _id } } }');
        expect((await viaGraphQL).json().errors[0].path).toEqual(['customers']);
        const error = await expectSameError(
          'SERVICE_UNAVAILABLE',
          rest(down.app, key, { method: 'GET', url: '/api/v1/customers' }),
          viaGraphQL,
        );
        expect(JSON.stringify(error)).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|terminated|prisma/i);

        // The admin area looks the session up in the database: an error page of the same status.
        const admin = await down.app.inject({
          method: 'GET',
          url: '/admin/test',
          cookies: { svc_session: 'a-session-token' },
        });
        expect(admin.statusCode).toBe(ERROR_STATUS.SERVICE_UNAVAILABLE);
        expect(admin.headers['content-type']).toMatch(/^text\/html/);
        expect(admin.headers['retry-after']).toBe('5');
        expect(admin.body).toContain('Service unavailable');

        // The CLI on the same unreachable database: the code on stderr, exit 75 (EX_TEMPFAIL).
        const cli = await runCli(['key', 'revoke', '--key-id', '0123456789abcdef01234567', '--json'], {
          DATABASE_URL: url.toString(),
        });
        expect(cli.stdout).toBe('');
        expect(cli.stderr).toContain('svc key revoke: SERVICE_UNAVAILABLE: ');
        expect(cli.code).toBe(75);
      } finally {
        await down.close();
        await dbs.close();
        await proxy.close().catch(() => undefined);
        await db.drop();
      }
      // A CLI process of its own, which starts in seconds on a busy machine.
    },
    120_000,
  );
});

describe("GraphQL's document limits: refused before execution with the table's code and status", () => {
  const nested = (levels: number) => `{ me { ${'... on Company { '.repeat(levels)}name${' }'.repeat(levels)} } }`;
  const cases: Array<[string, string, ErrorCode]> = [
    ['too deep', nested(9), 'QUERY_TOO_DEEP'],
    [
      'too many aliases',
      `{ ${Array.from({ length: 50 }, (_, i) => `a${i}: me { name }`).join(' ')} }`,
      'TOO_MANY_ALIASES',
    ],
    [
      'too costly',
      '{ bookings(first: 100) { nodes { customer { bookings(first: 100) { nodes { payments(first: 100) { nodes { _id } } } } } } } }',
      'QUERY_TOO_COMPLEX',
    ],
    ['too many tokens', `{ me { ${'name '.repeat(3000)} } }`, 'QUERY_TOO_COMPLEX'],
    ['too many directives', `{ me { name ${'@include(if: true) '.repeat(60)} } }`, 'QUERY_TOO_COMPLEX'],
  ];
  for (const [name, query, code] of cases) {
    it(`${name}: ${code}`, async () => {
      const res = await gql(t.app, auth, query);
      const body = res.json();
      expect(body.data ?? null).toBeNull();
      expect(graphqlError(res).code).toBe(code);
      expect(res.statusCode).toBe(ERROR_STATUS[code]);
    });
  }
});
