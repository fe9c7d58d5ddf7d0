// The SDK (sdk/) against the real app listening on a socket: every operation of the document
// the app serves is called at least once through the SDK's methods, with data made through the
// SDK itself, and the test fails if any operation was not. Which operation each request reached
// is recorded here, by the fetch the test hands the client, not by the SDK.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, Client, ConflictError, NotFoundError, RESOURCES } from '../../sdk/src/index.js';
import { startWorkers, type Workers } from '../../src/workers/runtime.js';
import { createTestApp, listen, type TestApp } from '../helpers/app.js';
import { bookThroughUseCase } from '../helpers/bookings.js';
import { blankCompany } from '../helpers/domain.js';
import { createAccountWithKeys } from '../helpers/factories.js';
import { FAST_WORKERS, startReceiver, waitFor, type Receiver } from '../helpers/receiver.js';
import { documentOperations, recordingFetch, type Call, type DocOperation } from '../helpers/sdk.js';

let t: TestApp;
let base: string;
let receiver: Receiver;
let workers: Workers;
let ops: DocOperation[];
const calls: Call[] = [];
let client: Client;
let company: Awaited<ReturnType<typeof blankCompany>>;

const hours = [{ start: '00:00', end: '24:00' }];
const ALL_DAY = {
  monday: hours,
  tuesday: hours,
  wednesday: hours,
  thursday: hours,
  friday: hours,
  saturday: hours,
  sunday: hours,
};
const card = { number: '4242424242424242', expMonth: 12, expYear: new Date().getUTCFullYear() + 2, cvc: '123' };
const daysAhead = (days: number, hourUtc = 10) => {
  const d = new Date(Date.now() + days * 86_400_000);
  d.setUTCHours(hourUtc, 0, 0, 0);
  return d.toISOString();
};
const dateAhead = (days: number) => daysAhead(days).slice(0, 10);

beforeAll(async () => {
  t = await createTestApp({ env: { ...FAST_WORKERS, REQUEST_LOG_FLUSH_MS: '50' } });
  base = await listen(t.app);
  receiver = await startReceiver();
  workers = await startWorkers(t.services);
  const w = await createAccountWithKeys(t.dbs);
  company = await blankCompany(t.dbs, w);
  const doc = await (await fetch(`${base}/openapi.json`)).json();
  ops = documentOperations(doc);
  client = new Client({ baseUrl: base, apiKey: company.key, fetch: recordingFetch(ops, calls) });
});
afterAll(async () => {
  await workers?.stop();
  await receiver?.close();
  await t?.close();
});

/** The typed error a call is expected to end in. */
async function rejection(p: Promise<unknown>): Promise<ApiError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ApiError);
  return e as ApiError;
}

