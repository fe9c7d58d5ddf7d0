// Delivery end to end on the real app, real PostgreSQL, real Redis (BullMQ) and a real local
// receiver: the body and headers of docs/webhooks.md, signatures checked by hand and by the
// `standardwebhooks` library, retries with the same X-Webhook-Id, Retry-After, 410, rotation.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '../../src/crypto/secret-box.js';
import { recordEvent, type OutboxEventType } from '../../src/schema/events/events.js';
import { rotateWebhookSecret } from '../../src/schema/webhooks/rotate-webhook-secret.js';
import { startWorkers, type Workers } from '../../src/workers/runtime.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { bearer, createAccountWithKeys } from '../helpers/factories.js';
import { FAST_WORKERS, ok, startReceiver, waitFor, type Receiver } from '../helpers/receiver.js';

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
let workers: Workers;

beforeAll(async () => {
  t = await createTestApp({ env: FAST_WORKERS });
  w = await createAccountWithKeys(t.dbs);
  workers = await startWorkers(t.services);
});
afterAll(async () => {
  await workers?.stop();
  await t?.close();
});

type World = Awaited<ReturnType<typeof createAccountWithKeys>>;

async function createEndpoint(url: string, events: string[] = ['*'], world: World = w) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/webhook-endpoints',
    headers: bearer(world.testKey.key),
    payload: { url, events },
  });
  expect(res.statusCode).toBe(200);
  return res.json().data as { _id: string; secret: string; token: string };
}

async function emit(
  type: OutboxEventType,
  data: Record<string, unknown> = { bookingId: 'b1', status: 'confirmed' },
  world: World = w,
) {
  return t.dbs.test.prisma.$transaction((tx) => recordEvent(tx, { companyId: world.test.id, type, data }));
}

