// `svc listen` and `svc trigger` (docs/cli.md, Sandbox events on your machine) as child
// processes against the real app listening on a socket, with the real workers: `trigger`
// causes each event through the API, the event flows through the outbox and the events
// stream, and `listen` forwards it to a real local receiver, where the `standardwebhooks`
// library verifies it with the secret `listen` printed.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newCredential, writeServerFile } from '../../src/cli/server-file.js';
import { EVENT_TYPES } from '../../src/schema/events/index.js';
import { OUTBOX_EVENT_TYPES as STREAM_EVENTS } from '../../src/webhooks/event-types.js';
import { startWorkers, type Workers } from '../../src/workers/runtime.js';
import { createTestApp, listen, type TestApp } from '../helpers/app.js';
import { embedded, type TestDatabases } from '../helpers/db.js';
import { blankCompany, salon } from '../helpers/domain.js';
import { createAccountWithKeys } from '../helpers/factories.js';
import { FAST_WORKERS, startReceiver, waitFor, type Receiver } from '../helpers/receiver.js';
import { cleanEnv, ROOT, runCli, tempDir, type CliResult } from '../helpers/server-process.js';

interface Listener {
  child: ChildProcessWithoutNullStreams;
  lines: Array<Record<string, unknown>>;
  stderr(): string;
  stop(): Promise<number | null>;
}

/** Starts `svc listen … --json` and resolves once it printed its ready line. */
async function startListen(args: string[], env: Record<string, string | undefined>): Promise<Listener> {
  const child = spawn(process.execPath, [join(ROOT, 'bin/svc.mjs'), 'listen', ...args, '--json'], {
    cwd: ROOT,
    env: cleanEnv(env),
  });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const lines: Array<Record<string, unknown>> = [];
  createInterface({ input: child.stdout }).on('line', (l) => lines.push(JSON.parse(l) as Record<string, unknown>));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await Promise.race([
    waitFor(() => lines.length > 0, { timeoutMs: 20_000, what: 'svc listen to be ready' }),
    exited.then((code) => {
      throw new Error(`svc listen exited (${code}) first:\n${err}`);
    }),
  ]);
  return {
    child,
    lines,
    stderr: () => err,
    stop: async () => {
      child.kill('SIGINT');
      return exited;
    },
  };
}

function json(res: CliResult) {
  expect(res.stderr, res.stderr).toBe('');
  expect(res.code).toBe(0);
  return JSON.parse(res.stdout) as { event: string; companyId: string; made: Record<string, string> };
}

