// Team roles in the admin area (src/admin/roles.ts, src/schema/team; docs/admin.md, Team and
// roles): every page × role gives the status the roles table says (200, 403 or 404), every
// forbidden post is a 403 that changes nothing, staff see only their employee's records, and
// every successful post is in the audit log with who did it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { createTestApp } from '../helpers/app.js';
import { createAccountWithKeys } from '../helpers/factories.js';
import { newId } from '../../src/ids.js';
import { createOAuthClient } from '../../src/schema/credentials/create-oauth-client.js';
import { Browser, hiddenValue, pkce, tokenRequest, basic } from '../auth/oauth/oauth-helpers.js';
import { addMember, bookInSalon, injectSignIn } from './admin-helpers.js';

type World = Awaited<ReturnType<typeof createAccountWithKeys>>;
type Who = 'owner' | 'admin' | 'staff' | 'viewer' | 'stranger';

let t: TestApp;
let owner: World;
const people = {} as Record<Who, { world: World; cookie: string; csrf: string }>;
let companyId: string;
let ownEmployee: string;
let otherEmployee: string;
let bookings: Array<{ _id: string; employeeId: string; startTime: string }>;

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
  // The second booking is another employee's (a fixture: which employee a slot went to is the
  // availability's choice).
  await t.dbs.test.prisma.booking.update({ where: { id: bookings[1]!._id }, data: { employeeId: otherEmployee } });
  const worlds: Record<Who, World> = {
    owner,
    admin: await createAccountWithKeys(t.dbs),
    staff: await createAccountWithKeys(t.dbs),
    viewer: await createAccountWithKeys(t.dbs),
    stranger: await createAccountWithKeys(t.dbs),
  };
  for (const role of ['admin', 'staff', 'viewer'] as const)
    await addMember(t.dbs, {
      team: owner.account.id,
      member: worlds[role].account.id,
      role,
      testEmployeeId: role === 'staff' ? ownEmployee : null,
    });
  for (const [who, world] of Object.entries(worlds) as Array<[Who, World]>) {
    const cookie = await injectSignIn(t.app, world);
    const page = await get(`/admin/test/companies/${world.test.id}/calendar`, cookie);
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
    [() => c('/calendar'), 200, 200, 200, 200],
    [() => c('/bookings'), 301, 301, 301, 301],
    [() => c(`/bookings/${bookings[0]!._id}`), 200, 200, 200, 200],
    [() => c('/customers'), 200, 200, 200, 200],
    [() => c('/staff'), 200, 200, 403, 200],
    [() => c(`/staff/${ownEmployee}`), 200, 200, 200, 200],
    [() => c(`/staff/${otherEmployee}`), 200, 200, 403, 200],
    [() => c('/emails'), 200, 200, 403, 200],
    [() => c('/api-keys'), 200, 200, 403, 403],
    [() => c('/webhooks'), 200, 200, 403, 403],
    [() => c('/request-logs'), 200, 200, 403, 403],
    [() => c('/team'), 200, 200, 403, 403],
    [() => c('/audit'), 200, 200, 403, 403],
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

  it('staff land on the calendar, and see no company of a mode their membership names no employee in', async () => {
    const res = await get(c(), people.staff.cookie);
    expect(res.headers.location).toBe(c('/calendar'));
    expect((await get(`/admin/live/companies/${owner.live.id}/calendar`, people.staff.cookie)).statusCode).toBe(404);
    expect((await get(`/admin/live/companies/${owner.live.id}/calendar`, people.viewer.cookie)).statusCode).toBe(200);
  });

  it('the side navigation shows a role only what it may open', async () => {
    const staff = (await get(c('/calendar'), people.staff.cookie)).body;
    expect(staff).not.toContain(c('/api-keys'));
    expect(staff).not.toContain(`href="${c('/staff')}"`);
    expect(staff).toContain(c(`/staff/${ownEmployee}`));
    const viewer = (await get(c('/calendar'), people.viewer.cookie)).body;
    expect(viewer).not.toContain(c('/api-keys'));
    expect(viewer).toContain(c('/emails'));
    expect((await get(c('/calendar'), people.admin.cookie)).body).toContain(c('/api-keys'));
  });

  it('a member sees the team’s companies in the picker and list, a stranger does not', async () => {
    const list = (await get('/admin/live', people.viewer.cookie)).body;
    expect(list).toContain(owner.live.name);
    expect((await get('/admin/live', people.stranger.cookie)).body).not.toContain(owner.live.name);
  });
});

