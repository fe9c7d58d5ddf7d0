// A page cursor is resolved inside the caller's company and mode (docs/graphql.md, Lists;
// docs/api.md, Pagination): a cursor naming another company's record, or a record of the other
// mode, answers exactly as a cursor naming no record, on every connection (root and related), in
// every order, forward and backward, on GraphQL and REST. Same-company cursors page as they always
// did, including one whose record the list's filters (or its parent) leave out.
//
// Every list below holds, in each mode, five records of company A (two before, one in the middle,
// two after, by id and by name or start time) around one record of company B; A's middle record
// of one mode is the other mode's foreign record. Each foreign record's stand-in, a cursor of no
// record, is an id made right after it, so the two stand at the same place in every id order: the
// only thing that may tell their answers apart is whether the record exists.
import { formatPrismaCursor } from '@pothos/plugin-prisma';
import { getNamedType, isObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrismaClient } from '../../src/generated/prisma/client.js';
import { newId } from '../../src/ids.js';
import { schema } from '../../src/schema/index.js';
import { encodeCursor } from '../../src/schema/pagination.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { bearer, createAccountWithKeys } from '../helpers/factories.js';

type Mode = 'test' | 'live';
const MODES: Mode[] = ['test', 'live'];
const other = (m: Mode): Mode => (m === 'test' ? 'live' : 'test');

interface Co {
  key: string;
  id: string;
  mode: Mode;
  db: PrismaClient;
  auth: Record<string, string>;
}

/** The records every list below hangs from, one set per company. */
interface Parents {
  employee: string;
  otherEmployee: string;
  service: string;
  classService: string;
  customer: string;
  otherCustomer: string;
  session: string;
  booking: string;
  visit: string;
  endpoint: string;
  attemptsEndpoint: string;
  delivery: string;
}

let t: TestApp;
const A = {} as Record<Mode, Co>;
const B = {} as Record<Mode, Co>;
const parents = new Map<string, Parents>();

const HOUR = 3_600_000;
const BASE = Date.UTC(2031, 0, 6);
/** Value 0 and 1 come before company B's record (2), 3 is A's own middle record, 4 and 5 come after. */
const at = (v: number, offsetMs = 0) => new Date(BASE + (1 + v) * HOUR + offsetMs);
const NAMES = ['Adam', 'Berta', 'Carl', 'Dora', 'Emil', 'Frida'];

// ---------------------------------------------------------------------------------------------
// Families of records: one table's rows, made for A (both modes) around B's, with their ids in
// an order planned up front.

interface Family {
  modes: Mode[];
  create(c: Co, p: Parents, id: string, v: number): Promise<unknown>;
}

/** Ids of a family: A's by company key and value, and each foreign record with its stand-in. */
interface Made {
  own: Map<string, string[]>;
  foreign: Map<Mode, Array<{ kind: string; id: string; ghost: string }>>;
}

const made = new Map<string, Made>();