/** The receiver's side, written by hand as the README shows it. */
function verifyByHand(
  header: string,
  rawBody: string,
  secret: string,
  nowSec = Math.floor(Date.now() / 1000),
): boolean {
  const fields = header.split(',').map((kv) => kv.split('='));
  const t = Number(fields.find(([k]) => k === 't')?.[1]);
  if (!Number.isInteger(t) || Math.abs(nowSec - t) > 300) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${t}.${rawBody}`).digest();
  return fields.some(([k, v]) => k === 'v1' && v?.length === 64 && timingSafeEqual(Buffer.from(v, 'hex'), expected));
}

describe('a delivery', () => {
  let rx: Receiver;
  let ep: { _id: string; secret: string; token: string };
  // The delivery of the first test's event. Not simply the first received: the endpoint takes
  // every event, and the account's sample bookings (docs/sandbox.md) may be relayed after it
  // was made.
  let first: { headers: Record<string, unknown>; body: string };
  beforeAll(async () => {
    rx = await startReceiver();
    ep = await createEndpoint(rx.url);
  });
  afterAll(async () => {
    await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/webhook-endpoints/${ep._id}`,
      headers: bearer(w.testKey.key),
    });
    await rx.close();
  });

  it('is {event, timestamp, data} with the documented headers, and both signatures verify', async () => {
    const event = await emit('booking.created', {
      bookingId: 'abc',
      customerId: 'c1',
      startTime: '2026-03-29T09:00:00.000Z',
      endTime: '2026-03-29T10:00:00.000Z',
      status: 'confirmed',
    });
    const got = await waitFor(() => rx.received.find((r) => r.headers['x-webhook-id'] === event.id), {
      what: 'the delivery',
    });
    first = got;
    expect(JSON.parse(got.body)).toEqual({
      event: 'booking.created',
      timestamp: event.createdAt.getTime(),
      data: {
        bookingId: 'abc',
        customerId: 'c1',
        startTime: '2026-03-29T09:00:00.000Z',
        endTime: '2026-03-29T10:00:00.000Z',
        status: 'confirmed',
      },
    });
    expect(Object.keys(JSON.parse(got.body))).toEqual(['event', 'timestamp', 'data']);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['x-webhook-event']).toBe('booking.created');
    expect(got.headers['x-webhook-token']).toBe(ep.token);
    expect(got.headers['webhook-id']).toBe(event.id);
    expect(got.headers['x-signature']).toMatch(/^t=\d{10},v1=[0-9a-f]{64}$/);
    expect(got.headers['webhook-timestamp']).toBe(/t=(\d+)/.exec(String(got.headers['x-signature']))![1]);

    expect(verifyByHand(String(got.headers['x-signature']), got.body, ep.secret)).toBe(true);
    const verified = new Webhook(ep.secret).verify(got.body, got.headers as Record<string, string>);
    expect(verified).toEqual(JSON.parse(got.body));
  });

  it('fails verification when tampered, under a wrong secret, or older than 5 minutes', async () => {
    const got = first;
    const header = String(got.headers['x-signature']);
    const tampered = got.body.replace('abc', 'abd');
    const wrong = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    expect(verifyByHand(header, tampered, ep.secret)).toBe(false);
    expect(verifyByHand(header, got.body, wrong)).toBe(false);
    expect(verifyByHand(header, got.body, ep.secret, Math.floor(Date.now() / 1000) + 301)).toBe(false);
    const sw = new Webhook(ep.secret);
    const headers = got.headers as Record<string, string>;
    expect(() => sw.verify(tampered, headers)).toThrow();
    expect(() => new Webhook(wrong).verify(got.body, headers)).toThrow();
    // The library's own 5-minute window: the same signature, presented 6 minutes later.
    const old = String(Number(headers['webhook-timestamp']) - 360);
    const resigned = createHmac('sha256', Buffer.from(ep.secret.slice(6), 'base64'))
      .update(`${headers['webhook-id']}.${old}.${got.body}`)
      .digest('base64');
    expect(() =>
      sw.verify(got.body, { ...headers, 'webhook-timestamp': old, 'webhook-signature': `v1,${resigned}` }),
    ).toThrow(/too old/i);
  });

  it('during a rotation carries both signatures, and each secret verifies', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/webhook-endpoints/${ep._id}/rotate-secret`,
      headers: bearer(w.testKey.key),
    });
    expect(res.statusCode).toBe(200);
    const rotated = res.json().data;
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated.secret).not.toBe(ep.secret);
    expect(Date.parse(rotated.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    const event = await emit('booking.cancelled');
    const got = await waitFor(() => rx.received.find((r) => r.headers['x-webhook-id'] === event.id), {
      what: 'the delivery',
    });
    expect(String(got.headers['x-signature'])).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [rotated.secret, ep.secret]) {
      expect(verifyByHand(String(got.headers['x-signature']), got.body, secret)).toBe(true);
      expect(new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).toBeTruthy();
    }
    ep = { ...ep, secret: rotated.secret };
  });
});

describe('retries', () => {
  it('receiver down, then up: every event arrives, with the same X-Webhook-Id on each attempt', async () => {
    const rx = await startReceiver((_r, res) => res.writeHead(503).end('down for maintenance'));
    const ep = await createEndpoint(rx.url, ['booking.created']);
    const events = await Promise.all(
      Array.from({ length: 5 }, (_, i) => emit('booking.created', { bookingId: `down-${i}` })),
    );
    // Two failed attempts each, then the receiver comes back.
    await waitFor(
      () => events.every((e) => rx.received.filter((r) => r.headers['x-webhook-id'] === e.id).length >= 2),
      { what: 'two failed attempts each' },
    );
    rx.respond(ok);
    const deliveries = await waitFor(
      async () => {
        const rows = await t.dbs.test.prisma.webhookDelivery.findMany({ where: { endpointId: ep._id } });
        return rows.length === 5 && rows.every((d) => d.status === 'succeeded') ? rows : null;
      },
      { what: 'all deliveries to succeed' },
    );
    for (const e of events) {
      const attempts = rx.received.filter((r) => r.headers['x-webhook-id'] === e.id);
      expect(attempts.length).toBeGreaterThanOrEqual(3);
      expect(new Set(attempts.map((a) => a.body)).size).toBe(1);
      expect(new Set(attempts.map((a) => a.headers['webhook-id'])).size).toBe(1);
    }
    expect(deliveries.every((d) => d.attemptCount >= 3 && d.lastStatusCode === 200)).toBe(true);

    // The log shows each attempt with its status, duration and excerpt.
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v1/webhook-endpoints/${ep._id}/deliveries?limit=2`,
      headers: bearer(w.testKey.key),
    });
    const body = res.json();
    expect(body.data).toHaveLength(2);
    expect(body.meta.pagination).toEqual({ limit: 2, hasMore: true, nextCursor: expect.any(String) });
    const d = body.data[0];
    expect(d.attempts[0]).toEqual({
      _id: expect.any(String),
      statusCode: 503,
      durationMs: expect.any(Number),
      responseExcerpt: 'down for maintenance',
      error: 'HTTP 503',
      createdAt: expect.any(String),
    });
    expect(d.attempts.at(-1)).toMatchObject({ statusCode: 200, responseExcerpt: 'ok', error: null });
    await rx.close();
  });

  it('honours Retry-After', async () => {
    let first = true;
    const rx = await startReceiver((_r, res) => {
      if (first) {
        first = false;
        res.writeHead(429, { 'retry-after': '2' }).end();
      } else res.writeHead(200).end();
    });
    await createEndpoint(rx.url, ['customer.created']);
    const event = await emit('customer.created', { customerId: 'c' });
    await waitFor(() => rx.received.filter((r) => r.headers['x-webhook-id'] === event.id).length === 2, {
      what: 'the retry',
    });
    const [a, b] = rx.received;
    // The schedule's first retry is ~0.3 s; the receiver asked for 2 s.
    expect(b!.at - a!.at).toBeGreaterThanOrEqual(1900);
    await rx.close();
  });

  it('410 Gone disables the endpoint and stops deliveries', async () => {
    const rx = await startReceiver((_r, res) => res.writeHead(410).end('gone'));
    const ep = await createEndpoint(rx.url, ['customer.updated']);
    const event = await emit('customer.updated', { customerId: 'c' });
    const endpoint = await waitFor(
      async () => {
        const e = await t.dbs.test.prisma.webhookEndpoint.findUnique({ where: { id: ep._id } });
        return e && !e.enabled ? e : null;
      },
      { what: 'the endpoint to be disabled' },
    );
    expect(endpoint.disabledReason).toMatch(/410/);
    const delivery = await t.dbs.test.prisma.webhookDelivery.findFirstOrThrow({
      where: { eventId: event.id, endpointId: ep._id },
    });
    expect(delivery).toMatchObject({ status: 'failed', attemptCount: 1, nextAttemptAt: null });
    await emit('customer.updated', { customerId: 'c2' });
    await new Promise((r) => setTimeout(r, 500));
    expect(rx.received).toHaveLength(1);
    const got = await t.app.inject({
      method: 'GET',
      url: `/api/v1/webhook-endpoints/${ep._id}`,
      headers: bearer(w.testKey.key),
    });
    expect(got.json().data).toMatchObject({ enabled: false, disabledReason: expect.stringMatching(/410/) });
    await rx.close();
  });

  it('gives up after the schedule and marks the delivery failed; a manual retry sends it again with the same id', async () => {
    const rx = await startReceiver((_r, res) => res.writeHead(500).end());
    const ep = await createEndpoint(rx.url, ['class.cancelled']);
    const event = await emit('class.cancelled', { classId: 'x' });
    const failed = await waitFor(
      async () => {
        const d = await t.dbs.test.prisma.webhookDelivery.findFirst({
          where: { eventId: event.id, endpointId: ep._id },
        });
        return d?.status === 'failed' ? d : null;
      },
      { what: 'the schedule to run out', timeoutMs: 15_000 },
    );
    expect(failed.attemptCount).toBe(6); // the first try plus five scheduled retries
    rx.respond(ok);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/webhook-deliveries/${failed.id}/retry`,
      headers: bearer(w.testKey.key),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      _id: failed.id,
      status: 'pending',
      eventId: event.id,
      event: 'class.cancelled',
    });
    await waitFor(
      async () =>
        (await t.dbs.test.prisma.webhookDelivery.findUnique({ where: { id: failed.id } }))?.status === 'succeeded',
      { what: 'the manual retry' },
    );
    expect(new Set(rx.received.map((r) => r.headers['x-webhook-id']))).toEqual(new Set([event.id]));
    expect(rx.received).toHaveLength(7);
    await rx.close();
  });
});

describe('routing', () => {
  it('an endpoint gets only the events it subscribed to; the test button pings only it', async () => {
    const a = await startReceiver();
    const b = await startReceiver();
    const epA = await createEndpoint(a.url, ['payment.succeeded']);
    await createEndpoint(b.url, ['payment.failed', 'payment.refunded']);
    const e1 = await emit('payment.succeeded', { paymentId: 'p1' });
    const e2 = await emit('payment.failed', { paymentId: 'p2' });
    await waitFor(() => a.received.length >= 1 && b.received.length >= 1);
    const ping = await t.app.inject({
      method: 'POST',
      url: `/api/v1/webhook-endpoints/${epA._id}/test`,
      headers: bearer(w.testKey.key),
    });
    expect(ping.statusCode).toBe(200);
    // The worker may deliver it before this answer is written, so its status and attempts are
    // whatever they were at that instant; what it was delivered is checked below.
    expect(ping.json().data).toMatchObject({ endpointId: epA._id, event: 'ping' });
    await waitFor(() => a.received.length === 2, { what: 'the ping' });
    await new Promise((r) => setTimeout(r, 300));
    expect(a.received.map((r) => r.headers['x-webhook-event'])).toEqual(['payment.succeeded', 'ping']);
    expect(a.received[0]!.headers['x-webhook-id']).toBe(e1.id);
    expect(JSON.parse(a.received[1]!.body)).toMatchObject({ event: 'ping', data: { endpointId: epA._id } });
    expect(b.received.map((r) => r.headers['x-webhook-id'])).toEqual([e2.id]);
    await Promise.all([a.close(), b.close()]);
  });
});

describe('by hand: the test button and retries', () => {
  let own: World;
  beforeAll(async () => {
    // A company of its own: no endpoint of the other tests hears these events.
    own = await createAccountWithKeys(t.dbs);
  });
  const retry = (id: string) =>
    t.app.inject({ method: 'POST', url: `/api/v1/webhook-deliveries/${id}/retry`, headers: bearer(own.testKey.key) });

  it('a test ping and a manual retry go out at once, not at the next sweep', async () => {
    let status = 500;
    const rx = await startReceiver((_r, res) => res.writeHead(status).end());
    const ep = await createEndpoint(rx.url, ['booking.created'], own);
    const sent = Date.now();
    const ping = await t.app.inject({
      method: 'POST',
      url: `/api/v1/webhook-endpoints/${ep._id}/test`,
      headers: bearer(own.testKey.key),
    });
    expect(ping.statusCode).toBe(200);
    const got = await waitFor(() => rx.received.find((r) => r.headers['x-webhook-event'] === 'ping'), {
      what: 'the ping',
    });
    // The sweep only picks deliveries due 2 s ago or more: under a second means the job was
    // enqueued on the commit.
    expect(got.at - sent).toBeLessThan(1000);

    // The ping failed (500) and waits for its scheduled retry; make it fail for good first.
    const delivery = await waitFor(
      async () => {
        const d = await t.dbs.test.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: ping.json().data._id } });
        return d.status === 'failed' ? d : null;
      },
      { what: 'the ping to fail for good', timeoutMs: 15_000 },
    );
    status = 200;
    const before = rx.received.length;
    const retried = Date.now();
    const res = await retry(delivery.id);
    expect(res.statusCode).toBe(200);
    const again = await waitFor(() => rx.received[before], { what: 'the retried ping' });
    expect(again.at - retried).toBeLessThan(1000);
    expect(again.headers['x-webhook-id']).toBe(got.headers['x-webhook-id']);
    await rx.close();
  });

  it('a retry while an attempt is in flight is a 409 CONFLICT: no second attempt beside it, every attempt counted', async () => {
    // Slow but inside the timeout (1.5 s): the attempt holds its lease for a while.
    const rx = await startReceiver((_r, res) => setTimeout(() => res.writeHead(200).end('slow ok'), 800));
    await createEndpoint(rx.url, ['customer.created'], own);
    const event = await emit('customer.created', { customerId: 'c-lease' }, own);
    await waitFor(() => rx.received.length === 1, { what: 'the attempt to be in flight' });
    const delivery = await t.dbs.test.prisma.webhookDelivery.findFirstOrThrow({ where: { eventId: event.id } });
    const res = await retry(delivery.id);
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({
      code: 'CONFLICT',
      details: { deliveryId: delivery.id, attemptInProgress: true },
    });
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const done = await waitFor(
      async () => {
        const d = await t.dbs.test.prisma.webhookDelivery.findUniqueOrThrow({
          where: { id: delivery.id },
          include: { attempts: true },
        });
        return d.status === 'succeeded' ? d : null;
      },
      { what: 'the attempt to be recorded' },
    );
    expect(done).toMatchObject({ attemptCount: 1, leaseUntil: null });
    expect(done.attempts).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(rx.received).toHaveLength(1);

    // Once it is recorded, a retry is accepted and counted on top.
    expect((await retry(delivery.id)).statusCode).toBe(200);
    const after = await waitFor(
      async () => {
        const d = await t.dbs.test.prisma.webhookDelivery.findUniqueOrThrow({
          where: { id: delivery.id },
          include: { attempts: true },
        });
        return d.attemptCount === 2 && d.status === 'succeeded' ? d : null;
      },
      { what: 'the retry to be recorded' },
    );
    expect(after.attempts).toHaveLength(2);
    expect(rx.received).toHaveLength(2);
    await rx.close();
  });
});

describe('faults', () => {
  it('a secret that cannot be decrypted is a failed attempt with a visible error, not a delivery pending forever', async () => {
    const own = await createAccountWithKeys(t.dbs);
    const rx = await startReceiver();
    const ep = await createEndpoint(rx.url, ['booking.created'], own);
    // Sealed under another key, as after SECRET_KEY was changed.
    await t.dbs.test.prisma.webhookEndpoint.update({
      where: { id: ep._id },
      data: { secretEnc: createSecretBox(randomBytes(32)).seal(ep.secret) },
    });
    const event = await emit('booking.created', { bookingId: 'undecryptable' }, own);
    const failed = await waitFor(
      async () => {
        const d = await t.dbs.test.prisma.webhookDelivery.findFirst({
          where: { eventId: event.id },
          include: { attempts: true },
        });
        return d?.status === 'failed' ? d : null;
      },
      { what: 'the delivery to fail on the schedule', timeoutMs: 15_000 },
    );
    expect(failed.attemptCount).toBe(6);
    expect(failed.attempts).toHaveLength(6);
    expect(failed.attempts[0]).toMatchObject({
      statusCode: null,
      error: expect.stringMatching(/signing secret or token cannot be decrypted .*SECRET_KEY/),
    });
    expect(rx.received).toHaveLength(0);
    // The log says so through the API as well.
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v1/webhook-endpoints/${ep._id}/deliveries`,
      headers: bearer(own.testKey.key),
    });
    expect(res.json().data[0].attempts[0].error).toMatch(/cannot be decrypted/);
    await rx.close();
  });
});

