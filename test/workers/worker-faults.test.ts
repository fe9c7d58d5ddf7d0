// Faults the workers must survive without stalling or piling up work: an event that cannot be
// relayed (the others flow on), an SMTP outage (one job per e-mail and per payment, however
// long), and two workers holding jobs for one e-mail (sent once). Real PostgreSQL, Redis
// (BullMQ) and a real local SMTP server.
import type { AddressInfo } from 'node:net';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import { recordEvent } from '../../src/schema/events/events.js';
import { JOBS } from '../../src/workers/job-catalog.js';
import { MAX_DISPATCH_ATTEMPTS } from '../../src/workers/outbox-relay.js';
import { startWorkers, type Workers } from '../../src/workers/runtime.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { bookThroughUseCase } from '../helpers/bookings.js';
import { bearer, createAccountWithKeys } from '../helpers/factories.js';
import { FAST_WORKERS, startReceiver, waitFor } from '../helpers/receiver.js';

const hasRedis = Boolean(process.env.REDIS_URL) && process.env.TEST_EMBEDDED !== '1';

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
let workers: Workers | null = null;
let smtp: SMTPServer;
/** What the SMTP server does with the next message: accept it, or refuse it (a 451). */
let smtpAnswer: 'accept' | 'refuse' = 'accept';
const inbox: string[] = [];

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        // Slow enough that two senders racing for one e-mail overlap.
        setTimeout(() => {
          if (smtpAnswer === 'refuse')
            return callback(Object.assign(new Error('try again later'), { responseCode: 451 }));
          inbox.push(Buffer.concat(chunks).toString('utf8'));
          callback();
        }, 200);
      });
    },
  });
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', () => r()));
  const port = (smtp.server.address() as AddressInfo).port;
  t = await createTestApp({ env: { ...FAST_WORKERS, SMTP_URL: `smtp://127.0.0.1:${port}` } });
  w = await createAccountWithKeys(t.dbs);
});
afterAll(async () => {
  await workers?.stop();
  await t?.close();
  await new Promise<void>((r) => smtp.close(() => r()));
});

async function queuedEmail(o: { createdAt?: Date } = {}) {
  const id = newId();
  return t.dbs.live.prisma.email.create({
    data: {
      id,
      companyId: w.live.id,
      to: `dana-${id}@example.com`,
      from: 'Bookings <no-reply@bookings.example>',
      subject: `Message ${id}`,
      text: `Text ${id}`,
      html: `<p>Html ${id}</p>`,
      headers: { 'Message-ID': `<${id}@bookings.example>`, 'X-Event-Id': id },
      status: 'queued',
      ...(o.createdAt ? { createdAt: o.createdAt } : {}),
    },
  });
}

const sendEmailJob = (emailId: string) =>
  JOBS['send-email'].handler(
    { services: t.services, enqueue: async () => undefined, signal: new AbortController().signal },
    { mode: 'live', emailId },
  );
const sentCopies = (emailId: string) => inbox.filter((raw) => raw.includes(`Text ${emailId}`)).length;

describe('a poison event', () => {
  beforeAll(async () => {
    workers = await startWorkers(t.services);
  });
  afterAll(async () => {
    await workers?.stop();
    workers = null;
  });

  it('fails alone: the events of its batch are delivered, it is set aside with its error after a few tries', async () => {
    // A deterministic fault in the fan-out of one event: inserting its delivery raises.
    await t.dbs.test.prisma.$executeRawUnsafe(`
      CREATE FUNCTION poison_delivery() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF (SELECT data->>'poison' FROM events WHERE id = NEW.event_id) = 'yes' THEN
          RAISE EXCEPTION 'poisoned event %', NEW.event_id;
        END IF;
        RETURN NEW;
      END $$`);
    await t.dbs.test.prisma.$executeRawUnsafe(
      `CREATE TRIGGER poison_delivery BEFORE INSERT ON webhook_deliveries FOR EACH ROW EXECUTE FUNCTION poison_delivery()`,
    );
    const rx = await startReceiver();
    const ep = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhook-endpoints',
      headers: bearer(w.testKey.key),
      payload: { url: rx.url, events: ['booking.created'] },
    });
    expect(ep.statusCode).toBe(200);
    // One transaction, so the relay claims them in one batch with the poison in the middle.
    const events = await t.dbs.test.prisma.$transaction(async (tx) => {
      const out = [];
      for (let i = 0; i < 30; i++) {
        out.push(
          await recordEvent(tx, {
            companyId: w.test.id,
            type: 'booking.created',
            data: { bookingId: `b-${i}`, status: 'confirmed', ...(i === 15 ? { poison: 'yes' } : {}) },
          }),
        );
      }
      return out;
    });
    const poison = events[15]!;
    const good = events.filter((e) => e !== poison).map((e) => e.id);
    await waitFor(() => good.every((id) => rx.received.some((r) => r.headers['x-webhook-id'] === id)), {
      what: 'the 29 good events',
    });
    const setAside = await waitFor(
      async () => {
        const e = await t.dbs.test.prisma.event.findUniqueOrThrow({ where: { id: poison.id } });
        return e.dispatchedAt ? e : null;
      },
      { what: 'the poison event to be set aside' },
    );
    expect(setAside).toMatchObject({
      dispatchAttempts: MAX_DISPATCH_ATTEMPTS,
      dispatchError: expect.stringContaining(`poisoned event ${poison.id}`),
    });
    expect(rx.received.some((r) => r.headers['x-webhook-id'] === poison.id)).toBe(false);
    expect(await t.dbs.test.prisma.webhookDelivery.count({ where: { eventId: poison.id } })).toBe(0);
    const good29 = await t.dbs.test.prisma.event.findMany({ where: { id: { in: good } } });
    expect(good29.every((e) => e.dispatchedAt && e.dispatchAttempts === 0 && e.dispatchError === null)).toBe(true);
    // And what comes after flows as ever.
    const later = await t.dbs.test.prisma.$transaction((tx) =>
      recordEvent(tx, { companyId: w.test.id, type: 'booking.created', data: { bookingId: 'later' } }),
    );
    await waitFor(() => rx.received.some((r) => r.headers['x-webhook-id'] === later.id), { what: 'a later event' });
    await t.dbs.test.prisma.$executeRawUnsafe('DROP TRIGGER poison_delivery ON webhook_deliveries');
    await rx.close();
  });
});