const families: Record<string, Family> = {
  employees: {
    modes: MODES,
    create: (c, _p, id, v) =>
      c.db.employee.create({ data: { id, companyId: c.id, name: `${NAMES[v]} employee`, workingHours: {} } }),
  },
  services: {
    modes: MODES,
    create: (c, _p, id, v) =>
      c.db.service.create({ data: { id, companyId: c.id, name: `${NAMES[v]} service`, durationMinutes: 30 } }),
  },
  customers: {
    modes: MODES,
    create: (c, _p, id, v) =>
      c.db.customer.create({
        data: { id, companyId: c.id, name: `${NAMES[v]} probe`, email: `probe-${id}@example.com` },
      }),
  },
  locations: {
    modes: MODES,
    create: (c, _p, id, v) =>
      c.db.location.create({
        data: { id, companyId: c.id, name: `${NAMES[v]} site`, address: 'Somewhere 1', timeZone: 'Europe/Berlin' },
      }),
  },
  resources: {
    modes: MODES,
    create: (c, _p, id, v) =>
      c.db.resource.create({ data: { id, companyId: c.id, name: `${NAMES[v]} room`, kind: 'room' } }),
  },
  bookings: {
    modes: MODES,
    create: (c, p, id, v) => booking(c, { id, start: at(v), employeeId: p.employee, customerId: p.customer }),
  },
  roster: {
    modes: MODES,
    create: (c, p, id, v) =>
      booking(c, {
        id,
        start: at(v, 30 * 60_000),
        employeeId: p.otherEmployee,
        customerId: p.otherCustomer,
        serviceId: p.classService,
        classSessionId: p.session,
      }),
  },
  sessions: {
    modes: MODES,
    create: (c, p, id, v) =>
      c.db.classSession.create({
        data: {
          id,
          companyId: c.id,
          serviceId: p.classService,
          employeeId: p.otherEmployee,
          startTime: at(v),
          endTime: at(v, 30 * 60_000),
          capacity: 10,
        },
      }),
  },
  closures: {
    modes: MODES,
    create: (c, _p, id, v) =>
      c.db.closure.create({
        data: { id, companyId: c.id, startTime: at(v), endTime: at(v, 30 * 60_000), reason: `${NAMES[v]} closed` },
      }),
  },
  timeOff: {
    modes: MODES,
    create: (c, p, id, v) =>
      c.db.timeOff.create({
        data: { id, companyId: c.id, employeeId: p.employee, startTime: at(v), endTime: at(v, 30 * 60_000) },
      }),
  },
  dateOverrides: {
    modes: MODES,
    create: (c, p, id, v) =>
      c.db.dateOverride.create({
        data: { id, companyId: c.id, employeeId: p.employee, date: `2031-02-0${v + 1}`, intervals: [] },
      }),
  },
  notifications: {
    modes: MODES,
    create: (c, p, id, v) =>
      c.db.notification.create({
        data: {
          id,
          companyId: c.id,
          bookingId: p.booking,
          channel: 'email',
          offsetMinutes: 60 * (v + 1),
          dueAt: at(v),
          status: 'scheduled',
        },
      }),
  },
  bookingPayments: {
    modes: MODES,
    create: (c, p, id, v) =>
      c.db.payment.create({
        data: { id, companyId: c.id, bookingId: p.booking, amount: 100 + v, currency: 'EUR', status: 'failed' },
      }),
  },
  visitPayments: {
    modes: MODES,
    create: (c, p, id, v) =>
      c.db.payment.create({
        data: { id, companyId: c.id, visitId: p.visit, amount: 100 + v, currency: 'EUR', status: 'failed' },
      }),
  },
  endpoints: {
    modes: MODES,
    create: (c, _p, id, v) => endpoint(c, id, v),
  },
  deliveries: {
    modes: MODES,
    create: async (c, p, id) => {
      const event = await c.db.event.create({
        data: { id: newId(), companyId: c.id, type: 'booking.created', data: {} },
      });
      return c.db.webhookDelivery.create({ data: { id, companyId: c.id, endpointId: p.endpoint, eventId: event.id } });
    },
  },
  attempts: {
    modes: MODES,
    create: (c, p, id, v) =>
      c.db.webhookAttempt.create({
        data: { id, companyId: c.id, deliveryId: p.delivery, statusCode: 500 + v, durationMs: 10 },
      }),
  },
  emails: {
    modes: ['test'],
    create: (c, _p, id, v) =>
      c.db.email.create({
        data: {
          id,
          companyId: c.id,
          to: 'someone@example.com',
          from: 'shop@example.com',
          subject: `${NAMES[v]} mail`,
          text: 'Hello',
          html: '<p>Hello</p>',
          headers: {},
          status: 'sent',
        },
      }),
  },
  testClocks: {
    modes: ['test'],
    create: (c, _p, id, v) => c.db.testClock.create({ data: { id, companyId: c.id, frozenTime: at(v) } }),
  },
  requestLogs: {
    modes: MODES,
    create: (c, _p, id, v) =>
      c.db.requestLog.create({
        data: {
          id,
          companyId: c.id,
          createdAt: new Date(),
          method: 'GET',
          path: `/api/v1/${NAMES[v]}`,
          status: 200,
          durationMs: 1,
          requestId: newId(),
          credentialId: newId(),
          credentialName: 'key',
          credentialPrefix: 'svc_sk',
          ip: '127.0.0.1',
        },
      }),
  },
  events: {
    modes: MODES,
    create: (c, _p, id, v) =>
      c.db.event.create({ data: { id, companyId: c.id, type: 'booking.created', data: { v } } }),
  },
  schedules: {
    modes: MODES,
    create: (c, p, id) =>
      c.db.classSchedule.create({
        data: {
          id,
          companyId: c.id,
          serviceId: p.classService,
          employeeId: p.otherEmployee,
          localStartTime: '09:00',
          rrule: 'FREQ=WEEKLY',
          capacity: 10,
          startsOn: '2031-03-03',
          generatedUntil: new Date(BASE),
        },
      }),
  },
};

