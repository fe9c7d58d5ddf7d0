// A receptionist's day in Chromium (docs/admin.md, Team and roles, Calendar, Bookings, Classes):
// a person invited as `staff` for Anna signs in through the login form and lands on today's
// calendar, which shows Anna's column and not Ben's; books a walk-in from a free cell; moves a
// booking to another time; once the morning has passed (the company's test clock moves), marks a
// missed appointment as a no-show and checks a class's attendee in on its roster. Each change is
// read back from the database; axe-core runs on every page and each is kept as a screenshot.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { axeFindings } from '../helpers/axe.js';
import { ALL_DAY, blankCompany, ok, post, WEEK_9_TO_17 } from '../helpers/domain.js';
import { createAccountWithKeys } from '../helpers/factories.js';
import { addMember, launchChromium, shot, signIn, startAdminApp } from './admin-helpers.js';

let t: TestApp;
let origin: string;
let browser: Browser;
let staff: Awaited<ReturnType<typeof createAccountWithKeys>>;
let day: {
  companyId: string;
  auth: Record<string, string>;
  anna: string;
  cut: string;
  missed: string;
  moved: string;
  attendee: string;
  classId: string;
  advance: (to: string) => Promise<unknown>;
};

// Wednesday 3 March 2027, 08:00 in Berlin; Anna works 09:00-17:00 there.
beforeAll(async () => {
  ({ t, origin } = await startAdminApp());
  const owner = await createAccountWithKeys(t.dbs);
  staff = await createAccountWithKeys(t.dbs);
  const co = await blankCompany(t.dbs, owner, { timezone: 'Europe/Berlin' });
  const auth = co.auth;
  const clock = await post(t.app, '/api/v1/test-clocks', auth, { frozenTime: '2027-03-03T07:00:00Z' });
  ok(await t.app.inject({ method: 'PATCH', url: '/api/v1/me', headers: auth, payload: { testClockId: clock._id } }));
  const anna = await post(t.app, '/api/v1/employees', auth, { name: 'Anna', workingHours: WEEK_9_TO_17 });
  await post(t.app, '/api/v1/employees', auth, { name: 'Ben', workingHours: ALL_DAY });
  const cut = await post(t.app, '/api/v1/services', auth, {
    name: 'Cut',
    durationMinutes: 60,
    price: 4000,
    employeeIds: [anna._id],
  });
  const yoga = await post(t.app, '/api/v1/services', auth, {
    name: 'Yoga',
    kind: 'class',
    durationMinutes: 60,
    employeeIds: [anna._id],
  });
  const book = (startTime: string, name: string) =>
    post(t.app, '/api/v1/bookings', auth, {
      serviceId: cut._id,
      employeeId: anna._id,
      startTime,
      customer: { name, email: `${name.replace(/\W/g, '').toLowerCase()}@example.com` },
    });
  // 09:00 and 12:00 in Berlin; a class at 10:00 with one attendee.
  const missed = await book('2027-03-03T08:00:00Z', 'Mia Missed');
  const moved = await book('2027-03-03T11:00:00Z', 'Max Moved');
  const session = await post(t.app, '/api/v1/classes', auth, {
    serviceId: yoga._id,
    employeeId: anna._id,
    startTime: '2027-03-03T09:00:00Z',
    capacity: 6,
  });
  const attendee = await post(t.app, '/api/v1/bookings', auth, {
    serviceId: yoga._id,
    classId: session._id,
    customer: { name: 'Ada Attendee', email: 'ada@example.com' },
  });
  // The receptionist: staff of the owner's team, linked to Anna in test mode.
  await addMember(t.dbs, { team: owner.account.id, member: staff.account.id, role: 'staff', testEmployeeId: anna._id });
  day = {
    companyId: co.company.id,
    auth,
    anna: anna._id,
    cut: cut._id,
    missed: missed._id,
    moved: moved._id,
    attendee: attendee._id,
    classId: session._id,
    advance: (to) => post(t.app, `/api/v1/test-clocks/${clock._id}/advance`, auth, { to }),
  };
  browser = await launchChromium();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const booking = (id: string) => t.dbs.test.prisma.booking.findUniqueOrThrow({ where: { id } });

async function check(page: Page, name: string): Promise<void> {
  expect(await axeFindings(page), name).toEqual([]);
  await shot(page, `receptionist-${name}-${page.viewportSize()!.width}`);
}

describe("a receptionist's day in Chromium, as staff", () => {
  it('today’s calendar, a walk-in, a move, a no-show and a class check-in', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const base = `${origin}/admin/test/companies/${day.companyId}`;

    // Today's calendar: Anna's column, not Ben's; the morning's bookings and the class.
    await signIn(page, origin, staff.email, staff.password, `/admin/test/companies/${day.companyId}/calendar`);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    const grid = page.locator('table.calendar');
    await expect
      .poll(() => grid.locator('thead th').allTextContents())
      .toEqual(expect.arrayContaining([expect.stringContaining('Anna')]));
    expect((await grid.locator('thead th').allTextContents()).join(' ')).not.toContain('Ben');
    expect(await grid.textContent()).toContain('Mia Missed');
    expect(await grid.textContent()).toContain('Yoga');
    await check(page, 'calendar');

    // A walk-in from a free cell of Anna's: 14:00 in Berlin.
    await grid
      .getByRole('link', { name: /new booking with Anna/ })
      .filter({ hasText: 'Free' })
      .first()
      .waitFor();
    const free = grid.locator(`a.free[href*="start=2027-03-03T13%3A00"], a.free[href*="start=2027-03-03T13:00"]`);
    await free.first().click();
    await page.waitForURL(/\/bookings\/new\?/);
    await page.getByLabel('Service').selectOption(day.cut);
    await page.getByRole('button', { name: 'Show free times' }).click();
    await page.getByRole('radio', { name: /^14:00/ }).check();
    await page.getByLabel('Name').fill('Walt Walkin');
    await page.getByLabel('E-mail').fill('walt@example.com');
    await check(page, 'new-booking');
    await page.getByRole('button', { name: 'Book' }).click();
    await page.getByRole('status').filter({ hasText: 'Booking made.' }).waitFor();
    const walkIn = /\/bookings\/([0-9a-f]{24})/.exec(page.url())![1]!;
    expect(await booking(walkIn)).toMatchObject({ employeeId: day.anna, status: 'confirmed' });
    expect((await booking(walkIn)).startTime.toISOString()).toBe('2027-03-03T13:00:00.000Z');
    await check(page, 'booking');

    // Max's 12:00 moves to 16:00.
    await page.goto(`${base}/bookings/${day.moved}`);
    await page.getByRole('link', { name: 'Move…' }).click();
    await page.getByRole('radio', { name: /^16:00/ }).check();
    await check(page, 'move');
    await page.getByRole('button', { name: 'Move booking' }).click();
    await page.getByRole('status').filter({ hasText: 'Booking moved.' }).waitFor();
    expect((await booking(day.moved)).startTime.toISOString()).toBe('2027-03-03T15:00:00.000Z');

    // 11:30 in Berlin: Mia never came; Ada is at yoga.
    await day.advance('2027-03-03T10:30:00Z');
    await page.goto(`${base}/bookings/${day.missed}`);
    await page.getByRole('link', { name: 'Mark as no-show…' }).click();
    await page.getByRole('button', { name: 'Mark as no-show' }).click();
    await page.waitForURL(/done=/);
    expect((await booking(day.missed)).status).toBe('no_show');

    await page.goto(`${base}/classes/${day.classId}`);
    await check(page, 'roster');
    await page.getByRole('button', { name: 'Check in Ada Attendee' }).click();
    await page.getByRole('status').filter({ hasText: 'Checked in' }).waitFor();
    expect((await booking(day.attendee)).status).toBe('completed');
    await context.close();
  }, 150_000);
});
