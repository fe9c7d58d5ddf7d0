// The last typed fields (issue 43 §4, docs/graphql.md): `Company.events` pages the company's
// events by position with the filters of GET /events and answers what REST answers;
// `Email.emailKind` is an enum with REST's `kind`; `LateFee.amountMoney` is Money; the
// date-override mutations take an input object, the old arguments still accepted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkers, type Workers } from '../../src/workers/runtime.js';
import type { TestApp } from '../helpers/app.js';
import { newId } from '../../src/ids.js';
import { blankCompany, createDomainApp, ok, post, salon, type World } from '../helpers/domain.js';
import { createAccountWithKeys } from '../helpers/factories.js';

let t: TestApp;
let w: World;
let workers: Workers;
beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
  workers = await startWorkers(t.services, { consume: false });
});
afterAll(async () => {
  await workers?.stop();
  await t?.close();
});

const gql = async (auth: Record<string, string>, query: string, variables: Record<string, unknown> = {}) =>
  (await t.app.inject({ method: 'POST', url: '/graphql', headers: auth, payload: { query, variables } })).json();
const get = async (auth: Record<string, string>, url: string) =>
  ok(await t.app.inject({ method: 'GET', url, headers: auth }));

const COMPANY_EVENTS = `query($first: Int, $after: String, $type: String, $afterPosition: EventPosition) {
  viewer { company { events(first: $first, after: $after, type: $type, afterPosition: $afterPosition) {
    totalCount
    edges { cursor node { _id type position createdAt data } }
    pageInfo { hasNextPage endCursor }
  } } }
}`;