function booking(
  c: Co,
  o: { id: string; start: Date; employeeId: string; customerId: string; serviceId?: string; classSessionId?: string },
) {
  const p = parents.get(c.key)!;
  const end = new Date(o.start.getTime() + 30 * 60_000);
  return c.db.booking.create({
    data: {
      id: o.id,
      companyId: c.id,
      serviceId: o.serviceId ?? p.service,
      employeeId: o.employeeId,
      customerId: o.customerId,
      ...(o.classSessionId ? { classSessionId: o.classSessionId } : {}),
      startTime: o.start,
      endTime: end,
      blockStart: o.start,
      blockEnd: end,
      // Completed: holding no employee time, so the rows need no care for overlaps.
      status: 'completed',
      currency: 'EUR',
    },
  });
}

const endpoint = (c: Co, id: string, v: number) =>
  c.db.webhookEndpoint.create({
    data: { id, companyId: c.id, url: `https://hooks.example.com/${NAMES[v]}`, secretEnc: 'x', tokenEnc: 'x' },
  });

async function parentsOf(c: Co): Promise<Parents> {
  const db = c.db;
  const id = () => newId();
  const p = {
    employee: id(),
    otherEmployee: id(),
    service: id(),
    classService: id(),
    customer: id(),
    otherCustomer: id(),
    session: id(),
    booking: id(),
    visit: id(),
    endpoint: id(),
    attemptsEndpoint: id(),
    delivery: id(),
  };
  parents.set(c.key, p);
  // Named after every record of the lists (Z) and far after their times, so that they stand
  // apart at the end of the name and time orders.
  for (const e of [p.employee, p.otherEmployee])
    await db.employee.create({ data: { id: e, companyId: c.id, name: `Zed ${e}`, workingHours: {} } });
  await db.service.create({ data: { id: p.service, companyId: c.id, name: 'Zed cut', durationMinutes: 30 } });
  await db.service.create({
    data: { id: p.classService, companyId: c.id, name: 'Zed yoga', durationMinutes: 30, kind: 'class' },
  });
  for (const cu of [p.customer, p.otherCustomer])
    await db.customer.create({ data: { id: cu, companyId: c.id, name: `Zed ${cu}`, email: `zed-${cu}@example.com` } });
  const far = new Date(BASE + 40 * 24 * HOUR);
  await db.classSession.create({
    data: {
      id: p.session,
      companyId: c.id,
      serviceId: p.classService,
      employeeId: p.otherEmployee,
      startTime: far,
      endTime: new Date(far.getTime() + HOUR),
      capacity: 10,
    },
  });
  await booking(c, { id: p.booking, start: far, employeeId: p.employee, customerId: p.customer });
  await db.visit.create({
    data: {
      id: p.visit,
      companyId: c.id,
      customerId: p.customer,
      startTime: far,
      endTime: new Date(far.getTime() + HOUR),
    },
  });
  await endpoint(c, p.endpoint, 5);
  await endpoint(c, p.attemptsEndpoint, 5);
  const event = await db.event.create({ data: { id: newId(), companyId: c.id, type: 'booking.created', data: {} } });
  await db.webhookDelivery.create({
    data: { id: p.delivery, companyId: c.id, endpointId: p.attemptsEndpoint, eventId: event.id },
  });
  return p;
}

/**
 * Makes a family's rows: A's values 0 and 1 in both modes, B's record (2) in each mode, A's own
 * middle record (3) in each mode, then A's 4 and 5. A foreign record's stand-in is made right
 * after it, before any of A's later records.
 */
async function make(name: string, family: Family) {
  const own = new Map<string, string[]>();
  const foreign = new Map<Mode, Array<{ kind: string; id: string; ghost: string }>>();
  const rows: Array<[Co, string, number]> = [];
  const mine = (c: Co, v: number) => {
    const id = newId();
    rows.push([c, id, v]);
    own.set(c.key, [...(own.get(c.key) ?? []), id]);
    return id;
  };
  const modes = family.modes;
  for (const v of [0, 1]) for (const m of modes) mine(A[m], v);
  for (const m of modes) {
    const id = newId();
    rows.push([B[m], id, 2]);
    foreign.set(m, [{ kind: "another company's record", id, ghost: newId() }]);
  }
  for (const m of modes) {
    const id = mine(A[m], 3);
    const ghost = newId();
    if (modes.includes(other(m))) foreign.get(other(m))!.push({ kind: "the other mode's record", id, ghost });
  }
  for (const v of [4, 5]) for (const m of modes) mine(A[m], v);
  await Promise.all(rows.map(([c, id, v]) => family.create(c, parents.get(c.key)!, id, v)));
  made.set(name, { own, foreign });
}

// ---------------------------------------------------------------------------------------------
// The connections, each with the orders it offers and the selection that reads one page of it.

const PAGE = `totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  edges { cursor node { _id } } nodes { _id } pagination { limit hasMore nextCursor }`;

