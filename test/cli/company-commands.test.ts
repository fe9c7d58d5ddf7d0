// `svc bookings list|show|cancel`, `svc webhooks list|test|retry` and `svc events tail`
// (docs/cli.md) as child processes against this file's PostgreSQL database: each answers what
// the API answers for the same records, refuses bad options naming them (exit 1, nothing
// changed), and `events tail --follow` prints an event dispatched while it runs.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkers, type Workers } from '../../src/workers/runtime.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { embedded, type TestDatabases } from '../helpers/db.js';
import { blankCompany, futureHour, ok, post, salon, type World } from '../helpers/domain.js';
import { createAccountWithKeys } from '../helpers/factories.js';
import { FAST_WORKERS, startReceiver, waitFor, type Receiver } from '../helpers/receiver.js';
import { cleanEnv, ROOT, runCli, type CliResult } from '../helpers/server-process.js';

function json(res: CliResult) {
  expect(res.stderr, res.stderr).toBe('');
  expect(res.code).toBe(0);
  expect(res.stdout.trimEnd().split('\n')).toHaveLength(1);
  return JSON.parse(res.stdout) as Record<string, unknown> & { data: Array<Record<string, unknown>> };
}

describe.skipIf(embedded())('svc commands on a company', () => {
  let t: TestApp & { db: TestDatabases };
  let w: World;
  let c: Awaited<ReturnType<typeof blankCompany>>;
  let env: Record<string, string | undefined>;
  let workers: Workers;
  let receiver: Receiver;
  let bookingId: string;
  let start: string;
  const svc = (...args: string[]) => runCli([...args, '--company', c.company.id, '--json'], env);

  beforeAll(async () => {
    t = await createTestApp({ env: { WEBHOOK_SANDBOX_ALLOW_PRIVATE: 'true', ...FAST_WORKERS } });
    w = await createAccountWithKeys(t.dbs);
    c = await blankCompany(t.dbs, w);
    env = { DATABASE_URL: t.db.url, REDIS_URL: t.config.REDIS_URL, REDIS_PREFIX: t.config.REDIS_PREFIX };
    receiver = await startReceiver();
    const { employee, service } = await salon(t.app, c.auth);
    start = futureHour(3);
    const booking = await post(t.app, '/api/v1/bookings', c.auth, {
      serviceId: service._id,
      employeeId: employee._id,
      startTime: start,
      customer: { name: 'Ada Lovelace', email: 'ada@example.com' },
    });
    bookingId = booking._id;
    await post(t.app, '/api/v1/webhook-endpoints', c.auth, { url: receiver.url, events: ['*'] });
    workers = await startWorkers(t.services);
    await workers.idle();
  });
  afterAll(async () => {
    await workers?.stop();
    await receiver?.close();
    await t?.close();
  });

  it('bookings list: the window, the status filter, the API’s ids', async () => {
    const day = start.slice(0, 10);
    const listed = json(await svc('bookings', 'list', '--from', day, '--to', `${day}T23:59:59Z`));
    expect(listed.data).toEqual([
      expect.objectContaining({ _id: bookingId, status: 'confirmed', startTime: start, customer: 'Ada Lovelace' }),
    ]);
    const none = json(await svc('bookings', 'list', '--from', day, '--status', 'cancelled', '--status', 'pending'));
    expect(none.data).toEqual([]);
    const human = await runCli(['bookings', 'list', '--company', c.company.id, '--from', day], env);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(new RegExp(`^START +STATUS +SERVICE +CUSTOMER +ID\\n${start} +confirmed +Cut +Ada`));
  });

  it('bookings show: the booking with its customer, service and events', async () => {
    const shown = json(await svc('bookings', 'show', '--booking', bookingId));
    const api = ok(await t.app.inject({ method: 'GET', url: `/api/v1/bookings/${bookingId}`, headers: c.auth }));
    expect(shown).toMatchObject({
      _id: api._id,
      status: api.status,
      startTime: api.startTime,
      endTime: api.endTime,
      customer: { _id: api.customerId, name: 'Ada Lovelace', email: 'ada@example.com' },
      service: { _id: api.serviceId, name: 'Cut' },
    });
    expect(shown.events).toEqual([expect.objectContaining({ type: 'booking.created' })]);
  });

  it('events tail: position order, --after, --type', async () => {
    const api = ok(await t.app.inject({ method: 'GET', url: '/api/v1/events?after=0&limit=100', headers: c.auth }));
    const tail = json(await svc('events', 'tail', '--limit', '100'));
    expect(tail.data.map((e) => e._id)).toEqual(api.map((e: { _id: string }) => e._id));
    expect(tail.data.map((e) => Number(e.position))).toEqual(api.map((e: { position: number }) => e.position));
    const last = tail.data.at(-1)!.position as string;
    expect(json(await svc('events', 'tail', '--after', last)).data).toEqual([]);
    const created = json(await svc('events', 'tail', '--type', 'booking.created'));
    expect(created.data.map((e) => e.type)).toEqual(['booking.created']);
  });

  it(
    'with only SVC_API_KEY, bookings list and events tail use the key’s company (as listen and trigger do)',
    { timeout: 120_000 },
    async () => {
      const keyEnv = { ...env, SVC_API_KEY: c.key };
      const day = start.slice(0, 10);
      // Side by side: each is a process of its own.
      const [byKey, byCompany, tail, tailByCompany, byOption, bad, neither] = await Promise.all([
        runCli(['bookings', 'list', '--from', day, '--json'], keyEnv),
        svc('bookings', 'list', '--from', day),
        runCli(['events', 'tail', '--json'], keyEnv),
        svc('events', 'tail'),
        runCli(['events', 'tail', '--api-key', c.key, '--json'], env),
        runCli(['bookings', 'list'], { ...env, SVC_API_KEY: 'svc_sk_test_notakey' }),
        runCli(['bookings', 'list'], env),
      ]);
      expect(json(byKey)).toEqual(json(byCompany));
      expect(json(byKey).data.map((b) => b._id)).toEqual([bookingId]);
      expect(json(tail)).toEqual(json(tailByCompany));
      expect(json(tail).data.length).toBeGreaterThan(0);
      // --api-key does the same; a key that is not one is refused naming it, nothing printed.
      expect(json(byOption)).toEqual(json(tail));
      expect(bad.code).toBe(1);
      expect(bad.stdout).toBe('');
      expect(bad.stderr).toMatch(/^svc bookings list: VALIDATION_ERROR: api-key: is not a valid API key/);
      // Neither: --company is asked for, once.
      expect(neither.code).toBe(1);
      expect(neither.stderr).toBe('svc bookings list: VALIDATION_ERROR: --company is required\n');
    },
  );

  it('webhooks list, test and retry', async () => {
    const listed = json(await svc('webhooks', 'list'));
    expect(listed.data).toHaveLength(1);
    const endpoint = listed.data[0]!;
    expect(endpoint).toMatchObject({ url: receiver.url, enabled: true });
    expect(endpoint.deliveries).toEqual(
      expect.arrayContaining([expect.objectContaining({ eventType: 'booking.created', status: 'succeeded' })]),
    );
    const before = receiver.received.length;
    const ping = json(await svc('webhooks', 'test', '--endpoint', endpoint._id as string));
    expect(ping).toMatchObject({ eventType: 'ping' });
    await waitFor(() => receiver.received.length > before, { what: 'the ping' });
    expect(receiver.received.at(-1)!.headers['webhook-id']).toBe(ping.eventId);
    await workers.idle();
    const retried = json(await svc('webhooks', 'retry', '--delivery', ping._id as string));
    expect(retried).toMatchObject({ _id: ping._id, eventId: ping.eventId });
    await waitFor(() => receiver.received.length > before + 1, { what: 'the retried ping' });
    expect(receiver.received.at(-1)!.headers['webhook-id']).toBe(ping.eventId);
  });

  it('bookings cancel: the same cancel as the API, once', async () => {
    const cancelled = json(await svc('bookings', 'cancel', '--booking', bookingId, '--reason', 'staff ill'));
    expect(cancelled).toMatchObject({ _id: bookingId, status: 'cancelled', cancelReason: 'staff ill' });
    const api = ok(await t.app.inject({ method: 'GET', url: `/api/v1/bookings/${bookingId}`, headers: c.auth }));
    expect(api.status).toBe('cancelled');
    const again = await svc('bookings', 'cancel', '--booking', bookingId);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^svc bookings cancel: INVALID_STATE_TRANSITION: /);
  });

  it('bad options: exit 1, stderr names the option once, nothing on stdout', { timeout: 120_000 }, async () => {
    const cases: Array<[string, string[], RegExp]> = [
      ['bookings list', ['--limit', '0'], /VALIDATION_ERROR: .*limit: must be a whole number from 1 to 500/],
      ['bookings list', ['--from', 'yesterday'], /VALIDATION_ERROR: .*from: must be an ISO 8601 date or date-time/],
      ['bookings list', ['--status', 'done'], /VALIDATION_ERROR: .*status: must be one of/],
      ['bookings show', ['--booking', 'nope'], /NOT_FOUND/],
      ['events tail', ['--after', '-1'], /VALIDATION_ERROR: .*after: must be an event position/],
      ['events tail', ['--type', 'booking.nope'], /VALIDATION_ERROR: .*type: booking.nope is not an event type/],
      ['webhooks retry', ['--delivery', '0123456789abcdef01234567'], /NOT_FOUND/],
    ];
    // Side by side: each is a process of its own.
    const results = await Promise.all(cases.map(([command, args]) => svc(...command.split(' '), ...args)));
    results.forEach((res, i) => {
      const [command, args, message] = cases[i]!;
      expect(res.code, `${command} ${args.join(' ')}`).toBe(1);
      expect(res.stdout).toBe('');
      expect(res.stderr).toMatch(message);
      // One line, saying each thing once (not the message, then the same as JSON).
      expect(res.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(res.stderr).not.toContain('"message"');
    });
  });

  it('events tail --follow prints an event dispatched while it runs, one JSON line each, until SIGINT', async () => {
    const tail = json(await svc('events', 'tail', '--limit', '1'));
    const child = spawn(
      process.execPath,
      [join(ROOT, 'bin/svc.mjs'), 'events', 'tail', '--company', c.company.id, '--follow', '--json', '--limit', '1'],
      { cwd: ROOT, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    const lines = () => out.split('\n').filter(Boolean);
    const seen = (n: number) =>
      new Promise<void>((resolve, reject) => {
        const check = () => lines().length >= n && resolve();
        child.stdout.on('data', (d) => ((out += d), check()));
        child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
        check();
      });
    await seen(1); // the latest event, as without --follow
    expect(JSON.parse(lines()[0]!)).toEqual(tail.data[0]);
    await post(t.app, '/api/v1/customers', c.auth, { name: 'Bo', email: 'bo@example.com' });
    await workers.idle();
    await seen(2);
    const next = JSON.parse(lines()[1]!) as { type: string; position: string };
    expect(next.type).toBe('customer.created');
    expect(BigInt(next.position)).toBeGreaterThan(BigInt(tail.data[0]!.position as string));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  });
});