describe('the calendar by role', () => {
  it('staff see their own column only (another employee’s calendar is a 404); a viewer gets no booking links', async () => {
    const mine = `data-employee="${ownEmployee}"`;
    const theirs = `data-employee="${otherEmployee}"`;
    const owner = (await get(c('/calendar'), people.owner.cookie)).body;
    expect(owner).toContain(mine);
    expect(owner).toContain(theirs);
    expect(owner).toContain('/bookings/new?employeeId=');
    const staff = await get(c('/calendar'), people.staff.cookie);
    expect(staff.statusCode).toBe(200);
    expect(staff.body).toContain(mine);
    expect(staff.body).not.toContain(theirs);
    expect(staff.body).not.toContain(`value="${otherEmployee}"`);
    expect((await get(c(`/calendar?view=week&employee=${otherEmployee}`), people.staff.cookie)).statusCode).toBe(404);
    expect((await get(c(`/calendar?view=week&employee=${ownEmployee}`), people.staff.cookie)).statusCode).toBe(200);
    const viewer = (await get(c('/calendar'), people.viewer.cookie)).body;
    expect(viewer).toContain(theirs);
    expect(viewer).not.toContain('/bookings/new?');
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

describe('staff see their employee only', () => {
  const weekOf = (b: { startTime: string }) => b.startTime.slice(0, 10);

  it('the calendar week shows staff only their employee’s bookings; another employee’s is a 404', async () => {
    for (const b of bookings) {
      const week = c(`/calendar?view=week&date=${weekOf(b)}`);
      const res = await get(week, people.staff.cookie);
      expect(res.statusCode).toBe(200);
      expect(res.body.includes(b._id)).toBe(b === bookings[0]);
      expect((await get(`${week}&employee=${otherEmployee}`, people.staff.cookie)).statusCode).toBe(404);
      // The owner sees each in its employee's week (a week view is one employee's).
      const employee = b === bookings[0] ? ownEmployee : otherEmployee;
      expect((await get(`${week}&employee=${employee}`, people.owner.cookie)).body).toContain(b._id);
    }
  });

  it('another employee’s booking page is a 404', async () => {
    expect((await get(c(`/bookings/${bookings[1]!._id}`), people.staff.cookie)).statusCode).toBe(404);
    expect((await get(c(`/bookings/${bookings[1]!._id}`), people.viewer.cookie)).statusCode).toBe(200);
  });

  it('customers: only those with a booking with their employee; another is a 404, also for edits', async () => {
    const theirs = await t.dbs.test.prisma.customer.findMany({
      where: { companyId, bookings: { some: { employeeId: ownEmployee } } },
      select: { id: true },
    });
    const other = await t.dbs.test.prisma.customer.findFirstOrThrow({
      where: { companyId, bookings: { none: { employeeId: ownEmployee } } },
    });
    expect(theirs.length).toBeGreaterThan(0);
    const list = (await get(c('/customers'), people.staff.cookie)).body;
    for (const x of theirs.slice(0, 25)) expect(list).toContain(x.id);
    expect(list).not.toContain(other.id);
    expect((await get(c(`/customers/${theirs[0]!.id}`), people.staff.cookie)).statusCode).toBe(200);
    expect((await get(c(`/customers/${other.id}`), people.staff.cookie)).statusCode).toBe(404);
    const res = await postAs('staff', c(`/customers/${other.id}`), { name: 'Changed', email: other.email });
    expect(res.statusCode).toBe(404);
    expect((await t.dbs.test.prisma.customer.findUniqueOrThrow({ where: { id: other.id } })).name).toBe(other.name);
  });
});

describe('invitations, removal and consent', () => {
  const inviteLink = async (email: string) => {
    const mail = await t.dbs.test.prisma.email.findFirstOrThrow({
      where: { companyId, to: email, kind: 'team_invitation' },
      orderBy: { id: 'desc' },
    });
    expect(mail.status).toBe('logged');
    return new URL(/https?:\/\/\S+\/admin\/invitations\/\S+/.exec(mail.text)![0]).pathname;
  };
  const invite = async (email: string, role: string, employeeId = '') => {
    const res = await postAs('owner', c('/team/invitations'), { email, role, employeeId });
    expect(res.statusCode).toBe(303);
    return inviteLink(email);
  };

  it('staff and viewers may not invite; bad input is named, nothing sent', async () => {
    const count = () => t.dbs.live.prisma.invitation.count({ where: { teamAccountId: owner.account.id } });
    const before = await count();
    for (const who of ['staff', 'viewer'] as const)
      expect((await postAs(who, c('/team/invitations'), { email: 'x@example.com', role: 'admin' })).statusCode).toBe(
        403,
      );
    const bad = await postAs('owner', c('/team/invitations'), { email: 'not-an-email', role: 'staff' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('f-email-error');
    const noEmployee = await postAs('owner', c('/team/invitations'), { email: 'staff@example.com', role: 'staff' });
    expect(noEmployee.statusCode).toBe(400);
    expect(noEmployee.body).toContain('f-employeeId-error');
    const dup = await postAs('owner', c('/team/invitations'), {
      email: people.viewer.world.email,
      role: 'viewer',
    });
    expect(dup.statusCode).toBe(409);
    expect(await count()).toBe(before);
  });

  it('a new person sets a password, lands in the team; the link then works no more', async () => {
    const email = `new-${newId()}@example.com`;
    const link = await invite(email, 'staff', ownEmployee);
    const b = new Browser(t.app);
    const page = await b.request('GET', link);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Choose a password');
    const short = await b.request('POST', link, {
      csrf_token: hiddenValue(page.body, 'csrf_token'),
      password: 'short',
    });
    expect(short.statusCode).toBe(400);
    const res = await b.request('POST', link, {
      csrf_token: hiddenValue(page.body, 'csrf_token'),
      password: 'a-long-enough-password',
    });
    expect(res.statusCode).toBe(303);
    expect((await b.request('GET', c('/calendar'))).statusCode).toBe(200);
    expect((await b.request('GET', c('/api-keys'))).statusCode).toBe(403);
    const again = await new Browser(t.app).request('GET', link);
    expect(again.statusCode).toBe(410);
    expect(again.body).toContain('already used');
    const m = await t.dbs.live.prisma.membership.findFirstOrThrow({ where: { member: { email } } });
    expect(m).toMatchObject({ role: 'staff', testEmployeeId: ownEmployee, liveEmployeeId: null });
  });

  it('an expired link is a 410 and makes nobody a member', async () => {
    const email = `late-${newId()}@example.com`;
    const link = await invite(email, 'viewer');
    await t.dbs.live.prisma
      .$executeRaw`UPDATE invitations SET expires_at = now() - interval '1 minute' WHERE email = ${email}`;
    const b = new Browser(t.app);
    const page = await b.request('GET', link);
    expect(page.statusCode).toBe(410);
    expect(page.body).toContain('expired');
    const login = await b.request('GET', '/admin/login');
    const res = await b.request('POST', link, {
      csrf_token: hiddenValue(login.body, 'csrf_token'),
      password: 'a-long-enough-password',
    });
    expect(res.statusCode).toBe(410);
    expect(await t.dbs.live.prisma.account.count({ where: { email } })).toBe(0);
  });

  it('only owners and admins may approve an app; removing an admin ends their sessions and the app’s refresh', async () => {
    const app = await createOAuthClient(t.dbs, {
      accountId: owner.account.id,
      name: 'Team App',
      redirectUris: ['https://client.example.com/callback'],
      scopes: ['bookings:read'],
      type: 'confidential',
    });
    const query = (challenge: string) => ({
      response_type: 'code',
      client_id: app.client.clientId,
      redirect_uri: 'https://client.example.com/callback',
      scope: 'bookings:read',
      state: 's',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    // Staff: the team's company is not offered, and posting it anyway is a 403.
    const staff = new Browser(t.app);
    const p1 = pkce();
    const refused = await staff.authorize(query(p1.challenge), people.staff.world, { company: `test:${companyId}` });
    expect(refused.statusCode).toBe(403);
    const consent = await staff.request('GET', `/oauth/authorize?${new URLSearchParams(query(p1.challenge))}`);
    expect(consent.body).not.toContain(`test:${companyId}`);

    // A new admin, by invitation, approves; then is removed.
    const email = `admin-${newId()}@example.com`;
    const link = await invite(email, 'admin');
    const b = new Browser(t.app);
    const page = await b.request('GET', link);
    await b.request('POST', link, { csrf_token: hiddenValue(page.body, 'csrf_token'), password: 'admin-password-1' });
    const p2 = pkce();
    const approved = await b.authorize(
      query(p2.challenge),
      { email, password: 'admin-password-1' },
      {
        company: `test:${companyId}`,
      },
    );
    expect(approved.statusCode).toBe(303);
    const code = new URL(String(approved.headers.location)).searchParams.get('code')!;
    const tokens = await tokenRequest(
      t.app,
      {
        grant_type: 'authorization_code',
        code,
        redirect_uri: 'https://client.example.com/callback',
        code_verifier: p2.verifier,
      },
      basic(app.client.clientId, app.clientSecret!),
    );
    expect(tokens.statusCode).toBe(200);
    const { refresh_token } = tokens.json();

    const member = await t.dbs.live.prisma.membership.findFirstOrThrow({ where: { member: { email } } });
    const removed = await postAs('owner', c(`/team/members/${member.id}/remove`));
    expect(removed.statusCode).toBe(303);
    expect(await t.dbs.live.prisma.session.count({ where: { accountId: member.memberAccountId } })).toBe(0);
    expect((await b.request('GET', c('/bookings'))).statusCode).toBe(303);
    const refresh = await tokenRequest(
      t.app,
      { grant_type: 'refresh_token', refresh_token },
      basic(app.client.clientId, app.clientSecret!),
    );
    expect(refresh.statusCode).toBe(400);
    expect(refresh.json().error).toBe('invalid_grant');
    const entry = await t.dbs.live.prisma.auditEntry.findFirstOrThrow({
      where: { teamAccountId: owner.account.id, action: 'team.remove' },
      orderBy: { id: 'desc' },
    });
    expect(entry.before).toMatchObject({ email, role: 'admin' });
  });

  it('a changed role counts on the next request', async () => {
    const m = await t.dbs.live.prisma.membership.findFirstOrThrow({
      where: { memberAccountId: people.viewer.world.account.id },
    });
    expect((await get(c('/api-keys'), people.viewer.cookie)).statusCode).toBe(403);
    expect((await postAs('owner', c(`/team/members/${m.id}`), { role: 'admin' })).statusCode).toBe(303);
    expect((await get(c('/api-keys'), people.viewer.cookie)).statusCode).toBe(200);
    expect((await postAs('owner', c(`/team/members/${m.id}`), { role: 'viewer' })).statusCode).toBe(303);
    expect((await get(c('/api-keys'), people.viewer.cookie)).statusCode).toBe(403);
  });
});

describe('the audit log page', () => {
  it('lists actions with their actor, filters by action, and never shows a key', async () => {
    const created = await postAs('owner', c('/api-keys'), { name: 'audited' });
    const key = /svc_sk_test_[A-Za-z0-9_-]+/.exec(created.body)![0];
    const page = await get(c('/audit?action=api-keys.create'), people.admin.cookie);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('api-keys.create');
    expect(page.body).toContain(owner.email);
    expect(page.body).not.toContain(key);
    expect(page.body).not.toContain('team.change-role</code>');
    expect((await get(c('/audit'), people.viewer.cookie)).statusCode).toBe(403);
  });
});
