// The OpenAPI document's examples (docs/api.md, "OpenAPI"): taken from a run of the real app,
// and checked against the document.
//
// The tour calls every /api/v1 operation once, in the sandbox, with the workers running and a
// webhook endpoint on a local receiver: each request body and answer, an answer of each error
// status, and one delivery of each event type are what the document shows. Every body the tour
// gets must match its documented schema (so do the deliveries, field for field), and the
// committed examples (src/http/openapi-examples.json) must cover every operation, error status
// and event type and match the schemas too. `UPDATE_EXAMPLES=1` writes the tour's bodies to the file.
import { writeFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES_FILE } from '../../src/http/docs.js';
import { failure } from '../../src/rest/envelope.js';
import { toRestError } from '../../src/rest/error-handler.js';
import { serviceUnavailable } from '../../src/errors.js';
import { EVENT_TYPES } from '../../src/schema/events/index.js';
import { createBooking } from '../../src/schema/bookings/create-booking.js';
import { expirePendingBookings } from '../../src/schema/bookings/expire-pending-bookings.js';
import { lapseOffers } from '../../src/schema/bookings/lapse-offers.js';
import { startWorkers, type Workers } from '../../src/workers/runtime.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { bookThroughUseCase, minutesAgo } from '../helpers/bookings.js';
import { ALL_DAY, futureHour, tokenWithScopes } from '../helpers/domain.js';
import { bearer, createAccountWithKeys } from '../helpers/factories.js';
import { FAST_WORKERS, startReceiver, waitFor, type Receiver } from '../helpers/receiver.js';

type Json = any;
type Doc = {
  paths: Record<string, Record<string, Json>>;
  webhooks: Record<string, { post: Json }>;
};

const PREFIX = '/api/v1';
const HOUR = 3600_000;

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
let workers: Workers;
let receiver: Receiver;
let doc: Doc;
let ajv: Ajv2020;

const recorded = {
  operations: {} as Record<string, { request?: Json; response?: Json }>,
  errors: {} as Record<string, Json>,
  webhooks: {} as Record<string, Json>,
};
/** Bodies the tour got that are not what their schema says. */
const mismatches: string[] = [];

/** The operation of the document a method and a concrete path are. */
function operationOf(method: string, url: string): { op: Json; pointer: string } {
  const path = url.split('?')[0]!;
  for (const [template, item] of Object.entries(doc.paths)) {
    const re = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    const op = item[method.toLowerCase()];
    if (op && re.test(path)) {
      return { op, pointer: `#/paths/${template.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}` };
    }
  }
  throw new Error(`no operation for ${method} ${url}`);
}

const validator = (pointer: string) => {
  const validate = ajv.getSchema(`doc${pointer}`);
  if (!validate) throw new Error(`no schema at ${pointer}`);
  return validate;
};
const mediaSchema = (pointer: string) => `${pointer}/content/application~1json/schema`;