describe('rotating twice within 24 h', () => {
  it('keeps each old secret signing until its own expiry, and none after (injected clock)', async () => {
    const own = await createAccountWithKeys(t.dbs);
    const rx = await startReceiver();
    const first = await createEndpoint(rx.url, ['booking.completed'], own);
    // The first rotation 23 h ago: its old secret has an hour left.
    const second = await rotateWebhookSecret(t.dbs.test.prisma, {
      companyId: own.test.id,
      config: t.config,
      id: first._id,
      now: new Date(Date.now() - 23 * 3600_000),
    });
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/webhook-endpoints/${first._id}/rotate-secret`,
      headers: bearer(own.testKey.key),
    });
    expect(res.statusCode).toBe(200);
    const third: string = res.json().data.secret;
    const secrets = [first.secret, second.secret, third];
    expect(new Set(secrets).size).toBe(3);

    const deliveryAt = async (offsetMs: number) => {
      t.services.now = offsetMs ? () => Date.now() + offsetMs : undefined;
      try {
        const event = await emit('booking.completed', { bookingId: `rot-${offsetMs}` }, own);
        const got = await waitFor(() => rx.received.find((r) => r.headers['x-webhook-id'] === event.id), {
          what: 'the delivery',
        });
        const header = String(got.headers['x-signature']);
        return {
          signatures: header.split(',').filter((p) => p.startsWith('v1=')).length,
          verifies: secrets.map((s) => verifyByHand(header, got.body, s)),
          library: secrets.map((s) => {
            try {
              return Boolean(new Webhook(s).verify(got.body, got.headers as Record<string, string>));
            } catch {
              return false;
            }
          }),
        };
      } finally {
        t.services.now = undefined;
      }
    };
    // Now: all three sign; the first rotation's overlap was not cut short by the second.
    expect(await deliveryAt(0)).toEqual({ signatures: 3, verifies: [true, true, true], library: [true, true, true] });
    // Two hours on, the oldest secret's 24 h are up; the second's are not.
    expect(await deliveryAt(2 * 3600_000)).toEqual({
      signatures: 2,
      verifies: [false, true, true],
      library: [false, true, true],
    });
    // A day on, only the current secret signs.
    expect(await deliveryAt(24 * 3600_000 + 60_000)).toEqual({
      signatures: 1,
      verifies: [false, false, true],
      library: [false, false, true],
    });
    await rx.close();
  });
});