const NAMED = ['NEWEST_FIRST', 'OLDEST_FIRST', 'NAME'];
const SCHEDULE = ['NEWEST_FIRST', 'OLDEST_FIRST', 'START_TIME', 'START_TIME_DESC'];
const LIST = ['NEWEST_FIRST', 'OLDEST_FIRST'];

type Direction = 'first/after' | 'last/before' | 'limit/cursor';

interface Case {
  name: string;
  /** The schema field it reads, `Type.field`. */
  field: string;
  family: string;
  /** The orderBy values it offers; null: it has no orderBy argument. */
  orders: Array<string | null>;
  /** A relatedConnection: its cursors are @pothos/plugin-prisma's, not pagination.ts's. */
  related: boolean;
  /** Only these page arguments (default first/after and last/before, and limit/cursor at the root). */
  directions?: Direction[];
  operation?: 'query' | 'mutation';
  /** Variables besides the cursors (declarations, and their values for a company). */
  params?: string;
  vars?(c: Co, p: Parents): Record<string, unknown>;
  /** The top-level selection around the connection's arguments. */
  body(args: string): string;
}

const pageArgs = (d: Direction, order: string | null, cursor: string, size = 2) =>
  `${order ? `orderBy: ${order}, ` : ''}${
    d === 'first/after'
      ? `first: ${size}, after: ${cursor}`
      : d === 'last/before'
        ? `last: ${size}, before: ${cursor}`
        : `limit: ${size}, cursor: ${cursor}`
  }`;

const root = (
  name: string,
  family: string,
  orders: Array<string | null>,
  field: string,
  extra?: { params: string; args: string; vars: (c: Co, p: Parents) => Record<string, unknown> },
  directions?: Direction[],
): Case => ({
  name,
  field: `Query.${field}`,
  family,
  orders,
  related: false,
  ...(directions ? { directions } : {}),
  ...(extra ? { params: extra.params, vars: extra.vars } : {}),
  body: (args) => `${field}(${extra ? `${extra.args}, ` : ''}${args}) { ${PAGE} }`,
});

const onEmployee = { params: '$p: ID!', args: 'employeeId: $p', vars: (_c: Co, p: Parents) => ({ p: p.employee }) };
const WINDOW = { from: new Date(BASE).toISOString(), to: new Date(BASE + 24 * HOUR).toISOString() };

const rootCases: Case[] = [
  root('bookings', 'bookings', SCHEDULE, 'bookings'),
  root('bookings in a window', 'bookings', SCHEDULE, 'bookings', {
    params: '$from: DateTime, $to: DateTime',
    args: 'from: $from, to: $to',
    vars: () => WINDOW,
  }),
  root('bookings of one status', 'bookings', SCHEDULE, 'bookings', {
    params: '$s: BookingStatus',
    args: 'status: $s',
    vars: () => ({ s: 'completed' }),
  }),
  root('classSessions', 'sessions', SCHEDULE, 'classSessions'),
  root('closures', 'closures', SCHEDULE, 'closures'),
  root('employeeTimeOff', 'timeOff', SCHEDULE, 'employeeTimeOff', onEmployee),
  root('customers', 'customers', NAMED, 'customers'),
  root(
    'customers found by a search',
    'customers',
    [null],
    'customers',
    { params: '$q: String', args: 'search: $q', vars: () => ({ q: 'probe' }) },
    ['first/after', 'limit/cursor'],
  ),
  root('employees', 'employees', NAMED, 'employees'),
  root('services', 'services', NAMED, 'services'),
  root('locations', 'locations', NAMED, 'locations'),
  root('resources', 'resources', NAMED, 'resources'),
  root('emails', 'emails', LIST, 'emails'),
  root('classSchedules', 'schedules', LIST, 'classSchedules'),
  root('testClocks', 'testClocks', LIST, 'testClocks'),
  root('bookingNotifications', 'notifications', LIST, 'bookingNotifications', {
    params: '$p: ID!',
    args: 'bookingId: $p',
    vars: (_c, p) => ({ p: p.booking }),
  }),
  root('employeeDateOverrides', 'dateOverrides', LIST, 'employeeDateOverrides', onEmployee),
  root('requestLogs', 'requestLogs', LIST, 'requestLogs'),
  root('payments', 'bookingPayments', LIST, 'payments'),
  root('webhookEndpoints', 'endpoints', LIST, 'webhookEndpoints'),
  root('webhookDeliveries', 'deliveries', LIST, 'webhookDeliveries', {
    params: '$p: ID!',
    args: 'endpointId: $p',
    vars: (_c, p) => ({ p: p.endpoint }),
  }),
  root('events', 'events', [null], 'events'),
];