/** Checks `value` against the schema at `pointer`; returns the errors, or [] when it matches. */
function check(pointer: string, value: unknown): string[] {
  const validate = validator(pointer);
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

/** One request of the tour: answered 200, recorded and checked as its operation's example. */
async function call(method: string, url: string, payload?: Json, opts: { whileAttempting?: boolean } = {}) {
  const send = () =>
    t.app.inject({
      method: method as 'GET',
      url: `${PREFIX}${url}`,
      headers: bearer(w.testKey.key),
      ...(payload !== undefined ? { payload } : {}),
    });
  // A delivery is retried once the attempt the workers are making is recorded (409 until then).
  const res = opts.whileAttempting
    ? await waitFor(async () => {
        const r = await send();
        return r.statusCode === 409 ? null : r;
      })
    : await send();
  if (res.statusCode !== 200) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  const { op, pointer } = operationOf(method, `${PREFIX}${url}`);
  const body = res.json();
  for (const e of check(mediaSchema(`${pointer}/responses/200`), body)) mismatches.push(`${op.operationId} 200: ${e}`);
  if (payload !== undefined)
    for (const e of check(mediaSchema(`${pointer}/requestBody`), payload))
      mismatches.push(`${op.operationId} request: ${e}`);
  // A list's example keeps its first two items: enough to show the shape, short enough to read.
  const shown = Array.isArray(body.data) ? { ...body, data: body.data.slice(0, 2) } : body;
  recorded.operations[op.operationId] = { ...(payload !== undefined ? { request: payload } : {}), response: shown };
  return body.data;
}

/** An error answer of the tour, recorded as the example of its status. */
async function error(status: number, method: string, url: string, payload?: Json, headers = bearer(w.testKey.key)) {
  const res = await t.app.inject({
    method: method as 'GET',
    url: `${PREFIX}${url}`,
    headers,
    ...(payload !== undefined ? { payload } : {}),
  });
  expect(res.statusCode, res.body).toBe(status);
  const { op, pointer } = operationOf(method, `${PREFIX}${url}`);
  for (const e of check(mediaSchema(`${pointer}/responses/${status}`), res.json()))
    mismatches.push(`${op.operationId} ${status}: ${e}`);
  recorded.errors[status] = res.json();
}

async function loadDocument() {
  doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(doc, 'doc');
}

beforeAll(async () => {
  receiver = await startReceiver();
  t = await createTestApp({
    env: { ...FAST_WORKERS, RATE_LIMIT_PER_SECOND: '1000000', BASE_URL: 'https://booking.example.com' },
  });
  w = await createAccountWithKeys(t.dbs);
  workers = await startWorkers(t.services);
  await loadDocument();
}, 120_000);
afterAll(async () => {
  await workers?.stop();
  await t?.close();
  await receiver?.close();
});

describe('the tour of every operation', () => {
  it('answers every operation with a body its schema documents, and errors likewise', async () => {
    const endpoint = await call('POST', '/webhook-endpoints', {
      url: receiver.url,
      events: ['*'],
      description: 'Order system',
    });
    await call('GET', '/me');
    await call('PATCH', '/me', {
      address: 'Friedrichstraße 12, 10117 Berlin',
      reminders: [{ offsetMinutes: 45, channel: 'webhook' }],
    });
    await call('POST', '/me/calendar-feed/rotate', { includeNotes: false });

    const employee = await call('POST', '/employees', {
      name: 'Alex Moreau',
      email: 'alex.moreau@example.com',
      workingHours: ALL_DAY,
    });
    const spareEmployee = await bookless('/employees', { name: 'Sam Park' });
    await call('GET', '/employees');
    await call('GET', `/employees/${employee._id}`);
    await call('PATCH', `/employees/${employee._id}`, { phone: '+4930123456789' });
    await call('POST', `/employees/${employee._id}/calendar-feed/rotate`, { includeNotes: true });
    const timeOff = await call('POST', `/employees/${employee._id}/time-off`, {
      startTime: futureHour(40, 9),
      endTime: futureHour(40, 12),
      reason: 'Dentist',
    });
    await call('GET', `/employees/${employee._id}/time-off`);
    const day = futureHour(41, 0).slice(0, 10);
    await call('PUT', `/employees/${employee._id}/date-overrides/${day}`, {
      intervals: [{ start: '10:00', end: '14:00' }],
    });
    await call('GET', `/employees/${employee._id}/date-overrides`);

    const service = await call('POST', '/services', {
      name: 'Haircut & Style',
      durationMinutes: 45,
      price: 4500,
      employeeIds: [employee._id],
      metadata: { sku: 'CUT-45' },
    });
    const paid = await bookless('/services', {
      name: 'Colour',
      durationMinutes: 60,
      price: 9000,
      requiresPayment: true,
      employeeIds: [employee._id],
    });
    const yoga = await bookless('/services', {
      name: 'Morning Yoga',
      kind: 'class',
      durationMinutes: 60,
      price: 1500,
      employeeIds: [employee._id],
    });
    const site = await call('POST', '/locations', {
      name: 'Kreuzberg',
      address: 'Oranienstraße 25, 10999 Berlin',
      timeZone: 'Europe/Berlin',
      phone: '+4930987654321',
    });
    await call('GET', '/locations');
    await call('GET', `/locations/${site._id}`);
    await call('PATCH', `/locations/${site._id}`, { phone: null });
    const spareSite = await bookless('/locations', {
      name: 'Pop-up',
      address: 'Markthalle Neun',
      timeZone: 'Europe/Berlin',
    });
    const room = await call('POST', '/resources', {
      name: 'Treatment room 1',
      kind: 'room',
      workingHours: { ...ALL_DAY, sunday: [] },
    });
    await call('GET', '/resources');
    await call('GET', `/resources/${room._id}`);
    await call('PATCH', `/resources/${room._id}`, { name: 'Treatment room A' });
    const spareRoom = await bookless('/resources', { name: 'Laser', kind: 'equipment' });
    await call('POST', '/services', {
      name: 'Facial',
      durationMinutes: 60,
      price: 7000,
      employeeIds: [employee._id],
      requiredResourceIds: [room._id],
      requiredResourceKinds: ['equipment'],
    });
    const spareService = await bookless('/services', { name: 'Beard trim', durationMinutes: 15 });
    await call('GET', '/services');
    await call('GET', `/services/${service._id}`);
    await call('PATCH', `/services/${service._id}`, { description: 'Wash, cut and blow-dry' });

    const customer = await call('POST', '/customers', {
      name: 'Dana Fischer',
      email: 'dana.fischer@example.com',
      phone: '+4915112345678',
    });
    const spareCustomer = await bookless('/customers', { name: 'Lee Chen', email: 'lee.chen@example.com' });
    await call('GET', '/customers');
    await call('GET', `/customers/${customer._id}`);
    await call('PATCH', `/customers/${customer._id}`, { notes: 'Prefers mornings' });
    // A customer who asks to be forgotten: what is held about them, then the erase.
    const leaving = await bookless('/customers', {
      name: 'Robin Weiss',
      email: 'robin.weiss@example.com',
      phone: '+4917612345678',
    });
    await call('GET', `/customers/${leaving._id}/export`);
    await call('POST', `/customers/${leaving._id}/erase`, {});

    const session = await call('POST', '/classes', {
      serviceId: yoga._id,
      employeeId: employee._id,
      startTime: futureHour(9, 7),
      capacity: 8,
    });
    await call('GET', '/classes');
    await call('GET', `/classes/${session._id}`);
    await call('PATCH', `/classes/${session._id}`, { capacity: 10 });
    // A timetable far ahead, stopped at once: its sessions leave the instructor free for the rest.
    const timetable = await call('POST', '/class-schedules', {
      serviceId: yoga._id,
      employeeId: employee._id,
      localStartTime: '18:30',
      rrule: 'FREQ=WEEKLY;BYDAY=TU,TH;COUNT=4',
      capacity: 12,
      startsOn: futureHour(60, 0).slice(0, 10),
    });
    await call('GET', '/class-schedules');
    await call('GET', `/class-schedules/${timetable._id}`);
    await call('PATCH', `/class-schedules/${timetable._id}`, { applyTo: 'future', capacity: 14 });
    await call('DELETE', `/class-schedules/${timetable._id}`);

    const closure = await call('POST', '/closures', {
      startTime: futureHour(50, 0),
      endTime: futureHour(51, 0),
      reason: 'Public holiday',
    });
    await call('GET', '/closures');

    const from = futureHour(3, 0);
    await call('GET', `/availability?serviceId=${service._id}&from=${from}&to=${futureHour(4, 0)}`);
    await call('GET', `/availability/explain?serviceId=${service._id}&startTime=${futureHour(40, 10)}`);

    const booking = await call('POST', '/bookings', {
      serviceId: service._id,
      startTime: futureHour(3, 10),
      customerId: customer._id,
      notes: 'First visit',
      metadata: { orderRef: 'A-17' },
    });
    await call('GET', '/bookings?status=confirmed');
    await call('GET', `/bookings/${booking._id}`);
    await call('PATCH', `/bookings/${booking._id}`, { metadata: { orderRef: 'A-18' } });
    await call('GET', `/bookings/${booking._id}/notifications`);
    await call('GET', `/bookings/${booking._id}/cancellation-quote?cancelledBy=customer`);
    await call('POST', `/bookings/${booking._id}/manage-link/rotate`, {});
    await call('POST', `/bookings/${booking._id}/reschedule`, { startTime: futureHour(3, 12) });
    await call('POST', `/bookings/${booking._id}/cancel`, { reason: 'Customer called', cancelledBy: 'business' });

    // A visit: two services back to back, moved and cancelled as one.
    const visit = await call('POST', '/visits', {
      items: [{ serviceId: service._id }, { serviceId: service._id }],
      startTime: futureHour(6, 9),
      customerId: customer._id,
    });
    await call('GET', `/visits/${visit._id}`);
    await call('POST', `/visits/${visit._id}/reschedule`, { startTime: futureHour(6, 13) });
    await call('POST', `/visits/${visit._id}/cancel`, { reason: 'Customer called' });

    // A booking series: weekly, four times, then the last two cancelled.
    const series = await call('POST', '/booking-series', {
      serviceId: service._id,
      startTime: futureHour(8, 4),
      rrule: 'FREQ=WEEKLY;COUNT=4',
      customerId: customer._id,
    });
    await call('GET', `/booking-series/${series._id}`);
    await call('POST', `/booking-series/${series._id}/cancel`, { from: series.bookings[2].startTime });

    const pending = await bookless('/bookings', {
      serviceId: paid._id,
      startTime: futureHour(5, 10),
      customerId: customer._id,
    });
    await call('POST', `/bookings/${pending._id}/confirm`, {});

    // Paid in the sandbox: settled by the payments worker, then partly refunded.
    const toPay = await bookless('/bookings', {
      serviceId: paid._id,
      startTime: futureHour(6, 10),
      customerId: customer._id,
    });
    const card = { number: '4242424242424242', expMonth: 12, expYear: new Date().getUTCFullYear() + 2, cvc: '123' };
    const payment = await call('POST', '/payments', { bookingId: toPay._id, card, metadata: { invoice: 'INV-1001' } });
    await waitFor(
      async () => (await t.dbs.test.prisma.payment.findUnique({ where: { id: payment._id } }))?.status === 'succeeded',
      { what: 'the payment to succeed', timeoutMs: 20_000 },
    );
    await call('POST', `/payments/${payment._id}/refund`, { amount: 3000 });
    await call('PATCH', `/payments/${payment._id}`, { metadata: { invoice: 'INV-1001-R' } });
    await call('GET', '/payments');
    await call('GET', `/payments/${payment._id}`);
    // A declined card: payment.failed.
    const declined = await bookless('/bookings', {
      serviceId: paid._id,
      startTime: futureHour(7, 10),
      customerId: customer._id,
    });
    await bookless('/payments', { bookingId: declined._id, card: { ...card, number: '4000000000000002' } });

    // Past bookings, made as if booked days ago (the use case's clock), to complete and no-show.
    const company = await t.dbs.test.prisma.company.findUniqueOrThrow({ where: { id: w.test.id } });
    // Bookings cannot be made in the past, so two are made ahead and moved back (test set-up).
    for (const action of ['complete', 'no-show']) {
      const made = await bookThroughUseCase(t.dbs.test.prisma, company, { requiresPayment: false });
      const start = new Date(Math.floor((Date.now() - 3 * HOUR) / HOUR) * HOUR);
      const end = new Date(start.getTime() + HOUR);
      await t.dbs.test.prisma.booking.update({
        where: { id: made.booking.id },
        data: { startTime: start, endTime: end, blockStart: start, blockEnd: end },
      });
      await call('POST', `/bookings/${made.booking.id}/${action}`, {});
    }
    // A hold that ran out (booking.expired) and a webhook reminder that fell due (booking.reminder_due).
    await bookThroughUseCase(t.dbs.test.prisma, company, { requiresPayment: true, bookedAt: minutesAgo(20) });
    // What the payment-hold job runs (its schedule is minutes; the job itself is tested in test/workers).
    await expirePendingBookings(t.dbs.test.prisma);
    await createBooking(t.dbs.test.prisma, {
      company,
      input: {
        serviceId: service._id,
        employeeId: employee._id,
        startTime: new Date(Date.now() + 20 * 60_000).toISOString(),
        customerId: customer._id,
        skipRules: true,
      },
      now: new Date(Date.now() - 2 * HOUR),
    });

    await bookless('/bookings', { serviceId: yoga._id, classId: session._id, customerId: customer._id });
    await call('POST', `/classes/${session._id}/cancel`, { reason: 'Instructor ill' });

    // A class waitlist in offer mode (docs/api.md, Class waitlists): waitlisted, offered, accepted;
    // a second offer lapses when the lapse job runs past its offerExpiresAt.
    const spin = await bookless('/services', {
      name: 'Spin',
      kind: 'class',
      durationMinutes: 45,
      price: 1200,
      employeeIds: [employee._id],
      waitlist: { enabled: true, maxSize: 10, offerMode: 'offer', offerMinutes: 30, cutoffMinutes: 60 },
    });
    const spinSession = await bookless('/classes', {
      serviceId: spin._id,
      employeeId: employee._id,
      startTime: futureHour(12, 7),
      capacity: 1,
    });
    const spinBook = (name: string) =>
      bookless('/bookings', {
        serviceId: spin._id,
        classId: spinSession._id,
        customer: { name, email: `${name.toLowerCase()}@example.com` },
        waitlist: true,
      });
    const rider = await spinBook('Robin');
    const [kim, jo] = [await spinBook('Kim'), await spinBook('Jo')];
    await bookless(`/bookings/${rider._id}/cancel`, { reason: 'Cannot make it' });
    await call('POST', `/bookings/${kim._id}/accept-offer`, {});
    await bookless(`/bookings/${kim._id}/cancel`, { cancelledBy: 'customer' });
    expect((await call('GET', `/bookings/${jo._id}`)).status).toBe('offered');
    await lapseOffers(t.dbs.test.prisma, { now: new Date(Date.now() + 2 * HOUR) });

    await call('GET', '/webhook-endpoints');
    await call('GET', `/webhook-endpoints/${endpoint._id}`);
    await call('PATCH', `/webhook-endpoints/${endpoint._id}`, { description: 'Order system (prod mirror)' });
    await call('POST', `/webhook-endpoints/${endpoint._id}/test`, {});
    const deliveries = await call('GET', `/webhook-endpoints/${endpoint._id}/deliveries`);
    await waitFor(async () => receiver.received.some((r) => r.headers['x-webhook-event'] === 'ping'), {
      what: 'the ping',
    });
    await call('POST', `/webhook-deliveries/${deliveries[0]._id}/retry`, {}, { whileAttempting: true });
    await call('POST', `/webhook-endpoints/${endpoint._id}/rotate-secret`, {});

    const events = await call('GET', '/events?limit=5');
    await call('GET', `/events/${events[0]._id}`);
    await call('GET', `/reports/bookings?from=${futureHour(-30, 0)}&to=${futureHour(30, 0)}&groupBy=service`);

    const email = await waitFor(async () => t.dbs.test.prisma.email.findFirst({ where: { companyId: w.test.id } }), {
      what: 'an e-mail in the sandbox log',
      timeoutMs: 20_000,
    });
    await call('GET', '/emails');
    await call('GET', `/emails/${email.id}`);

    // Test clocks (not attached: the tour's bookings keep the real now).
    const frozenTime = new Date(Math.floor(Date.now() / HOUR) * HOUR).toISOString();
    const clock = await call('POST', '/test-clocks', { frozenTime });
    await call('GET', '/test-clocks');
    await call('GET', `/test-clocks/${clock._id}`);
    await call('POST', `/test-clocks/${clock._id}/advance`, {
      to: new Date(Date.parse(frozenTime) + 24 * HOUR).toISOString(),
    });
    await call('DELETE', `/test-clocks/${clock._id}`);
    // Request logs are written in batches off the request path: the tour's own requests.
    await waitFor(async () => {
      const res = await t.app.inject({ method: 'GET', url: `${PREFIX}/request-logs`, headers: bearer(w.testKey.key) });
      return res.statusCode === 200 && res.json().data.length > 0;
    });
    const logs = await call('GET', '/request-logs?limit=2');
    await call('GET', `/request-logs/${logs[0]._id}`);

    await call('DELETE', `/employees/${employee._id}/time-off/${timeOff._id}`);
    await call('DELETE', `/employees/${employee._id}/date-overrides/${day}`);
    await call('DELETE', `/closures/${closure._id}`);
    await call('DELETE', `/resources/${spareRoom._id}`);
    await call('DELETE', `/locations/${spareSite._id}`);
    await call('DELETE', `/customers/${spareCustomer._id}`);
    await call('DELETE', `/services/${spareService._id}`);
    await call('DELETE', `/employees/${spareEmployee._id}`);

    // One answer of each error status the operations document.
    await error(400, 'POST', '/bookings', { serviceId: service._id, startTime: 'tomorrow at ten' });
    await error(401, 'GET', '/bookings', undefined, { authorization: 'Bearer svc_sk_test_unknown' });
    await error(403, 'GET', '/payments', undefined, await tokenWithScopes(t.dbs, w, 'bookings:read'));
    await error(404, 'GET', '/bookings/0123456789abcdef01234567');
    await error(409, 'POST', '/customers', { name: 'Dana F.', email: 'dana.fischer@example.com' });
    await error(413, 'POST', '/customers', { name: 'Big', email: 'big@example.com', notes: 'x'.repeat(2_000_000) });
    // 429: the limit for requests without a valid credential, reached the way a client would.
    for (let i = 0; i < 500 && !recorded.errors[429]; i++) {
      const res = await t.app.inject({ method: 'GET', url: `${PREFIX}/me` });
      if (res.statusCode === 429) recorded.errors[429] = res.json();
    }
    // 500 and 503 cannot be caused from outside on purpose: the envelope the error handler
    // writes for an unexpected error and for a dependency that is down.
    recorded.errors[500] = failure(toRestError(new Error('unexpected')), 'req_4f1c2a9e8b7d6c5a4f3e2d1c');
    recorded.errors[503] = failure(serviceUnavailable(), 'req_9a8b7c6d5e4f3a2b1c0d9e8f');

    // Every event type delivered to the receiver, each delivery as documented.
    await waitFor(
      async () => {
        const seen = new Set(receiver.received.map((r) => r.headers['x-webhook-event']));
        return EVENT_TYPES.every((type) => seen.has(type));
      },
      { what: 'a delivery of every event type', timeoutMs: 30_000 },
    );
    for (const r of receiver.received) {
      const type = String(r.headers['x-webhook-event']);
      const body = JSON.parse(r.body);
      const pointer = `#/webhooks/${type}/post`;
      for (const e of check(mediaSchema(`${pointer}/requestBody`), body)) mismatches.push(`webhook ${type}: ${e}`);
      const declared = Object.keys(
        doc.webhooks[type]!.post.requestBody.content['application/json'].schema.properties.data.properties,
      );
      const extra = Object.keys(body.data).filter((k) => !declared.includes(k));
      if (extra.length) mismatches.push(`webhook ${type}: undocumented data fields ${extra.join(', ')}`);
      for (const h of doc.webhooks[type]!.post.parameters as Array<{ name: string }>)
        if (r.headers[h.name.toLowerCase()] === undefined) mismatches.push(`webhook ${type}: no ${h.name} header`);
      recorded.webhooks[type] ??= body;
    }

    await call('DELETE', `/webhook-endpoints/${endpoint._id}`);

    expect(mismatches).toEqual([]);
    const operationIds = Object.values(doc.paths).flatMap((item) =>
      Object.values(item).map((op: Json) => op.operationId as string),
    );
    expect(Object.keys(recorded.operations).sort()).toEqual(operationIds.filter(Boolean).sort());
    const deliveredTypes = Object.keys(recorded.webhooks).sort();
    expect(deliveredTypes).toEqual([...EVENT_TYPES].sort());

    if (process.env.UPDATE_EXAMPLES) {
      writeFileSync(EXAMPLES_FILE, `${masked(JSON.stringify(sorted(recorded), null, 2))}\n`);
      await loadDocument();
    }
  }, 120_000);

  /** A 200 the tour needs but does not record (the operation's example comes from another call). */
  async function bookless(url: string, payload: Json) {
    const res = await t.app.inject({ method: 'POST', url: `${PREFIX}${url}`, headers: bearer(w.testKey.key), payload });
    if (res.statusCode !== 200) throw new Error(`POST ${url}: ${res.statusCode} ${res.body}`);
    return res.json().data;
  }
});

/**
 * The recorded secrets (webhook secrets and tokens, calendar feed and manage link tokens) come
 * from a database dropped after the run, but a repository should not hold strings that look
 * like live ones: their random part is replaced by one of the same length and alphabet.
 */
function masked(text: string): string {
  return text
    .replace(/(whsec_)([A-Za-z0-9+/]{43}=)/g, (_m, p: string, r: string) => `${p}${'A'.repeat(r.length - 1)}=`)
    .replace(
      /(whtok_|svc_[a-z]{2}_(?:test_|live_)?)([A-Za-z0-9_-]{16,})/g,
      (_m, p: string, r: string) => `${p}${'EXAMPLE0'.repeat(Math.ceil(r.length / 8)).slice(0, r.length)}`,
    );
}

/** The file's keys in a stable order, so that a re-recording's diff shows only what changed. */
function sorted(value: Json): Json {
  if (Array.isArray(value)) return value.map(sorted);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sorted(value[k])]),
  );
}