describe('e-mail sending', () => {
  it('two workers running the job of one e-mail at once send it once', async () => {
    const email = await queuedEmail();
    await Promise.all([sendEmailJob(email.id), sendEmailJob(email.id), sendEmailJob(email.id)]);
    expect(sentCopies(email.id)).toBe(1);
    expect(await t.dbs.live.prisma.email.findUniqueOrThrow({ where: { id: email.id } })).toMatchObject({
      status: 'sent',
      attempts: 1,
      leaseUntil: null,
      lastError: null,
    });
  });

  it('a refused send releases its claim at once, so the next attempt sends it', async () => {
    const email = await queuedEmail();
    smtpAnswer = 'refuse';
    await expect(sendEmailJob(email.id)).rejects.toThrow(/try again later/);
    expect(await t.dbs.live.prisma.email.findUniqueOrThrow({ where: { id: email.id } })).toMatchObject({
      status: 'queued',
      attempts: 1,
      leaseUntil: null,
      lastError: expect.stringMatching(/try again later/),
    });
    smtpAnswer = 'accept';
    await sendEmailJob(email.id);
    expect(sentCopies(email.id)).toBe(1);
    expect(await t.dbs.live.prisma.email.findUniqueOrThrow({ where: { id: email.id } })).toMatchObject({
      status: 'sent',
      attempts: 2,
      lastError: null,
    });
  });

  it('an e-mail claimed by another worker is left to it until its lease runs out', async () => {
    const email = await queuedEmail();
    await t.dbs.live.prisma
      .$executeRaw`UPDATE emails SET lease_until = now() + interval '1 hour' WHERE id = ${email.id}`;
    await sendEmailJob(email.id);
    expect(sentCopies(email.id)).toBe(0);
    // The worker holding it died: once the lease has run out, another sends it.
    await t.dbs.live.prisma
      .$executeRaw`UPDATE emails SET lease_until = now() - interval '1 second' WHERE id = ${email.id}`;
    await sendEmailJob(email.id);
    expect(sentCopies(email.id)).toBe(1);
  });
});

describe.skipIf(!hasRedis)('an outage does not pile up jobs', () => {
  it('a long-queued e-mail and a long-processing payment have one job each, across sweep cycles', async () => {
    // Only the relay and its sweeps (no consumers), so the jobs stay in Redis to be counted.
    const producer = await startWorkers(t.services, { consume: false });
    const redis = new Redis(t.config.REDIS_URL!);
    const prefix = `${t.config.REDIS_PREFIX}bull`;
    const queues = {
      emails: new Queue('emails', { connection: redis, prefix }),
      payments: new Queue('payments', { connection: redis, prefix }),
    };
    try {
      const tenMinutesAgo = new Date(Date.now() - 10 * 60_000);
      const email = await queuedEmail({ createdAt: tenMinutesAgo });
      const { booking } = await bookThroughUseCase(t.dbs.live.prisma, w.live);
      const payment = await t.dbs.live.prisma.payment.create({
        data: {
          id: newId(),
          companyId: w.live.id,
          bookingId: booking.id,
          amount: 4500,
          currency: 'EUR',
          status: 'processing',
          paymentMethod: 'pm_card_visa',
          createdAt: tenMinutesAgo,
        },
      });
      // Sweep cycles (every 100 ms here) across a change of the sweep's 5 s bucket, which is
      // when overdue work used to get a job id of its own.
      const bucket = () => Math.floor(Date.now() / 5_000);
      const start = bucket();
      await waitFor(() => bucket() > start, { what: 'the next sweep bucket' });
      await new Promise((r) => setTimeout(r, 1_000));
      const jobsOf = async (q: Queue, key: string, id: string) =>
        (await q.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed', 'prioritized', 'waiting-children']))
          .filter((j) => j.data?.[key] === id)
          .map((j) => j.id);
      expect(await jobsOf(queues.emails, 'emailId', email.id)).toEqual([`mail.live.${email.id}`]);
      expect(await jobsOf(queues.payments, 'paymentId', payment.id)).toEqual([`pay.live.${payment.id}`]);
    } finally {
      await producer.stop();
      await Promise.all(Object.values(queues).map((q) => q.close()));
      redis.disconnect();
    }
  });
});