const related = (
  name: string,
  field: string,
  family: string,
  orders: Array<string | null>,
  body: (args: string) => string,
  parent?: (p: Parents) => string,
): Case => ({
  name,
  field,
  family,
  orders,
  related: true,
  body,
  ...(parent ? { params: '$p: ID!', vars: (_c: Co, p: Parents) => ({ p: parent(p) }) } : {}),
});

const companyRelations: Array<[string, string, string[]]> = [
  ['bookings', 'bookings', SCHEDULE],
  ['classSessions', 'sessions', SCHEDULE],
  ['closures', 'closures', SCHEDULE],
  ['customers', 'customers', NAMED],
  ['employees', 'employees', NAMED],
  ['payments', 'bookingPayments', LIST],
  ['resources', 'resources', NAMED],
  ['services', 'services', NAMED],
  ['webhookEndpoints', 'endpoints', LIST],
];

const of = (
  name: string,
  family: string,
  orders: string[],
  parentField: string,
  parent: (p: Parents) => string,
): Case => {
  const [, relation] = name.split('.');
  return related(name, name, family, orders, (a) => `${parentField}(id: $p) { ${relation}(${a}) { ${PAGE} } }`, parent);
};

const relatedCases: Case[] = [
  // viewer { company } loads each relation with the company; `me` has the plugin load it on its own.
  ...companyRelations.flatMap(([field, family, orders]) => [
    related(
      `viewer.company.${field}`,
      `Company.${field}`,
      family,
      orders,
      (a) => `viewer { company { ${field}(${a}) { ${PAGE} } } }`,
    ),
    related(`me.${field}`, `Company.${field}`, family, orders, (a) => `me { ${field}(${a}) { ${PAGE} } }`),
  ]),
  of('Customer.bookings', 'bookings', SCHEDULE, 'customer', (p) => p.customer),
  of('Employee.bookings', 'bookings', SCHEDULE, 'employee', (p) => p.employee),
  of('Service.bookings', 'bookings', SCHEDULE, 'service', (p) => p.service),
  of('ClassSession.bookings', 'roster', SCHEDULE, 'classSession', (p) => p.session),
  of('Employee.classSessions', 'sessions', SCHEDULE, 'employee', (p) => p.otherEmployee),
  of('Service.classSessions', 'sessions', SCHEDULE, 'service', (p) => p.classService),
  of('Employee.timeOff', 'timeOff', SCHEDULE, 'employee', (p) => p.employee),
  of('Employee.dateOverrides', 'dateOverrides', LIST, 'employee', (p) => p.employee),
  of('Booking.notifications', 'notifications', LIST, 'booking', (p) => p.booking),
  of('Booking.payments', 'bookingPayments', LIST, 'booking', (p) => p.booking),
  of('Visit.payments', 'visitPayments', LIST, 'visit', (p) => p.visit),
  of('WebhookEndpoint.deliveries', 'deliveries', LIST, 'webhookEndpoint', (p) => p.endpoint),
  // A delivery's attempts: loaded with a list of deliveries, and on their own under a mutation's answer.
  related(
    'WebhookDelivery.attemptsConnection',
    'WebhookDelivery.attemptsConnection',
    'attempts',
    LIST,
    (a) => `webhookDeliveries(endpointId: $p) { nodes { _id attemptsConnection(${a}) { ${PAGE} } } }`,
    (p) => p.attemptsEndpoint,
  ),
  {
    ...related(
      'WebhookDelivery.attemptsConnection of retryWebhookDelivery',
      'WebhookDelivery.attemptsConnection',
      'attempts',
      LIST,
      (a) => `retryWebhookDelivery(id: $p) { attemptsConnection(${a}) { ${PAGE} } }`,
      (p) => p.delivery,
    ),
    operation: 'mutation',
  },
];

const cases = [...rootCases, ...relatedCases];

// ---------------------------------------------------------------------------------------------

type Body = { data?: Record<string, any> | null; errors?: Array<{ message: string; extensions?: any }> };

async function gql(c: Co, query: string, variables: Record<string, unknown>): Promise<Body> {
  const res = await t.app.inject({ method: 'POST', url: '/graphql', headers: c.auth, payload: { query, variables } });
  return res.json();
}

const cursorOf = (kase: Case, id: string) => (kase.related ? formatPrismaCursor({ id }, 'id') : encodeCursor(id));
const directionsOf = (kase: Case): Direction[] =>
  kase.directions ?? (kase.related ? ['first/after', 'last/before'] : ['first/after', 'last/before', 'limit/cursor']);
