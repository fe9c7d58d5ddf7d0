// The reads a booking makes past Prisma (src/schema/find-records.ts) return what Prisma's model
// reads would: findServiceToBook maps every column of a service by hand, so a column it got
// wrong (a type, a name, an enum array left as PostgreSQL's text) would reach the booking's rules.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlTransaction } from '../../src/db/databases.js';
import { findOrCreateCustomer } from '../../src/schema/customers/index.js';
import { reminderSettings } from '../../src/schema/notifications/plan-reminders.js';
import { findServiceToBook, serviceInclude } from '../../src/schema/find-records.js';
import type { TestApp } from '../helpers/app.js';
import { blankCompany, createDomainApp, post, type World } from '../helpers/domain.js';
import { createAccountWithKeys } from '../helpers/factories.js';

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
});
afterAll(async () => t?.close());

describe('reads past Prisma', () => {
  it("findServiceToBook is Prisma's read of the service with its staff and its company's reminders", async () => {
    const c = await blankCompany(t.dbs, w);
    const db = t.dbs.test.prisma;
    const staff = [];
    for (const name of ['Bo', 'Al', 'Cy'])
      staff.push(await post(t.app, '/api/v1/employees', c.auth, { name, workingHours: undefined }));
    const s = await post(t.app, '/api/v1/services', c.auth, {
      name: 'Colour',
      durationMinutes: 90,
      employeeIds: staff.map((e: { _id: string }) => e._id),
    });
    // Every column away from its default, the nullable JSON ones included.
    await db.service.update({
      where: { id: s._id },
      data: {
        description: 'Long',
        price: 4500,
        bufferBeforeMinutes: 5,
        bufferAfterMinutes: 10,
        requiresPayment: true,
        depositAmount: 1000,
        cancellationPolicy: { cutoffMinutes: 60 },
        bookingRules: { minNoticeMinutes: 30 },
        reminders: [{ offsetMinutes: 60, channel: 'webhook' }],
        metadata: { z: 1, a: 'b' },
        questions: [{ id: 'q1', label: 'Why?', type: 'text', required: false }],
        requiredResourceIds: ['0123456789abcdef01234567'],
        requiredResourceKinds: ['room', 'equipment'],
        waitlist: { enabled: true, maxSize: 3 },
      },
    });
    const byPrisma = await db.service.findFirst({
      where: { id: s._id, companyId: c.company.id },
      include: { ...serviceInclude, company: { select: { reminders: true } } },
    });
    // One of the staff deactivated and with hours of their own: its row says so.
    await db.employee.update({
      where: { id: staff[1]._id },
      data: { active: false, workingHours: { monday: [{ start: '09:00', end: '12:00' }] } },
    });
    const staffByPrisma = await db.employee.findMany({
      where: { id: { in: staff.map((e: { _id: string }) => e._id) } },
      select: { id: true, active: true, workingHours: true },
      orderBy: { id: 'asc' },
    });
    const { staff: rows, customerFound, ...read } = await findServiceToBook(db, c.company.id, s._id);
    expect(read).toEqual(byPrisma);
    expect(read.employees).toHaveLength(3);
    expect(rows).toEqual(staffByPrisma);
    expect(customerFound).toBe(false);
    // Inside a transaction the same read goes through its connection, with the same answer.
    const {
      staff: _s,
      customerFound: _c,
      ...inTx
    } = await db.$transaction((tx) => findServiceToBook(tx, c.company.id, s._id));
    expect(inTx).toEqual(byPrisma);
    // Another company's service, or no id at all, is not found.
    const other = await blankCompany(t.dbs, w);
    await expect(findServiceToBook(db, other.company.id, s._id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(findServiceToBook(db, c.company.id, 'nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it("findServiceToBook finds the customer asked about among the company's customers only", async () => {
    const c = await blankCompany(t.dbs, w);
    const other = await blankCompany(t.dbs, w);
    const customer = await post(t.app, '/api/v1/customers', c.auth, { name: 'Ann', email: 'ann@example.com' });
    const s = await post(t.app, '/api/v1/services', c.auth, { name: 'Cut', durationMinutes: 30 });
    const s2 = await post(t.app, '/api/v1/services', other.auth, { name: 'Cut', durationMinutes: 30 });
    const db = t.dbs.test.prisma;
    const found = async (companyId: string, serviceId: string, customerId: string | null) =>
      (await findServiceToBook(db, companyId, serviceId, customerId)).customerFound;
    expect(await found(c.company.id, s._id, customer._id)).toBe(true);
    expect(await found(other.company.id, s2._id, customer._id)).toBe(false);
    expect(await found(c.company.id, s._id, '0123456789abcdef01234567')).toBe(false);
    expect(await found(c.company.id, s._id, null)).toBe(false);
  });

  it("findOrCreateCustomer's row, made or found, is Prisma's, and only the one it made has a customer.created", async () => {
    const c = await blankCompany(t.dbs, w);
    const db = t.dbs.test.prisma;
    const given = { name: 'Dee', email: 'dee@example.com', phone: '+14155550123', metadata: { vip: 'yes' } };
    const made = await sqlTransaction(db, (tx) => findOrCreateCustomer(tx, c.company.id, given));
    const byPrisma = await db.customer.findUniqueOrThrow({ where: { id: made.id } });
    expect(made).toEqual(byPrisma);
    // The same address again: the stored row, not a second one (its name left as it was).
    const found = await sqlTransaction(db, (tx) =>
      findOrCreateCustomer(tx, c.company.id, { ...given, name: 'Someone else' }),
    );
    expect(found).toEqual(byPrisma);
    const events = await db.event.findMany({ where: { companyId: c.company.id, type: 'customer.created' } });
    expect(events.map((e) => e.data)).toEqual([
      { customerId: made.id, name: 'Dee', email: 'dee@example.com', phone: '+14155550123', metadata: { vip: 'yes' } },
    ]);
  });

  it("reminderSettings is the service's and its company's reminders, as Prisma reads them", async () => {
    const c = await blankCompany(t.dbs, w);
    const db = t.dbs.test.prisma;
    const s = await post(t.app, '/api/v1/services', c.auth, { name: 'Cut', durationMinutes: 30 });
    await db.service.update({ where: { id: s._id }, data: { reminders: [{ offsetMinutes: 30, channel: 'email' }] } });
    const byPrisma = await db.service.findUniqueOrThrow({
      where: { id: s._id },
      select: { reminders: true, company: { select: { reminders: true } } },
    });
    expect(await sqlTransaction(db, (tx) => reminderSettings(tx, s._id))).toEqual(byPrisma);
    await expect(sqlTransaction(db, (tx) => reminderSettings(tx, 'nope'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