describe('the committed examples', () => {
  it('every operation has a request example (when it takes a body) and a response example, valid against its schemas', () => {
    const problems: string[] = [];
    for (const [template, item] of Object.entries(doc.paths)) {
      if (!template.startsWith(`${PREFIX}/`)) continue;
      for (const [method, op] of Object.entries(item)) {
        const pointer = `#/paths/${template.replace(/\//g, '~1')}/${method}`;
        const body = op.requestBody?.content?.['application/json'];
        if (body) {
          if (body.example === undefined) problems.push(`${op.operationId}: no request example`);
          else
            problems.push(
              ...check(mediaSchema(`${pointer}/requestBody`), body.example).map(
                (e) => `${op.operationId} request: ${e}`,
              ),
            );
        }
        for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
          const media = response.content?.['application/json'];
          if (media?.example === undefined) {
            problems.push(`${op.operationId} ${status}: no example`);
            continue;
          }
          problems.push(
            ...check(mediaSchema(`${pointer}/responses/${status}`), media.example).map(
              (e) => `${op.operationId} ${status}: ${e}`,
            ),
          );
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('every event type has a delivery example, valid against its payload schema', () => {
    const problems: string[] = [];
    for (const type of EVENT_TYPES) {
      const media = doc.webhooks[type]?.post.requestBody.content['application/json'];
      if (media?.example === undefined) problems.push(`${type}: no example`);
      else
        problems.push(
          ...check(mediaSchema(`#/webhooks/${type}/post/requestBody`), media.example).map((e) => `${type}: ${e}`),
        );
    }
    expect(problems).toEqual([]);
  });
});