const modesOf = (kase: Case) => families[kase.family]!.modes;

/**
 * One request reading a page of the connection per cursor, each under its own alias (`p0`, `p1`,
 * …), so that the answers for several cursors come back side by side.
 */
async function pages(kase: Case, c: Co, order: string | null, d: Direction, cursors: Array<string | null>, size = 2) {
  const decl = cursors.map((_, i) => `$c${i}: String`).join(', ');
  const selections = cursors.map((_, i) => `p${i}: ${kase.body(pageArgs(d, order, `$c${i}`, size))}`).join('\n');
  const doc = `${kase.operation ?? 'query'}(${decl}${kase.params ? `, ${kase.params}` : ''}) { ${selections} }`;
  const vars: Record<string, unknown> = { ...kase.vars?.(c, parents.get(c.key)!) };
  cursors.forEach((cursor, i) => (vars[`c${i}`] = cursor));
  const body = await gql(c, doc, vars);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return cursors.map((_, i) => body.data![`p${i}`]);
}

/** The connection in an answer, wherever it sits (under a parent, or a list's first node). */
function connectionOf(value: unknown): { nodes: Array<{ _id: string }>; pageInfo: any } {
  if (!value || typeof value !== 'object') return undefined as never;
  if ('pageInfo' in value) return value as never;
  for (const x of Object.values(value)) {
    const found = connectionOf(x);
    if (found) return found;
  }
  return undefined as never;
}

beforeAll(async () => {
  // No request logs of the test's own requests: the requestLogs list holds only its records.
  t = await createTestApp({ env: { RATE_LIMIT_PER_SECOND: '1000000', REQUEST_LOGS: 'off' } });
  for (const [target, label] of [
    [A, 'A'],
    [B, 'B'],
  ] as const) {
    const w = await createAccountWithKeys(t.dbs);
    for (const m of MODES) {
      const company = m === 'test' ? w.test : w.live;
      const key = m === 'test' ? w.testKey.key : w.liveKey.key;
      target[m] = { key: `${label}.${m}`, id: company.id, mode: m, db: t.dbs[m].prisma, auth: bearer(key) };
    }
  }
  for (const m of MODES) for (const c of [A[m], B[m]]) await parentsOf(c);
  for (const [name, family] of Object.entries(families)) await make(name, family);
}, 120_000);
afterAll(async () => t?.close());

describe('a cursor of a record outside the caller’s company and mode answers as a cursor of no record', () => {
  for (const kase of cases)
    for (const order of kase.orders)
      for (const d of directionsOf(kase))
        it(`${kase.name}${order ? ` by ${order}` : ''}, ${d}`, async () => {
          const differences: string[] = [];
          await Promise.all(
            modesOf(kase).map(async (m) => {
              const foreign = made.get(kase.family)!.foreign.get(m)!;
              const cursors = foreign.flatMap((f) => [cursorOf(kase, f.id), cursorOf(kase, f.ghost)]);
              const answers = await pages(kase, A[m], order, d, cursors);
              foreign.forEach((f, i) => {
                const [leaked, none] = [JSON.stringify(answers[2 * i]), JSON.stringify(answers[2 * i + 1])];
                if (leaked !== none) differences.push(`${m} mode, ${f.kind}: ${leaked}\n  no record: ${none}`);
              });
            }),
          );
          expect(differences, differences.join('\n')).toEqual([]);
        });
});

describe('same-company cursors page as before', () => {
  for (const kase of cases)
    for (const order of kase.orders)
      it(`${kase.name}${order ? ` by ${order}` : ''}: forward and backward, page by page, is the whole list`, async () => {
        for (const m of modesOf(kase)) {
          const caller = A[m];
          const ids = (answer: unknown) => connectionOf(answer).nodes.map((n) => n._id);
          const [whole] = await pages(kase, caller, order, 'first/after', [null], 30);
          const all = ids(whole);
          for (const id of made.get(kase.family)!.own.get(caller.key)!) expect(all).toContain(id);
          for (const d of directionsOf(kase)) {
            const backward = d === 'last/before';
            const seen: string[] = [];
            let cursor: string | null = null;
            for (let i = 0; i < 20; i++) {
              const [answer] = await pages(kase, caller, order, d, [cursor]);
              const conn = connectionOf(answer);
              if (backward) seen.unshift(...ids(answer));
              else seen.push(...ids(answer));
              if (!(backward ? conn.pageInfo.hasPreviousPage : conn.pageInfo.hasNextPage)) break;
              cursor = backward ? conn.pageInfo.startCursor : conn.pageInfo.endCursor;
            }
            expect(seen, `${m} mode, ${d}`).toEqual(all);
          }
        }
      });

  it('takes the cursors the API hands out: those of company B’s own pages are the ones asked with above', async () => {
    const b = B.test;
    const mid = made.get('customers')!.foreign.get('test')![0]!.id;
    const rootCase = cases.find((c) => c.name === 'customers')!;
    const relatedCase = cases.find((c) => c.name === 'viewer.company.customers')!;
    for (const kase of [rootCase, relatedCase]) {
      const [answer] = await pages(kase, b, 'NAME', 'first/after', [null], 30);
      const edge = (connectionOf(answer) as any).edges.find((e: { node: { _id: string } }) => e.node._id === mid);
      expect(edge.cursor).toBe(cursorOf(kase, mid));
    }
  });
});