describe('every operation through the SDK', () => {
  it('company, staff, services, customers, closures, availability', async () => {
    const me = await client.me.get();
    expect(me._id).toBe(company.company.id);
    expect((await client.me.update({ phone: '+493012345678' })).phone).toBe('+493012345678');
    const feed = await client.me.rotateCalendarFeed();
    expect(feed.url).toMatch(/\/calendar\//);

    const employee = await client.employees.create({ name: 'Alex', workingHours: ALL_DAY });
    expect((await client.employees.get(employee._id)).name).toBe('Alex');
    expect((await client.employees.update(employee._id, { name: 'Alex B.' })).name).toBe('Alex B.');
    const timeOff = await client.employees.createTimeOff(employee._id, {
      startTime: daysAhead(300, 8),
      endTime: daysAhead(300, 12),
    });
    expect((await client.employees.listTimeOff(employee._id).toArray()).map((x) => x._id)).toContain(timeOff._id);
    await client.employees.deleteTimeOff(employee._id, timeOff._id);
    const day = dateAhead(200);
    await client.employees.setDateOverride(employee._id, day, { intervals: [{ start: '10:00', end: '12:00' }] });
    expect((await client.employees.listDateOverrides(employee._id).page()).data.length).toBe(1);
    await client.employees.deleteDateOverride(employee._id, day);
    expect((await client.employees.rotateCalendarFeed(employee._id)).url).toMatch(/\/calendar\//);
    const temp = await client.employees.create({ name: 'Temp' });
    await client.employees.delete(temp._id);
    expect((await client.employees.list({ active: true }).toArray()).map((e) => e._id)).toEqual([employee._id]);

    const service = await client.services.create({
      name: 'Cut',
      durationMinutes: 60,
      price: 4500,
      employeeIds: [employee._id],
    });
    expect((await client.services.get(service._id)).name).toBe('Cut');
    expect((await client.services.update(service._id, { description: 'A cut' })).description).toBe('A cut');
    const old = await client.services.create({ name: 'Old', durationMinutes: 30 });
    await client.services.delete(old._id);
    expect((await client.services.list({ active: true }).toArray()).map((s) => s._id)).toEqual([service._id]);

    const customer = await client.customers.create({ name: 'Dana', email: 'dana@example.com' });
    expect((await client.customers.get(customer._id)).email).toBe('dana@example.com');
    expect((await client.customers.update(customer._id, { phone: '+493099999999' })).phone).toBe('+493099999999');
    const gone = await client.customers.create({ name: 'Gone', email: 'gone@example.com' });
    await client.customers.delete(gone._id);
    const leaving = await client.customers.create({ name: 'Leaving', email: 'leaving@example.com' });
    expect((await client.customers.export(leaving._id)).customer.email).toBe('leaving@example.com');
    expect((await client.customers.erase(leaving._id)).erasedAt).toEqual(expect.any(String));
    expect((await client.customers.list({ email: 'dana@example.com' }).toArray()).length).toBe(1);

    const site = await client.locations.create({ name: 'Mitte', address: 'Berlin', timeZone: 'Europe/Berlin' });
    expect((await client.locations.get(site._id)).timeZone).toBe('Europe/Berlin');
    expect((await client.locations.update(site._id, { name: 'Mitte 2' })).name).toBe('Mitte 2');
    expect((await client.locations.list().toArray()).map((l) => l._id)).toEqual([site._id]);
    await client.locations.delete(site._id);
    const room = await client.resources.create({ name: 'Room 1', kind: 'room' });
    expect((await client.resources.get(room._id)).kind).toBe('room');
    expect((await client.resources.update(room._id, { name: 'Room A' })).name).toBe('Room A');
    expect((await client.resources.list({ kind: 'room' }).toArray()).map((r) => r._id)).toEqual([room._id]);
    await client.resources.delete(room._id);

    const closure = await client.closures.create({
      startTime: daysAhead(250, 0),
      endTime: daysAhead(251, 0),
      reason: 'Inventory',
    });
    expect((await client.closures.list().toArray()).map((c) => c._id)).toEqual([closure._id]);
    await client.closures.delete(closure._id);

    const slots = await client.availability.get({ serviceId: service._id, from: daysAhead(3, 0), to: daysAhead(4, 0) });
    expect(slots).toBeTruthy();
    const why = await client.availability.explain({ serviceId: service._id, startTime: daysAhead(3, 10) });
    expect(why).toBeTruthy();
  });

  it('bookings, payments, classes, events, reports, e-mails', async () => {
    const employee = await client.employees.create({ name: 'Robin', workingHours: ALL_DAY });
    const service = await client.services.create({
      name: 'Colour',
      durationMinutes: 60,
      price: 6000,
      requiresPayment: true,
      employeeIds: [employee._id],
    });
    const booking = await client.bookings.create({
      serviceId: service._id,
      employeeId: employee._id,
      startTime: daysAhead(5),
      customer: { name: 'Sam', email: 'sam@example.com' },
    });
    expect(booking.status).toBe('pending');
    expect((await client.bookings.get(booking._id))._id).toBe(booking._id);
    expect((await client.bookings.update(booking._id, { notes: 'window seat' })).notes).toBe('window seat');
    const payment = await client.payments.create({ bookingId: booking._id, card });
    // The sandbox's processor settles it in the workers.
    await waitFor(async () => (await client.payments.get(payment._id)).status === 'succeeded', {
      what: 'the payment to succeed',
    });
    await client.payments.update(payment._id, { metadata: { ref: 'A-1' } });
    expect((await client.payments.list({ bookingId: booking._id }).toArray()).length).toBe(1);
    const refunded = await client.payments.refund(payment._id, { amount: 1000 });
    expect(refunded.amountRefunded).toBe(1000);
    expect((await client.bookings.get(booking._id)).status).toBe('confirmed');
    // Already confirmed: the typed conflict, with the envelope's code and facts.
    const conflict = await rejection(client.bookings.confirm(booking._id));
    expect(conflict).toBeInstanceOf(ConflictError);
    expect(conflict.code).toBe('INVALID_STATE_TRANSITION');

    const quote = await client.bookings.getCancellationQuote(booking._id);
    expect(quote).toBeTruthy();
    expect((await client.bookings.rotateManageLink(booking._id)).manageUrl).toMatch(/\/b\//);
    const newStart = daysAhead(6);
    const moved = await client.bookings.reschedule(booking._id, { startTime: newStart });
    expect(moved.startTime).toBe(newStart);
    await client.bookings.listNotifications(booking._id).page();
    expect((await client.bookings.cancel(booking._id, { reason: 'ill' })).status).toBe('cancelled');

    const trim = await client.services.create({
      name: 'Trim',
      durationMinutes: 30,
      price: 2000,
      employeeIds: [employee._id],
    });
    const visit = await client.visits.create({
      items: [{ serviceId: trim._id, employeeId: employee._id }, { serviceId: trim._id }],
      startTime: daysAhead(9),
      customer: { name: 'Vi', email: 'vi@example.com' },
    });
    expect((await client.visits.get(visit._id)).bookings).toHaveLength(2);
    expect((await client.visits.reschedule(visit._id, { startTime: daysAhead(10) })).startTime).toBe(daysAhead(10));
    expect((await client.visits.cancel(visit._id, { reason: 'ill' })).bookings[0]!.status).toBe('cancelled');

    const series = await client.bookingSeries.create({
      serviceId: trim._id,
      startTime: daysAhead(11),
      rrule: 'FREQ=WEEKLY;COUNT=2',
      customer: { name: 'Se', email: 'se@example.com' },
    });
    expect((await client.bookingSeries.get(series._id)).bookings).toHaveLength(2);
    expect((await client.bookingSeries.cancel(series._id, {})).bookings[1]!.status).toBe('cancelled');

    const pending = await client.bookings.create({
      serviceId: service._id,
      employeeId: employee._id,
      startTime: daysAhead(8),
      customer: { name: 'Kim', email: 'kim@example.com' },
    });
    expect((await client.bookings.confirm(pending._id)).status).toBe('confirmed');

    // complete and no-show need a start in the past, which the API does not book.
    const db = t.dbs.test.prisma;
    const pastStart = new Date(Date.now() - 3 * 3_600_000);
    pastStart.setUTCMinutes(0, 0, 0);
    const bookedAt = new Date(Date.now() - 3 * 86_400_000);
    const past1 = await bookThroughUseCase(db, company.company, {
      requiresPayment: false,
      startTime: pastStart,
      bookedAt,
    });
    const past2 = await bookThroughUseCase(db, company.company, {
      requiresPayment: false,
      startTime: pastStart,
      bookedAt,
    });
    expect((await client.bookings.complete(past1.booking.id)).status).toBe('completed');
    expect((await client.bookings.markNoShow(past2.booking.id)).status).toBe('no_show');
    const confirmed = await client.bookings.list({ status: 'confirmed' }).toArray();
    expect(confirmed.map((b) => b._id)).toEqual([pending._id]);

    const classService = await client.services.create({
      name: 'Yoga',
      durationMinutes: 60,
      kind: 'class',
      employeeIds: [employee._id],
    });
    const session = await client.classes.create({
      serviceId: classService._id,
      employeeId: employee._id,
      startTime: daysAhead(10, 18),
      capacity: 5,
    });
    expect((await client.classes.get(session._id)).capacity).toBe(5);
    expect((await client.classes.update(session._id, { capacity: 6 })).capacity).toBe(6);
    expect((await client.classes.list({ serviceId: classService._id }).toArray()).length).toBe(1);
    // A waitlist offer accepted (docs/api.md, Class waitlists).
    const spin = await client.services.create({
      name: 'Spin',
      durationMinutes: 45,
      kind: 'class',
      employeeIds: [employee._id],
      waitlist: { enabled: true, offerMode: 'offer' },
    });
    const ride = await client.classes.create({
      serviceId: spin._id,
      employeeId: employee._id,
      startTime: daysAhead(11, 18),
      capacity: 1,
    });
    const rider = await client.bookings.create({
      serviceId: spin._id,
      classId: ride._id,
      customer: { name: 'Ash', email: 'ash@example.com' },
    });
    const waiting = await client.bookings.create({
      serviceId: spin._id,
      classId: ride._id,
      customer: { name: 'Jo', email: 'jo@example.com' },
      waitlist: true,
    });
    expect([waiting.status, waiting.waitlistPosition]).toEqual(['waitlisted', 1]);
    await client.bookings.cancel(rider._id);
    expect((await client.bookings.acceptOffer(waiting._id)).status).toBe('confirmed');
    expect((await client.classes.cancel(session._id)).status).toBe('cancelled');

    // A timetable beyond the 12-week horizon: no sessions yet.
    const timetable = await client.classSchedules.create({
      serviceId: classService._id,
      employeeId: employee._id,
      localStartTime: '18:30',
      rrule: 'FREQ=WEEKLY;COUNT=3',
      capacity: 5,
      startsOn: '2098-01-05',
    });
    expect((await client.classSchedules.get(timetable._id)).rrule).toBe('FREQ=WEEKLY;COUNT=3');
    expect((await client.classSchedules.update(timetable._id, { applyTo: 'future', capacity: 6 })).capacity).toBe(6);
    expect((await client.classSchedules.list({ serviceId: classService._id }).toArray()).length).toBe(1);
    expect((await client.classSchedules.delete(timetable._id)).status).toBe('stopped');

    const events = await client.events.list({ type: 'booking.created' }).toArray();
    expect(events.length).toBeGreaterThanOrEqual(2);
    expect((await client.events.get(events[0]!._id)).type).toBe('booking.created');
    const report = await client.reports.getBookings({ from: daysAhead(-10, 0), to: daysAhead(30, 0), groupBy: 'day' });
    expect(report).toBeTruthy();

    const emails = await client.emails.list().page();
    if (emails.data[0]) expect((await client.emails.get(emails.data[0]._id))._id).toBe(emails.data[0]._id);
    else expect(await rejection(client.emails.get('0123456789abcdef01234567'))).toBeInstanceOf(NotFoundError);
  });

  it('webhook endpoints and deliveries', async () => {
    const endpoint = await client.webhookEndpoints.create({ url: receiver.url, events: ['booking.created'] });
    expect(endpoint.secret).toMatch(/^whsec_/);
    expect((await client.webhookEndpoints.get(endpoint._id)).url).toBe(receiver.url);
    expect((await client.webhookEndpoints.update(endpoint._id, { description: 'local' })).description).toBe('local');
    expect((await client.webhookEndpoints.list().toArray()).map((e) => e._id)).toEqual([endpoint._id]);
    await client.webhookEndpoints.test(endpoint._id);
    await waitFor(() => receiver.received.length > 0, { what: 'the ping' });
    const [delivery] = await client.webhookEndpoints.listDeliveries(endpoint._id).toArray();
    expect(delivery).toBeDefined();
    await client.webhookDeliveries.retry(delivery!._id);
    const rotated = await client.webhookEndpoints.rotateSecret(endpoint._id);
    expect(rotated.secret).not.toBe(endpoint.secret);
    await client.webhookEndpoints.delete(endpoint._id);
    expect(await rejection(client.webhookEndpoints.get(endpoint._id))).toBeInstanceOf(NotFoundError);
  });

  it('test clocks and request logs', async () => {
    const clock = await client.testClocks.create({ frozenTime: daysAhead(30, 9) });
    expect((await client.testClocks.get(clock._id))._id).toBe(clock._id);
    expect((await client.testClocks.list().toArray()).map((c) => c._id)).toContain(clock._id);
    const advanced = await client.testClocks.advance(clock._id, { to: daysAhead(31, 9) });
    expect(advanced._id).toBe(clock._id);
    await client.testClocks.delete(clock._id);
    expect(await rejection(client.testClocks.get(clock._id))).toBeInstanceOf(NotFoundError);

    // The request log is written in batches, off the request path.
    const logs = await waitFor(
      async () => {
        const page = await client.requestLogs.list({ path: '/api/v1/test-clocks' }).page();
        return page.data.length > 0 ? page.data : undefined;
      },
      { what: 'the request log' },
    );
    expect((await client.requestLogs.get(logs[0]!._id))._id).toBe(logs[0]!._id);
  });

  it('called every operation of the document, and each reached its route', () => {
    const called = new Set(calls.map((c) => c.operationId));
    const missing = ops.map((o) => o.operationId).filter((id) => !called.has(id));
    expect(missing).toEqual([]);
    // No request of the SDK missed the document's routes, and none was a server error.
    expect(calls.filter((c) => c.operationId === undefined)).toEqual([]);
    expect(calls.filter((c) => c.status === 'network error' || c.status >= 500)).toEqual([]);
    // Every POST carried an Idempotency-Key.
    expect(calls.filter((c) => c.method === 'POST' && !c.headers['idempotency-key'])).toEqual([]);
  });

  it('has one method per operation of the document, named in RESOURCES', () => {
    const methods = Object.values(RESOURCES).flatMap((verbs) => Object.values(verbs) as string[]);
    expect([...methods].sort()).toEqual(ops.map((o) => o.operationId).sort());
    expect(new Set(methods).size).toBe(methods.length);
    for (const [resource, verbs] of Object.entries(RESOURCES))
      for (const verb of Object.keys(verbs))
        expect(typeof (client as unknown as Record<string, Record<string, unknown>>)[resource]![verb]).toBe('function');
  });
});
