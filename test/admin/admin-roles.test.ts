// Team roles in the admin area (src/admin/roles.ts, src/schema/team; docs/admin.md, Team and
// roles): every page × role gives the status the roles table says (200, 403 or 404), every
// forbidden post is a 403 that changes nothing, staff see only their employee's records, and
// every successful post is in the audit log with who did it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { createTestApp } from '../helpers/app.js';
import { createAccountWithKeys } from '../helpers/factories.js';
import { newId } from '../../src/ids.js';
import { bookInSalon, injectSignIn } from './admin-helpers.js';

type World = Awaited<ReturnType<typeof createAccountWithKeys>>;
type Who = 'owner' | 'admin' | 'staff' | 'viewer' | 'stranger';

let t: TestApp;
let owner: World;
const people = {} as Record<Who, { world: World; cookie: string; csrf: string }>;
let companyId: string;
let ownEmployee: string;
let otherEmployee: string;
let bookings: Array<{ _id: string; employeeId: string; customerId?: string }>;

beforeAll(async () => {
  t = await createTestApp({
    env: { RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000', RATE_LIMIT_PER_SECOND: '100000' },
  });
  owner = await createAccountWithKeys(t.dbs);
  companyId = owner.test.id;
  bookings = await bookInSalon(t, owner.testKey.key);
  const employees = await t.dbs.test.prisma.employee.findMany({ where: { companyId }, orderBy: { id: 'asc' } });
  ownEmployee = bookings[0]!.employeeId;
  otherEmployee = employees.find((e) => e.id !== ownEmployee)!.id;
  const worlds: Record<Who, World> = {
    owner,
    admin: await createAccountWithKeys(t.dbs),
    staff: await createAccountWithKeys(t.dbs),
    viewer: await createAccountWithKeys(t.dbs),
    stranger: await createAccountWithKeys(t.dbs),
  };
  for (const role of ['admin', 'staff', 'viewer'] as const)
    await t.dbs.live.prisma.membership.create({
      data: {
        id: newId(),
        teamAccountId: owner.account.id,
        memberAccountId: worlds[role].account.id,
        role,
        testEmployeeId: role === 'staff' ? ownEmployee : null,
      },
    });
  for (const [who, world] of Object.entries(worlds) as Array<[Who, World]>) {
    const cookie = await injectSignIn(t.app, world);
    const page = await get(`/admin/test/companies/${world.test.id}/bookings`, cookie);
    people[who] = { world, cookie, csrf: /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]! };
  }
}, 60_000);
afterAll(async () => t?.close());

const get = (url: string, cookie: string) => t.app.inject({ method: 'GET', url, cookies: { svc_session: cookie } });
const postAs = (who: Who, url: string, fields: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url,
    cookies: { svc_session: people[who].cookie },
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ csrf_token: people[who].csrf, ...fields }).toString(),
  });
const c = (rest = '') => `/admin/test/companies/${companyId}${rest}`;

describe('pages by role', () => {
  // [path, owner, admin, staff, viewer]; a stranger (no membership) gets 404 everywhere.
  const table: Array<[() => string, number, number, number, number]> = [
    [() => c(), 200, 200, 303, 200],
    [() => c('/edit'), 200, 200, 403, 200],
    [() => c('/bookings'), 200, 200, 200, 200],
    [() => c(`/bookings/${bookings[0]!._id}`), 200, 200, 200, 200],
    [() => c('/customers'), 200, 200, 200, 200],
    [() => c('/staff'), 200, 200, 403, 200],
    [() => c(`/staff/${ownEmployee}`), 200, 200, 200, 200],
    [() => c(`/staff/${otherEmployee}`), 200, 200, 403, 200],
    [() => c('/emails'), 200, 200, 403, 200],
    [() => c('/api-keys'), 200, 200, 403, 403],
    [() => c('/webhooks'), 200, 200, 403, 403],
    [() => c('/request-logs'), 200, 200, 403, 403],
  ];
  it.each(table)('%s', async (path, ...expected) => {
    const roles = ['owner', 'admin', 'staff', 'viewer', 'stranger'] as const;
    const got = [];
    for (const who of roles) got.push((await get(path(), people[who].cookie)).statusCode);
    expect(got).toEqual([...expected, 404]);
  });

  it('a 403 says why in words, inside the admin shell', async () => {
    const res = await get(c('/api-keys'), people.viewer.cookie);
    expect(res.statusCode).toBe(403);
    expect(res.body).toContain('role="alert"');
    expect(res.body).toContain('Your role in this team (viewer) does not allow this page or action.');
  });

  it('staff land on the bookings, and see no company of a mode their membership names no employee in', async () => {
    const res = await get(c(), people.staff.cookie);
    expect(res.headers.location).toBe(c('/bookings'));
    expect((await get(`/admin/live/companies/${owner.live.id}/bookings`, people.staff.cookie)).statusCode).toBe(404);
    expect((await get(`/admin/live/companies/${owner.live.id}/bookings`, people.viewer.cookie)).statusCode).toBe(200);
  });

  it('the side navigation shows a role only what it may open', async () => {
    const staff = (await get(c('/bookings'), people.staff.cookie)).body;
    expect(staff).not.toContain(c('/api-keys'));
    expect(staff).not.toContain(`href="${c('/staff')}"`);
    expect(staff).toContain(c(`/staff/${ownEmployee}`));
    const viewer = (await get(c('/bookings'), people.viewer.cookie)).body;
    expect(viewer).not.toContain(c('/api-keys'));
    expect(viewer).toContain(c('/emails'));
    expect((await get(c('/bookings'), people.admin.cookie)).body).toContain(c('/api-keys'));
  });

  it('a member sees the team’s companies in the picker and list, a stranger does not', async () => {
    const list = (await get('/admin/live', people.viewer.cookie)).body;
    expect(list).toContain(owner.live.name);
    expect((await get('/admin/live', people.stranger.cookie)).body).not.toContain(owner.live.name);
  });
});