// A cursor whose record the list's filters (or its parent) leave out still places the page at that
// record's values, as Prisma does: it looks the cursor's record up by what the cursor names, not
// by the list's filters, and then skips the page's first row as if it were the cursor's own (so a
// record is dropped there). Kept as it was; pinned here.
describe('a same-company cursor whose record the list leaves out places the page as before', () => {
  const ids = (answer: unknown) => connectionOf(answer).nodes.map((n) => n._id);

  it('bookings in a window, by start time, around a booking after the window', async () => {
    const c = A.test;
    const kase = cases.find((k) => k.name === 'bookings in a window')!;
    const outside = encodeCursor(parents.get(c.key)!.booking);
    const [whole] = await pages(kase, c, 'START_TIME', 'first/after', [null], 30);
    const [after] = await pages(kase, c, 'START_TIME', 'first/after', [outside], 30);
    const [before] = await pages(kase, c, 'START_TIME', 'last/before', [outside], 30);
    expect(ids(after)).toEqual([]);
    expect(ids(before)).toEqual(ids(whole).slice(0, -1));
  });

  it("one employee's or customer's bookings, by start time, around a colleague's booking", async () => {
    const c = A.test;
    const p = parents.get(c.key)!;
    const own = made.get('bookings')!.own.get(c.key)!;
    // The colleague's booking of value 3, half an hour after the employee's (and customer's) own
    // of value 3; the booking far after the window is theirs too.
    const colleague = made.get('roster')!.own.get(c.key)![2]!;
    const around = async (kase: Case, cursor: string) => [
      ids((await pages(kase, c, 'START_TIME', 'first/after', [cursor], 10))[0]),
      ids((await pages(kase, c, 'START_TIME', 'last/before', [cursor], 10))[0]),
    ];
    const filtered = (kase: Case, filter: string): Case => ({ ...kase, body: (a) => kase.body(`${filter}, ${a}`) });
    const placed = [
      [own[4], p.booking],
      [own[0], own[1]],
    ];
    // The root list and the company's relation (one statement with the cursor in it) place it.
    expect(
      await around(
        filtered(
          cases.find((k) => k.name === 'bookings')!,
          `customerId: "${p.customer}"`,
        ),
        encodeCursor(colleague),
      ),
    ).toEqual(placed);
    const company = cases.find((k) => k.name === 'viewer.company.bookings')!;
    expect(
      await around(filtered(company, `employeeId: "${p.employee}"`), formatPrismaCursor({ id: colleague }, 'id')),
    ).toEqual(placed);
    // Loaded for a parent read by findFirst, the page is cut from the parent's own bookings, where
    // the colleague's is not: nothing.
    const employee = cases.find((k) => k.name === 'Employee.bookings')!;
    expect(await around(employee, formatPrismaCursor({ id: colleague }, 'id'))).toEqual([[], []]);
  });
});

describe('events resumed after an event', () => {
  // The resume point names an event, looked up within the company (its position is the cursor).
  it('another company’s or mode’s event answers as an unknown event, on GraphQL and REST', async () => {
    for (const m of MODES) {
      const caller = A[m];
      for (const f of made.get('events')!.foreign.get(m)!) {
        const graphql = (id: string) =>
          gql(caller, 'query($e: EventPosition) { events(afterPosition: $e, first: 2) { nodes { _id } } }', { e: id });
        const rest = async (id: string) => {
          const res = await t.app.inject({ method: 'GET', url: `/api/v1/events?after=${id}`, headers: caller.auth });
          return { status: res.statusCode, error: res.json().error };
        };
        const [leaked, none] = [await graphql(f.id), await graphql(f.ghost)];
        expect(none.errors![0]!.extensions.code, `${m} mode, ${f.kind}`).toBe('VALIDATION_ERROR');
        expect(leaked, `${m} mode, ${f.kind}`).toEqual(none);
        // The company's own events connection looks the event up the same way.
        const nested = (id: string) =>
          gql(
            caller,
            'query($e: EventPosition) { viewer { company { events(afterPosition: $e, first: 2) { nodes { _id } } } } }',
            { e: id },
          );
        const [nestedLeaked, nestedNone] = [await nested(f.id), await nested(f.ghost)];
        expect(nestedNone.errors![0]!.extensions.code, `${m} mode, ${f.kind}`).toBe('VALIDATION_ERROR');
        expect(nestedLeaked, `${m} mode, ${f.kind}`).toEqual(nestedNone);
        expect(await rest(f.id), `${m} mode, ${f.kind}`).toEqual(await rest(f.ghost));
      }
    }
  });
});