describe('Company.events', () => {
  it('pages by position, oldest first, with the filters of GET /events, as REST answers', async () => {
    const c = await blankCompany(t.dbs, w);
    const made = [];
    for (const name of ['Ada', 'Bo', 'Cy'])
      made.push(await post(t.app, '/api/v1/customers', c.auth, { name, email: `${name}@example.com` }));
    await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/customers/${made[0]._id}`,
      headers: c.auth,
      payload: { name: 'Ada B' },
    });
    await workers.idle();

    const rest = (await get(c.auth, '/api/v1/events?after=0&limit=100')) as Array<Record<string, unknown>>;
    expect(rest.map((e) => e.type)).toEqual([
      'customer.created',
      'customer.created',
      'customer.created',
      'customer.updated',
    ]);
    const seen: unknown[] = [];
    let after: string | undefined;
    for (;;) {
      const body = await gql(c.auth, COMPANY_EVENTS, { first: 3, after });
      expect(body.errors).toBeUndefined();
      const page = body.data.viewer.company.events;
      seen.push(...page.edges.map((e: { node: unknown }) => e.node));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(seen).toEqual(
      rest.map(({ _id, type, position, createdAt, data }) => ({ _id, type, position, createdAt, data })),
    );

    const firstPosition = rest[0]!.position as number;
    const filtered = await gql(c.auth, COMPANY_EVENTS, { type: 'customer.created', afterPosition: firstPosition });
    const restFiltered = await get(c.auth, `/api/v1/events?after=${firstPosition}&type=customer.created`);
    expect(filtered.data.viewer.company.events.edges.map((e: { node: { _id: string } }) => e.node._id)).toEqual(
      restFiltered.map((e: { _id: string }) => e._id),
    );
    expect(filtered.data.viewer.company.events.totalCount).toBe(2);

    const bad = await gql(c.auth, COMPANY_EVENTS, { type: 'no.such' });
    expect(bad.errors[0].extensions).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'type' }] });
    const forged = await gql(c.auth, COMPANY_EVENTS, { after: 'nope' });
    expect(forged.errors[0].extensions).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'after' }] });
  });

  it('needs events:read, and the rest of the answer resolves without it', async () => {
    const { tokenWithScopes } = await import('../helpers/domain.js');
    const auth = await tokenWithScopes(t.dbs, w, 'company:read');
    const body = await gql(auth, '{ viewer { company { name events { totalCount } } } }');
    expect(body.data.viewer.company).toEqual({ name: expect.any(String), events: null });
    expect(body.errors[0].extensions).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      details: { requiredScope: 'events:read' },
    });
  });
});

describe('Email.emailKind and LateFee.amountMoney', () => {
  it('answer the enum and the Money of what REST answers as strings and integers', async () => {
    const c = await blankCompany(t.dbs, w, { currency: 'USD' });
    const { service } = await salon(t.app, c.auth, {
      price: 5000,
      cancellationPolicy: { freeUntilMinutesBefore: 60, lateFee: { amount: 4000 } },
    });
    // Logged e-mails as the relay writes them: a receipt, and one of no kind (a team invitation).
    for (const kind of ['payment_receipt', null])
      await t.dbs.test.prisma.email.create({
        data: {
          id: newId(),
          companyId: c.company.id,
          to: 'ada@example.com',
          from: 'shop@example.com',
          subject: 'Hello',
          text: 'Hello',
          html: '<p>Hello</p>',
          headers: {},
          status: 'logged',
          kind,
        },
      });
    const emails = await get(c.auth, '/api/v1/emails');
    expect(emails.map((e: { kind: string }) => e.kind)).toEqual([null, 'payment_receipt']);

    const body = await gql(
      c.auth,
      `query($id: ID!) {
        emails { nodes { _id kind emailKind } }
        service(id: $id) { cancellationPolicy { lateFee { amount percent amountMoney { amount currency } } } }
      }`,
      { id: service._id },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.emails.nodes).toEqual([
      { _id: emails[0]._id, kind: null, emailKind: null },
      { _id: emails[1]._id, kind: 'payment_receipt', emailKind: 'payment_receipt' },
    ]);
    expect(body.data.service.cancellationPolicy.lateFee).toEqual({
      amount: 4000,
      percent: null,
      amountMoney: { amount: 4000, currency: 'USD' },
    });

    const percent = await post(t.app, '/api/v1/services', c.auth, {
      name: 'Colour',
      durationMinutes: 30,
      price: 1000,
      cancellationPolicy: { freeUntilMinutesBefore: 60, lateFee: { percent: 50 } },
    });
    const byPercent = await gql(
      c.auth,
      'query($id: ID!) { service(id: $id) { cancellationPolicy { lateFee { percent amountMoney { amount } } } } }',
      { id: percent._id },
    );
    expect(byPercent.data.service.cancellationPolicy.lateFee).toEqual({ percent: 50, amountMoney: null });
  });
});

describe('putDateOverride and deleteDateOverride with an input object', () => {
  const PUT = `mutation($e: ID!, $input: PutDateOverrideInput) {
    putDateOverride(employeeId: $e, input: $input) { employeeId date intervals { start end } }
  }`;
  const DELETE = `mutation($e: ID!, $input: DeleteDateOverrideInput) {
    deleteDateOverride(employeeId: $e, input: $input) { date }
  }`;

  it('set and remove what the old arguments set and remove, and name a missing date', async () => {
    const c = await blankCompany(t.dbs, w);
    const employee = await post(t.app, '/api/v1/employees', c.auth, { name: 'Eve' });
    const intervals = [{ start: '10:00', end: '14:00' }];

    const put = await gql(c.auth, PUT, { e: employee._id, input: { date: '2031-05-06', intervals } });
    expect(put.errors).toBeUndefined();
    expect(put.data.putDateOverride).toEqual({ employeeId: employee._id, date: '2031-05-06', intervals });
    const old = await gql(
      c.auth,
      `mutation($e: ID!) { putDateOverride(employeeId: $e, date: "2031-05-07", intervals: []) { date intervals { start } } }`,
      { e: employee._id },
    );
    expect(old.data.putDateOverride).toEqual({ date: '2031-05-07', intervals: [] });
    const rest = await get(c.auth, `/api/v1/employees/${employee._id}/date-overrides?from=2031-05-01`);
    expect(rest.map((o: { date: string }) => o.date).sort()).toEqual(['2031-05-06', '2031-05-07']);

    const removed = await gql(c.auth, DELETE, { e: employee._id, input: { date: '2031-05-06' } });
    expect(removed.data.deleteDateOverride).toEqual({ date: '2031-05-06' });
    const again = await gql(c.auth, DELETE, { e: employee._id, input: { date: '2031-05-06' } });
    expect(again.errors[0].extensions.code).toBe('NOT_FOUND');

    // Neither form: the date is named, and nothing changes.
    const none = await gql(c.auth, PUT, { e: employee._id });
    expect(none.errors[0].extensions).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'date' }] });
    const noDate = await gql(c.auth, DELETE, { e: employee._id });
    expect(noDate.errors[0].extensions).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'date' }] });
    const after = await get(c.auth, `/api/v1/employees/${employee._id}/date-overrides?from=2031-05-01`);
    expect(after.map((o: { date: string }) => o.date)).toEqual(['2031-05-07']);
  });
});