describe('forbidden posts', () => {
  const keyCount = () => t.dbs.test.prisma.apiKey.count({ where: { companyId } });
  const companyName = async () =>
    (await t.dbs.test.prisma.company.findUniqueOrThrow({ where: { id: companyId } })).name;

  it.each(['staff', 'viewer'] as const)('%s: creating an API key is a 403 and no key is made', async (who) => {
    const before = await keyCount();
    const res = await postAs(who, c('/api-keys'), { name: 'sneaky' });
    expect(res.statusCode).toBe(403);
    expect(await keyCount()).toBe(before);
  });

  it.each(['staff', 'viewer'] as const)('%s: editing the company profile is a 403 and nothing changes', async (who) => {
    const before = await companyName();
    const res = await postAs(who, c('/edit'), { name: 'Renamed', timezone: 'UTC', currency: 'EUR' });
    expect(res.statusCode).toBe(403);
    expect(await companyName()).toBe(before);
  });

  it('viewer: editing a customer is a 403 "read only" and the customer is unchanged', async () => {
    const customer = await t.dbs.test.prisma.customer.findFirstOrThrow({ where: { companyId } });
    const res = await postAs('viewer', c(`/customers/${customer.id}`), {
      name: 'Changed',
      email: customer.email ?? 'x@example.com',
    });
    expect(res.statusCode).toBe(403);
    expect(res.body).toContain('read only');
    const after = await t.dbs.test.prisma.customer.findUniqueOrThrow({ where: { id: customer.id } });
    expect(after.name).toBe(customer.name);
  });

  it('stranger: any post to the company is a 404 and nothing changes', async () => {
    const before = await keyCount();
    expect((await postAs('stranger', c('/api-keys'), { name: 'x' })).statusCode).toBe(404);
    expect(await keyCount()).toBe(before);
  });

  it('admin: creating an API key works, and the audit log says who did it, without the key', async () => {
    const before = await keyCount();
    const res = await postAs('admin', c('/api-keys'), { name: 'by admin' });
    expect(res.statusCode).toBe(200);
    expect(await keyCount()).toBe(before + 1);
    const key = /svc_sk_test_[A-Za-z0-9_-]+/.exec(res.body)![0];
    const entry = await t.dbs.live.prisma.auditEntry.findFirstOrThrow({
      where: { teamAccountId: owner.account.id, action: 'api-keys.create' },
      orderBy: { id: 'desc' },
    });
    expect(entry).toMatchObject({ actorAccountId: people.admin.world.account.id, mode: 'test', companyId });
    expect(JSON.stringify(entry)).not.toContain(key);
  });

  it('a refused post is not in the audit log', async () => {
    const count = () =>
      t.dbs.live.prisma.auditEntry.count({ where: { actorAccountId: people.viewer.world.account.id } });
    const before = await count();
    await postAs('viewer', c('/api-keys'), { name: 'x' });
    expect(await count()).toBe(before);
  });
});
