// Global object identification (issue 43 §2, docs/graphql.md "Global ids"): every record type
// implements Node; node(id:) and nodes(ids:) refetch a record as its own field reads it, with that
// field's scope, and another company's id answers exactly as an id of no record.
import { isObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import { schema } from '../../src/schema/index.js';
import { globalId, NODE_TYPE_NAMES } from '../../src/schema/node.js';
import type { TestApp } from '../helpers/app.js';
import {
  blankCompany,
  createDomainApp,
  futureHour,
  post,
  salon,
  tokenWithScopes,
  type World,
} from '../helpers/domain.js';
import { createAccountWithKeys } from '../helpers/factories.js';

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
});
afterAll(async () => {
  await t?.close();
});

const gql = async (auth: Record<string, string>, query: string, variables: Record<string, unknown> = {}) =>
  (await t.app.inject({ method: 'POST', url: '/graphql', headers: auth, payload: { query, variables } })).json();

async function bookedCompany() {
  const c = await blankCompany(t.dbs, w);
  const { service, employee } = await salon(t.app, c.auth, { price: 0 });
  const booking = await post(t.app, '/api/v1/bookings', c.auth, {
    serviceId: service._id,
    employeeId: employee._id,
    startTime: futureHour(),
    customer: { name: 'Ada', email: 'ada@example.com' },
  });
  return { ...c, service, employee, booking };
}

const BOOKING_FIELDS = '_id startTime status customer { _id name } service { _id name } employee { name }';

describe('the Node interface', () => {
  it('is implemented by every record type, each with its global id beside its _id', () => {
    const implementing = Object.values(schema.getTypeMap())
      .filter((type) => isObjectType(type) && type.getInterfaces().some((i) => i.name === 'Node'))
      .map((type) => type.name)
      .sort();
    expect(implementing).toEqual([...NODE_TYPE_NAMES].sort());
    const withRestIds = Object.values(schema.getTypeMap())
      .filter((type) => isObjectType(type) && !type.name.startsWith('__') && '_id' in type.getFields())
      .map((type) => type.name);
    // A webhook endpoint's one-time answer with its secret is refetched as the WebhookEndpoint it is.
    expect(withRestIds.filter((name) => !NODE_TYPE_NAMES.includes(name))).toEqual(['WebhookEndpointWithSecret']);
  });
});

describe('node(id:) and nodes(ids:)', () => {
  it('refetch a record as its own field answers it, the global id being Node.id', async () => {
    const c = await bookedCompany();
    const listed = await gql(c.auth, `{ bookings(first: 1) { edges { node { id ${BOOKING_FIELDS} } } } }`);
    const { id, ...own } = listed.data.bookings.edges[0].node;
    expect(id).toBe(globalId('Booking', c.booking._id));
    expect(id).not.toBe(c.booking._id);

    const byField = await gql(c.auth, `query($id: ID!) { booking(id: $id) { ${BOOKING_FIELDS} } }`, {
      id: c.booking._id,
    });
    expect(own).toEqual(byField.data.booking);
    const refetched = await gql(
      c.auth,
      `query($id: ID!) { node(id: $id) { __typename id ... on Booking { ${BOOKING_FIELDS} } } }`,
      {
        id,
      },
    );
    expect(refetched).toEqual({ data: { node: { __typename: 'Booking', id, ...byField.data.booking } } });

    const customerId = globalId('Customer', c.booking.customerId);
    const many = await gql(
      c.auth,
      'query($ids: [ID!]!) { nodes(ids: $ids) { id ... on Customer { name } ... on Service { name } ... on Company { name } } }',
      { ids: [customerId, globalId('Service', c.service._id), globalId('Company', c.company.id)] },
    );
    expect(many.errors).toBeUndefined();
    expect(many.data.nodes).toEqual([
      { id: customerId, name: 'Ada' },
      { id: globalId('Service', c.service._id), name: 'Cut' },
      { id: globalId('Company', c.company.id), name: c.company.name },
    ]);
  });

  it("answers another company's id exactly as an id of no record, and an _id as no global id", async () => {
    const a = await bookedCompany();
    const b = await bookedCompany();
    const query = 'query($id: ID!) { node(id: $id) { id } }';
    const foreign = await gql(a.auth, query, { id: globalId('Booking', b.booking._id) });
    const none = await gql(a.auth, query, { id: globalId('Booking', newId()) });
    expect(foreign.errors[0].extensions.code).toBe('NOT_FOUND');
    expect({ ...foreign, errors: foreign.errors.map((e: object) => ({ ...e, locations: null })) }).toEqual({
      ...none,
      errors: none.errors.map((e: object) => ({ ...e, locations: null })),
    });
    const otherCompany = await gql(a.auth, query, { id: globalId('Company', b.company.id) });
    expect(otherCompany.errors[0].extensions.code).toBe('NOT_FOUND');
    const restId = await gql(a.auth, query, { id: a.booking._id });
    expect(restId.errors[0]).toMatchObject({
      message: 'No such node (give a global id, Node.id, not an _id)',
      extensions: { code: 'NOT_FOUND' },
    });

    const many = await gql(a.auth, 'query($ids: [ID!]!) { nodes(ids: $ids) { id } }', {
      ids: [globalId('Booking', a.booking._id), globalId('Booking', b.booking._id), 'nope'],
    });
    expect(many.data.nodes).toEqual([{ id: globalId('Booking', a.booking._id) }, null, null]);
    expect(
      many.errors.map((e: { path: unknown[]; extensions: { code: string } }) => [e.path, e.extensions.code]),
    ).toEqual([
      [['nodes', 1], 'NOT_FOUND'],
      [['nodes', 2], 'NOT_FOUND'],
    ]);
  });

  it("needs the scope of the record's own field", async () => {
    // The token belongs to the world's sandbox company: a booking of its own, through its key.
    const key = { authorization: `Bearer ${w.testKey.key}` };
    const { service, employee } = await salon(t.app, key, { price: 0 });
    const booking = await post(t.app, '/api/v1/bookings', key, {
      serviceId: service._id,
      employeeId: employee._id,
      startTime: futureHour(3),
      customer: { name: 'Bo', email: 'bo@example.com' },
    });
    const ids = [globalId('Booking', booking._id), globalId('Customer', booking.customerId)];
    const auth = await tokenWithScopes(t.dbs, w, 'customers:read');
    const res = await gql(auth, 'query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids });
    expect(res.data.nodes).toEqual([null, { id: ids[1] }]);
    expect(res.errors).toHaveLength(1);
    expect(res.errors[0]).toMatchObject({
      path: ['nodes', 0],
      extensions: { code: 'INSUFFICIENT_SCOPE', details: { requiredScope: 'bookings:read' } },
    });
    const one = await gql(auth, 'query($id: ID!) { node(id: $id) { id } }', { id: ids[0] });
    expect(one.errors[0].extensions.code).toBe('INSUFFICIENT_SCOPE');
  });
});
