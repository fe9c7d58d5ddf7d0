// The one write of a booking's row (src/schema/bookings/insert-booking.ts), typed by the
// generated row layer (src/generated/rows.ts): an appointment, a class place and a waitlisted
// name each come back exactly as Prisma reads the stored row, and the layer names every field
// of the model (ARCHITECTURE.md, "Adding a field").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BookingTable } from '../../../src/generated/rows.js';
import { createBooking } from '../../../src/schema/bookings/index.js';
import type { TestApp } from '../../helpers/app.js';
import { createAccountWithKeys } from '../../helpers/factories.js';
import { ALL_DAY, blankCompany, createDomainApp, futureHour, post, salon, type World } from '../../helpers/domain.js';

let t: TestApp;
let w: World;

beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
});
afterAll(async () => t?.close());

const stored = (id: string) => t.dbs.test.prisma.booking.findUniqueOrThrow({ where: { id } });

describe('insertBooking', () => {
  it('writes an appointment whose returned row is the stored one, every field', async () => {
    const c = await blankCompany(t.dbs, w);
    const { service } = await salon(t.app, c.auth, { requiresPayment: true, depositAmount: 1000 });
    const b = await createBooking(t.dbs.test.prisma, {
      company: c.company,
      input: {
        serviceId: service._id,
        startTime: futureHour(3),
        customer: { name: 'Ann', email: 'ann@example.com' },
        notes: 'window seat',
        customerTimeZone: 'America/New_York',
        metadata: { ref: 'x1' },
      },
    });
    const row = await stored(b.id);
    // An appointment comes back with the resources it holds (none here) beside its row.
    const { resourceHolds, ...written } = b as typeof b & { resourceHolds?: unknown };
    expect(resourceHolds).toEqual([]);
    expect(written).toEqual(row);
    expect(Object.keys(written).sort()).toEqual(Object.keys(row).sort());
    expect(row).toMatchObject({
      status: 'pending',
      price: 4500,
      depositAmount: 1000,
      currency: 'EUR',
      notes: 'window seat',
      customerTimeZone: 'America/New_York',
      metadata: { ref: 'x1' },
      classSessionId: null,
      waitlistPosition: null,
    });
    expect(row.holdExpiresAt).toBeInstanceOf(Date);
  });

  it('writes a class place and a waitlisted name the same way, each the stored row', async () => {
    const c = await blankCompany(t.dbs, w);
    const ann = await post(t.app, '/api/v1/employees', c.auth, { name: 'Ann', workingHours: ALL_DAY });
    const yoga = await post(t.app, '/api/v1/services', c.auth, {
      name: 'Yoga',
      kind: 'class',
      durationMinutes: 60,
      price: 1500,
      employeeIds: [ann._id],
      waitlist: { enabled: true },
    });
    const session = await post(t.app, '/api/v1/classes', c.auth, {
      serviceId: yoga._id,
      employeeId: ann._id,
      startTime: futureHour(4, 9),
      capacity: 1,
    });
    const place = await createBooking(t.dbs.test.prisma, {
      company: c.company,
      input: { serviceId: yoga._id, classId: session._id, customer: { name: 'Bo', email: 'bo@example.com' } },
    });
    expect(place).toEqual(await stored(place.id));
    expect(place).toMatchObject({
      status: 'confirmed',
      classSessionId: session._id,
      price: 1500,
      waitlistPosition: null,
    });

    const waiting = await createBooking(t.dbs.test.prisma, {
      company: c.company,
      input: {
        serviceId: yoga._id,
        classId: session._id,
        waitlist: true,
        customer: { name: 'Cy', email: 'cy@example.com' },
      },
    });
    expect(waiting).toEqual(await stored(waiting.id));
    expect(waiting).toMatchObject({ status: 'waitlisted', waitlistPosition: 1, holdExpiresAt: null });
  });

  it('the generated row layer names every field of the model, each with its column', async () => {
    const c = await blankCompany(t.dbs, w);
    const { service } = await salon(t.app, c.auth);
    const b = await createBooking(t.dbs.test.prisma, {
      company: c.company,
      input: { serviceId: service._id, startTime: futureHour(5), customer: { name: 'Di', email: 'di@example.com' } },
    });
    expect(Object.keys(BookingTable.columns).sort()).toEqual(Object.keys(await stored(b.id)).sort());
    expect(BookingTable.columns.customerTimeZone).toEqual({ name: 'customer_time_zone' });
    expect(BookingTable.columns.status).toEqual({ name: 'status', cast: '"BookingStatus"', read: 'text' });
  });
});