// ---------------------------------------------------------------------------------------------
// REST lists page by id (`where id < cursor`), whether or not the cursor's record exists.

const rest: Array<[string, string, (p: Parents) => string]> = [
  ['bookings', 'bookings', () => '/api/v1/bookings'],
  ['classes', 'sessions', () => '/api/v1/classes'],
  ['class schedules', 'schedules', () => '/api/v1/class-schedules'],
  ['closures', 'closures', () => '/api/v1/closures'],
  ['customers', 'customers', () => '/api/v1/customers'],
  ['customers found by a search', 'customers', () => '/api/v1/customers?q=probe'],
  ['e-mails', 'emails', () => '/api/v1/emails'],
  ['employees', 'employees', () => '/api/v1/employees'],
  ['events', 'events', () => '/api/v1/events'],
  ['locations', 'locations', () => '/api/v1/locations'],
  ['payments', 'bookingPayments', () => '/api/v1/payments'],
  ['request logs', 'requestLogs', () => '/api/v1/request-logs'],
  ['resources', 'resources', () => '/api/v1/resources'],
  ['services', 'services', () => '/api/v1/services'],
  ['test clocks', 'testClocks', () => '/api/v1/test-clocks'],
  ['webhook endpoints', 'endpoints', () => '/api/v1/webhook-endpoints'],
  ['deliveries of an endpoint', 'deliveries', (p) => `/api/v1/webhook-endpoints/${p.endpoint}/deliveries`],
  ['time off of an employee', 'timeOff', (p) => `/api/v1/employees/${p.employee}/time-off`],
  ['date overrides of an employee', 'dateOverrides', (p) => `/api/v1/employees/${p.employee}/date-overrides`],
  ['reminders of a booking', 'notifications', (p) => `/api/v1/bookings/${p.booking}/notifications`],
];

describe('REST lists', () => {
  for (const [name, family, path] of rest)
    it(`${name}: a cursor outside the company and mode answers as a cursor of no record`, async () => {
      for (const m of families[family]!.modes) {
        const caller = A[m];
        const get = async (id: string) => {
          const url = path(parents.get(caller.key)!);
          const res = await t.app.inject({
            method: 'GET',
            url: `${url}${url.includes('?') ? '&' : '?'}limit=2&cursor=${encodeCursor(id)}`,
            headers: caller.auth,
          });
          expect(res.statusCode, res.body).toBe(200);
          const body = res.json();
          return { data: body.data, pagination: body.meta.pagination };
        };
        for (const f of made.get(family)!.foreign.get(m)!) {
          const [leaked, none] = [await get(f.id), await get(f.ghost)];
          expect(leaked.data.length, `${m} mode, ${f.kind}`).toBeGreaterThan(0);
          expect(leaked, `${m} mode, ${f.kind}`).toEqual(none);
        }
      }
    });
});

// Connections whose cursors are offsets into a list already loaded with the parent (Pothos's
// resolveArrayConnection): no cursor names a record, so there is nothing to look up.
const OFFSET_PAGED = ['Booking.events', 'Customer.payments', 'Employee.services', 'Service.employees'];
// Connections paged by event position (a number, the same for every company of a mode: it names
// no record); their resume point given as an event is looked up within the company, above.
const POSITION_PAGED = ['Company.events'];

it('covers every connection of the schema', () => {
  const connections: string[] = [];
  for (const type of Object.values(schema.getTypeMap()))
    if (isObjectType(type) && !type.name.startsWith('__'))
      for (const field of Object.values(type.getFields()))
        if (getNamedType(field.type).name.endsWith('Connection')) connections.push(`${type.name}.${field.name}`);
  const covered = new Set([...cases.map((c) => c.field), ...OFFSET_PAGED, ...POSITION_PAGED]);
  expect(connections.filter((c) => !covered.has(c))).toEqual([]);
  expect([...covered].filter((c) => !connections.includes(c))).toEqual([]);
});
