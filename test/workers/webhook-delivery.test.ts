// Delivery end to end on the real app, real PostgreSQL, real Redis (BullMQ) and a real local
// receiver: the body and headers of API.md §6, signatures checked by hand and by the
// `standardwebhooks` library, retries with the same X-Webhook-Id, Retry-After, 410, rotation.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent, type EventType } from '../../src/schema/events.js';
import { startWorkers, type Workers } from '../../src/workers/runtime.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { bearer, createAccountWithKeys } from '../helpers/factories.js';
import { FAST_WORKERS, ok, startReceiver, waitFor, type Receiver } from './receiver.js';

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

async function createEndpoint(url: string, events: string[] = ['*']) {
  const res = await t.app.inject({ method: 'POST', url: '/api/v1/webhook-endpoints', headers: bearer(w.testKey.key), payload: { url, events } });
  expect(res.statusCode).toBe(200);
  return res.json().data as { _id: string; secret: string; token: string };
}

async function emit(type: EventType, data: Record<string, unknown> = { bookingId: 'b1', status: 'confirmed' }) {
  return t.dbs.test.prisma.$transaction((tx) => recordEvent(tx, { companyId: w.test.id, type, data }));
}

/** The receiver's side, written by hand as the README shows it. */
function verifyByHand(header: string, rawBody: string, secret: string, nowSec = Math.floor(Date.now() / 1000)): boolean {
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
  beforeAll(async () => {
    rx = await startReceiver();
    ep = await createEndpoint(rx.url);
  });
  afterAll(async () => {
    await t.app.inject({ method: 'DELETE', url: `/api/v1/webhook-endpoints/${ep._id}`, headers: bearer(w.testKey.key) });
    await rx.close();
  });

  it('is {event, timestamp, data} with the documented headers, and both signatures verify', async () => {
    const event = await emit('booking.created', { bookingId: 'abc', customerId: 'c1', startTime: '2026-03-29T09:00:00.000Z', endTime: '2026-03-29T10:00:00.000Z', status: 'confirmed' });
    const got = await waitFor(() => rx.received.find((r) => r.headers['x-webhook-id'] === event.id), { what: 'the delivery' });
    expect(JSON.parse(got.body)).toEqual({
      event: 'booking.created',
      timestamp: event.createdAt.getTime(),
      data: { bookingId: 'abc', customerId: 'c1', startTime: '2026-03-29T09:00:00.000Z', endTime: '2026-03-29T10:00:00.000Z', status: 'confirmed' },
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
    const got = rx.received[0]!;
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
    const resigned = createHmac('sha256', Buffer.from(ep.secret.slice(6), 'base64')).update(`${headers['webhook-id']}.${old}.${got.body}`).digest('base64');
    expect(() => sw.verify(got.body, { ...headers, 'webhook-timestamp': old, 'webhook-signature': `v1,${resigned}` })).toThrow(/too old/i);
  });

  it('during a rotation carries both signatures, and each secret verifies', async () => {
    const res = await t.app.inject({ method: 'POST', url: `/api/v1/webhook-endpoints/${ep._id}/rotate-secret`, headers: bearer(w.testKey.key) });
    expect(res.statusCode).toBe(200);
    const rotated = res.json().data;
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated.secret).not.toBe(ep.secret);
    expect(Date.parse(rotated.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    const event = await emit('booking.cancelled');
    const got = await waitFor(() => rx.received.find((r) => r.headers['x-webhook-id'] === event.id), { what: 'the delivery' });
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
    const events = await Promise.all(Array.from({ length: 5 }, (_, i) => emit('booking.created', { bookingId: `down-${i}` })));
    // Two failed attempts each, then the receiver comes back.
    await waitFor(() => events.every((e) => rx.received.filter((r) => r.headers['x-webhook-id'] === e.id).length >= 2), { what: 'two failed attempts each' });
    rx.respond(ok);
    const deliveries = await waitFor(async () => {
      const rows = await t.dbs.test.prisma.webhookDelivery.findMany({ where: { endpointId: ep._id } });
      return rows.length === 5 && rows.every((d) => d.status === 'succeeded') ? rows : null;
    }, { what: 'all deliveries to succeed' });
    for (const e of events) {
      const attempts = rx.received.filter((r) => r.headers['x-webhook-id'] === e.id);
      expect(attempts.length).toBeGreaterThanOrEqual(3);
      expect(new Set(attempts.map((a) => a.body)).size).toBe(1);
      expect(new Set(attempts.map((a) => a.headers['webhook-id'])).size).toBe(1);
    }
    expect(deliveries.every((d) => d.attemptCount >= 3 && d.lastStatusCode === 200)).toBe(true);

    // The log shows each attempt with its status, duration and excerpt.
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/webhook-endpoints/${ep._id}/deliveries?limit=2`, headers: bearer(w.testKey.key) });
    const body = res.json();
    expect(body.data).toHaveLength(2);
    expect(body.meta.pagination).toEqual({ limit: 2, hasMore: true, nextCursor: expect.any(String) });
    const d = body.data[0];
    expect(d.attempts[0]).toEqual({ _id: expect.any(String), statusCode: 503, durationMs: expect.any(Number), responseExcerpt: 'down for maintenance', error: 'HTTP 503', createdAt: expect.any(String) });
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
    await waitFor(() => rx.received.filter((r) => r.headers['x-webhook-id'] === event.id).length === 2, { what: 'the retry' });
    const [a, b] = rx.received;
    // The schedule's first retry is ~0.3 s; the receiver asked for 2 s.
    expect(b!.at - a!.at).toBeGreaterThanOrEqual(1900);
    await rx.close();
  });

  it('410 Gone disables the endpoint and stops deliveries', async () => {
    const rx = await startReceiver((_r, res) => res.writeHead(410).end('gone'));
    const ep = await createEndpoint(rx.url, ['customer.updated']);
    const event = await emit('customer.updated', { customerId: 'c' });
    const endpoint = await waitFor(async () => {
      const e = await t.dbs.test.prisma.webhookEndpoint.findUnique({ where: { id: ep._id } });
      return e && !e.enabled ? e : null;
    }, { what: 'the endpoint to be disabled' });
    expect(endpoint.disabledReason).toMatch(/410/);
    const delivery = await t.dbs.test.prisma.webhookDelivery.findFirstOrThrow({ where: { eventId: event.id, endpointId: ep._id } });
    expect(delivery).toMatchObject({ status: 'failed', attemptCount: 1, nextAttemptAt: null });
    await emit('customer.updated', { customerId: 'c2' });
    await new Promise((r) => setTimeout(r, 500));
    expect(rx.received).toHaveLength(1);
    const got = await t.app.inject({ method: 'GET', url: `/api/v1/webhook-endpoints/${ep._id}`, headers: bearer(w.testKey.key) });
    expect(got.json().data).toMatchObject({ enabled: false, disabledReason: expect.stringMatching(/410/) });
    await rx.close();
  });

  it('gives up after the schedule and marks the delivery failed; a manual retry sends it again with the same id', async () => {
    const rx = await startReceiver((_r, res) => res.writeHead(500).end());
    const ep = await createEndpoint(rx.url, ['class.cancelled']);
    const event = await emit('class.cancelled', { classId: 'x' });
    const failed = await waitFor(async () => {
      const d = await t.dbs.test.prisma.webhookDelivery.findFirst({ where: { eventId: event.id, endpointId: ep._id } });
      return d?.status === 'failed' ? d : null;
    }, { what: 'the schedule to run out', timeoutMs: 15_000 });
    expect(failed.attemptCount).toBe(6); // the first try plus five scheduled retries
    rx.respond(ok);
    const res = await t.app.inject({ method: 'POST', url: `/api/v1/webhook-deliveries/${failed.id}/retry`, headers: bearer(w.testKey.key) });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ _id: failed.id, status: 'pending', eventId: event.id, event: 'class.cancelled' });
    await waitFor(async () => (await t.dbs.test.prisma.webhookDelivery.findUnique({ where: { id: failed.id } }))?.status === 'succeeded', { what: 'the manual retry' });
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
    const ping = await t.app.inject({ method: 'POST', url: `/api/v1/webhook-endpoints/${epA._id}/test`, headers: bearer(w.testKey.key) });
    expect(ping.statusCode).toBe(200);
    expect(ping.json().data).toMatchObject({ endpointId: epA._id, event: 'ping', status: 'pending', attempts: [] });
    await waitFor(() => a.received.length === 2, { what: 'the ping' });
    await new Promise((r) => setTimeout(r, 300));
    expect(a.received.map((r) => r.headers['x-webhook-event'])).toEqual(['payment.succeeded', 'ping']);
    expect(a.received[0]!.headers['x-webhook-id']).toBe(e1.id);
    expect(JSON.parse(a.received[1]!.body)).toMatchObject({ event: 'ping', data: { endpointId: epA._id } });
    expect(b.received.map((r) => r.headers['x-webhook-id'])).toEqual([e2.id]);
    await Promise.all([a.close(), b.close()]);
  });
});