describe.skipIf(embedded())('svc listen and svc trigger', () => {
  let t: TestApp & { db: TestDatabases };
  let workers: Workers;
  let receiver: Receiver;
  let base: string;
  let c: Awaited<ReturnType<typeof blankCompany>>;
  let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
  let env: Record<string, string | undefined>;
  const trigger = (event: string, extra: string[] = []) =>
    runCli(['trigger', event, '--base-url', base, '--json', ...extra], env);
  const eventsOf = async (type: string) => {
    const res = await t.app.inject({ url: `/api/v1/events?type=${type}&limit=100`, headers: c.auth });
    return res.json<{ data: Array<{ _id: string; type: string; data: Record<string, unknown> }> }>().data;
  };

  beforeAll(async () => {
    t = await createTestApp({ env: { ...FAST_WORKERS } });
    base = await listen(t.app);
    w = await createAccountWithKeys(t.dbs);
    c = await blankCompany(t.dbs, w);
    env = { SVC_API_KEY: c.key };
    receiver = await startReceiver();
    workers = await startWorkers(t.services);
  });
  afterAll(async () => {
    await workers?.stop();
    await receiver?.close();
    await t?.close();
  });

  it('streams the same event types the domain has, but ping', () => {
    expect([...STREAM_EVENTS].sort()).toEqual(EVENT_TYPES.filter((e) => e !== 'ping').sort());
  });

  it('listen forwards a triggered booking.created, signed so that standardwebhooks verifies it', async () => {
    const listener = await startListen(['--forward-to', receiver.url, '--base-url', base], env);
    try {
      const ready = listener.lines[0]!;
      expect(ready).toMatchObject({ ready: true, companyId: c.company.id, forwardTo: receiver.url });
      const secret = ready.secret as string;
      expect(secret).toMatch(/^whsec_/);

      const { made } = json(await trigger('booking.created'));
      expect(made.booking).toMatch(/^[0-9a-f]{24}$/);

      const delivery = await waitFor(
        () =>
          receiver.received.find((r) => {
            const body = JSON.parse(r.body) as { event: string; data: { bookingId?: string } };
            return body.event === 'booking.created' && body.data.bookingId === made.booking;
          }),
        { timeoutMs: 20_000, what: 'the forwarded booking.created' },
      );
      // The library a receiver would use accepts it; a wrong secret does not.
      const verified = new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>) as {
        event: string;
        timestamp: number;
        data: { bookingId: string };
      };
      expect(verified.data.bookingId).toBe(made.booking);
      expect(() =>
        new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(
          delivery.body,
          delivery.headers as Record<string, string>,
        ),
      ).toThrow();
      // The same headers a real delivery carries, and the event the API shows.
      const [event] = (await eventsOf('booking.created')).filter((e) => e.data.bookingId === made.booking);
      expect(delivery.headers['x-webhook-id']).toBe(event!._id);
      expect(delivery.headers['x-webhook-event']).toBe('booking.created');
      expect(delivery.headers['x-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(delivery.headers['x-webhook-token']).toMatch(/^whtok_/);

      // One line per forward, with the receiver's status.
      const line = await waitFor(() => listener.lines.find((l) => l.eventId === event!._id));
      expect(line).toMatchObject({ type: 'booking.created', status: 200 });
      expect(typeof line.position).toBe('string');
    } finally {
      expect(await listener.stop()).toBe(0);
    }
  });

  it('listen --events forwards only those types; --after replays from a position', async () => {
    const before = await t.app.inject({ url: '/api/v1/events?limit=1', headers: c.auth });
    const { made } = json(await trigger('customer.updated'));
    const updated = await waitFor(async () => {
      const [e] = (await eventsOf('customer.updated')).filter((x) => x.data.customerId === made.customer);
      const res = e && (await t.app.inject({ url: `/api/v1/events/${e._id}`, headers: c.auth }));
      const position = res && res.json<{ data: { position: number | null } }>().data.position;
      return position ? { id: e._id, position } : null;
    });
    expect(before.statusCode).toBe(200);
    // Started after the event was dispatched: --after one position before it replays it.
    const listener = await startListen(
      [
        '--forward-to',
        receiver.url,
        '--base-url',
        base,
        '--events',
        'customer.updated',
        '--after',
        String(updated.position - 1),
      ],
      env,
    );
    try {
      const line = await waitFor(() => listener.lines.find((l) => l.eventId === updated.id), {
        timeoutMs: 20_000,
        what: 'the replayed customer.updated',
      });
      expect(line).toMatchObject({ type: 'customer.updated', status: 200, position: String(updated.position) });
      // customer.created came just before it, and is not of the types asked for.
      expect(listener.lines.filter((l) => l.type === 'customer.created')).toEqual([]);
    } finally {
      await listener.stop();
    }
  });

  it('trigger causes each event it names through the API, as real objects', async () => {
    // One at a time: each books the next free slot of the same employee.
    for (const event of STREAM_EVENTS) {
      const res = json(await trigger(event));
      expect(res).toMatchObject({ event, companyId: c.company.id });
      const ids = Object.values(res.made);
      expect(ids.length).toBeGreaterThan(0);
      await waitFor(
        async () => (await eventsOf(event)).some((e) => Object.values(e.data).some((v) => ids.includes(v as string))),
        { timeoutMs: 20_000, what: `${event} of ${JSON.stringify(res.made)}` },
      );
    }
    // Its objects are made once and found again by their metadata.
    const employees = await t.app.inject({ url: '/api/v1/employees?limit=100', headers: c.auth });
    expect(employees.json<{ data: Array<{ active: boolean }> }>().data).toEqual([
      expect.objectContaining({ active: false }),
    ]);
    // The clocks it made for the four events that need time are gone: the company is in real time.
    const me = await t.app.inject({ url: '/api/v1/me', headers: c.auth });
    expect(me.json<{ data: { testClockId: string | null } }>().data.testClockId).toBeNull();
    const clocks = await t.app.inject({ url: '/api/v1/test-clocks', headers: c.auth });
    expect(clocks.json<{ data: unknown[] }>().data).toEqual([]);
  }, 120_000);

  it('trigger books the company’s own services and staff, creating only the customer', async () => {
    const own = await blankCompany(t.dbs, w);
    const { employee, service } = await salon(t.app, own.auth);
    const list = async (path: string) =>
      (await t.app.inject({ url: `/api/v1/${path}?limit=100`, headers: own.auth })).json<{
        data: Array<{ _id: string; active: boolean; name: string }>;
      }>().data;
    const res = json(
      await runCli(['trigger', 'booking.rescheduled', '--base-url', base, '--json'], { SVC_API_KEY: own.key }),
    );
    const booking = (await t.app.inject({ url: `/api/v1/bookings/${res.made.booking}`, headers: own.auth })).json<{
      data: { serviceId: string; employeeId: string; status: string };
    }>().data;
    expect(booking).toMatchObject({ serviceId: service._id, employeeId: employee._id, status: 'confirmed' });
    expect((await list('employees')).map((e) => e._id)).toEqual([employee._id]);
    expect((await list('services')).map((e) => e._id)).toEqual([service._id]);

    // What the company’s own cannot take (a webhook reminder) uses fixtures, named as such and
    // inactive once the run is over, so they never show in its calendar or availability.
    json(await runCli(['trigger', 'booking.reminder_due', '--base-url', base, '--json'], { SVC_API_KEY: own.key }));
    const fixtures = [...(await list('employees')), ...(await list('services'))].filter(
      (r) => r._id !== employee._id && r._id !== service._id,
    );
    expect(fixtures.length).toBeGreaterThan(0);
    for (const f of fixtures)
      expect(f, f.name).toMatchObject({ name: expect.stringMatching(/^svc trigger fixture/), active: false });
  }, 120_000);

  it('trigger advances the company’s own test clock when it is attached to one, and leaves it attached', async () => {
    const other = await blankCompany(t.dbs, w);
    const frozenTime = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const clock = (
      await t.app.inject({ method: 'POST', url: '/api/v1/test-clocks', headers: other.auth, payload: { frozenTime } })
    ).json<{ data: { _id: string } }>().data;
    await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/me',
      headers: other.auth,
      payload: { testClockId: clock._id },
    });
    const res = json(
      await runCli(['trigger', 'booking.completed', '--base-url', base, '--json'], { SVC_API_KEY: other.key }),
    );
    expect(res.made.testClock).toBe(clock._id);
    const booking = (await t.app.inject({ url: `/api/v1/bookings/${res.made.booking}`, headers: other.auth })).json<{
      data: { status: string; startTime: string };
    }>().data;
    expect(booking.status).toBe('completed');
    // Booked in the clock's time, a month ahead of the real one.
    expect(Date.parse(booking.startTime)).toBeGreaterThanOrEqual(Date.parse(frozenTime));
    const after = (await t.app.inject({ url: `/api/v1/test-clocks/${clock._id}`, headers: other.auth })).json<{
      data: { frozenTime: string; attached: boolean };
    }>().data;
    expect(after.attached).toBe(true);
    expect(Date.parse(after.frozenTime)).toBeGreaterThan(Date.parse(booking.startTime));
  });

  it('a dropped connection resumes after the last event received: nothing skipped, nothing twice', async () => {
    // A second instance on the same databases and Redis, on a port that stays the same when it restarts.
    const env2 = { ...FAST_WORKERS, REDIS_PREFIX: t.config.REDIS_PREFIX };
    let second = await createTestApp({ db: t.db, env: env2 });
    const port = Number(new URL(await listen(second.app)).port);
    const listener = await startListen(
      ['--forward-to', receiver.url, '--base-url', `http://127.0.0.1:${port}`, '--events', 'customer.created'],
      env,
    );
    try {
      const first = json(await trigger('customer.created')).made.customer;
      await waitFor(() => listener.lines.some((l) => l.type === 'customer.created'), { timeoutMs: 20_000 });
      await second.close();
      await waitFor(() => /lost the connection/.test(listener.stderr()), { timeoutMs: 20_000, what: 'the drop' });
      // Dispatched while listen is cut off.
      const missed = json(await trigger('customer.created')).made.customer;
      second = await createTestApp({ db: t.db, env: env2 });
      await listen(second.app, port);
      await waitFor(() => listener.lines.filter((l) => l.type === 'customer.created').length >= 2, {
        timeoutMs: 30_000,
        what: 'the event dispatched during the drop',
      });
      const forwardedIds = receiver.received
        .map((r) => JSON.parse(r.body) as { event: string; data: { customerId?: string } })
        .filter((b) => b.event === 'customer.created' && [first, missed].includes(b.data.customerId))
        .map((b) => b.data.customerId);
      expect(forwardedIds).toEqual([first, missed]);
      expect(listener.lines.filter((l) => l.type === 'customer.created')).toHaveLength(2);
    } finally {
      await listener.stop();
      await second.close();
    }
  }, 90_000);

  it('refuses live keys, unknown events and bad options before changing anything', async () => {
    const count = async () =>
      (await t.app.inject({ url: '/api/v1/events?limit=100', headers: c.auth })).json<{ data: unknown[] }>().data
        .length;
    const n = await count();
    const live = await runCli(['trigger', 'booking.created', '--base-url', base, '--api-key', w.liveKey.key], env);
    expect(live.code).toBe(1);
    expect(live.stderr).toMatch(/^svc trigger: FORBIDDEN: .*sandbox only/);

    const unknown = await trigger('booking.exploded');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/VALIDATION_ERROR: event: booking\.exploded is not an event/);

    const noKey = await runCli(['trigger', 'booking.created', '--base-url', base], { SVC_API_KEY: undefined });
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toMatch(/api-key: is required/);

    for (const [args, path] of [
      [['--forward-to', 'ftp://example.com/x'], 'forward-to'],
      [['--forward-to', receiver.url, '--events', 'booking.created,nope'], 'events'],
      [['--forward-to', receiver.url, '--secret', 'plain'], 'secret'],
      [['--forward-to', receiver.url, '--after=-3'], 'after'],
    ] as const) {
      const res = await runCli(['listen', ...args, '--base-url', base], env);
      expect(res.code, res.stderr).toBe(1);
      expect(res.stderr).toContain(`VALIDATION_ERROR: ${path}:`);
    }
    const down = await trigger('booking.created', ['--base-url', 'http://127.0.0.1:9']);
    expect(down.code).toBe(75);
    expect(down.stderr).toMatch(/SERVICE_UNAVAILABLE: could not reach the server at http:\/\/127\.0\.0\.1:9/);
    expect(await count()).toBe(n);
  }, 120_000);

  it('finds the server through the data directory when no --base-url is given', async () => {
    const dir = tempDir();
    // What a server holding this embedded data directory writes (this process stands in for
    // its pid; the API origin is the app above).
    const remove = writeServerFile(dir.path, 'http://127.0.0.1:9', newCredential(), base);
    try {
      const res = await runCli(['trigger', 'customer.created', '--json'], { ...env, DATA_DIR: dir.path });
      expect(json(res).companyId).toBe(c.company.id);
    } finally {
      remove();
      dir.remove();
    }
  });
});
