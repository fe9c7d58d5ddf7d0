// Intake questions and answers (docs/api.md, Questions and answers) through /api/v1 and
// /graphql: a service's questions judged when set; a booking's answers judged against them
// (required, type, options, phone format, unknown ids), each fault a 400 naming
// `answers.<questionId>` with no booking, customer or event written; answers stored with a
// snapshot of the question, so a later rename leaves old bookings alone; and the payloads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountWithKeys } from '../../helpers/factories.js';
import type { TestApp } from '../../helpers/app.js';
import {
  blankCompany,
  createDomainApp,
  expectError,
  futureHour,
  ok,
  post,
  salon,
  type World,
} from '../../helpers/domain.js';

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
});
afterAll(async () => t?.close());

type Auth = Record<string, string>;
const get = async (auth: Auth, url: string) => ok(await t.app.inject({ method: 'GET', url, headers: auth }));
const gql = async (auth: Auth, query: string, variables: Record<string, unknown> = {}) =>
  (await t.app.inject({ method: 'POST', url: '/graphql', headers: auth, payload: { query, variables } })).json();

const QUESTIONS = [
  { id: 'allergies', label: 'Any allergies?', type: 'long_text', required: true },
  { id: 'nickname', label: 'What should we call you?', type: 'text', required: false },
  { id: 'length', label: 'Hair length', type: 'choice', required: true, options: ['short', 'medium', 'long'] },
  { id: 'extras', label: 'Extras', type: 'multi_choice', required: false, options: ['wash', 'dry', 'style'] },
  { id: 'firstVisit', label: 'First visit?', type: 'boolean', required: true },
  { id: 'mobile', label: 'Mobile number', type: 'phone', required: false },
];
const GOOD = {
  allergies: 'None',
  length: 'short',
  extras: ['wash', 'style'],
  firstVisit: false,
  mobile: '+49 30 1234567',
};

async function world() {
  const c = await blankCompany(t.dbs, w, { timezone: 'UTC' });
  const { service, employee } = await salon(t.app, c.auth, { questions: QUESTIONS });
  const customer = await post(t.app, '/api/v1/customers', c.auth, { name: 'Ann', email: 'ann@example.com' });
  return { c, service, employee, customer };
}

describe("a service's questions", () => {
  it('are stored and returned (REST and GraphQL); options only on choice types; a PATCH replaces the list', async () => {
    const { c, service } = await world();
    expect(service.questions).toEqual(QUESTIONS.map((q) => ({ ...q, options: 'options' in q ? q.options : null })));
    const r = await gql(
      c.auth,
      'query($id: ID!) { service(id: $id) { questions { id label type required options } } }',
      {
        id: service._id,
      },
    );
    expect(r.data.service.questions[2]).toEqual({
      id: 'length',
      label: 'Hair length',
      type: 'choice',
      required: true,
      options: ['short', 'medium', 'long'],
    });
    const patched = ok(
      await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/services/${service._id}`,
        headers: c.auth,
        payload: { questions: [{ id: 'q', label: 'Why?', type: 'text' }] },
      }),
    );
    expect(patched.questions).toEqual([{ id: 'q', label: 'Why?', type: 'text', required: false, options: null }]);
    const none = await post(t.app, '/api/v1/services', c.auth, { name: 'Plain', durationMinutes: 30 });
    expect(none.questions).toEqual([]);
  });

  const BAD_QUESTIONS: Array<[string, unknown, string]> = [
    ['more than 20', Array.from({ length: 21 }, (_, i) => ({ id: `q${i}`, label: 'L', type: 'text' })), 'questions'],
    ['a repeated id', [QUESTIONS[0], { ...QUESTIONS[1], id: 'allergies' }], 'questions.1.id'],
    ['an id with a dot', [{ id: 'a.b', label: 'L', type: 'text' }], 'questions.0.id'],
    ['an id of 41 characters', [{ id: 'q'.repeat(41), label: 'L', type: 'text' }], 'questions.0.id'],
    ['an empty label', [{ id: 'q', label: ' ', type: 'text' }], 'questions.0.label'],
    ['a label of 201 characters', [{ id: 'q', label: 'l'.repeat(201), type: 'text' }], 'questions.0.label'],
    ['an unknown type', [{ id: 'q', label: 'L', type: 'date' }], 'questions.0.type'],
    ['choice without options', [{ id: 'q', label: 'L', type: 'choice' }], 'questions.0.options'],
    ['choice with no options', [{ id: 'q', label: 'L', type: 'choice', options: [] }], 'questions.0.options'],
    ['options on a text question', [{ id: 'q', label: 'L', type: 'text', options: ['a'] }], 'questions.0.options'],
    ['a repeated option', [{ id: 'q', label: 'L', type: 'choice', options: ['a', 'a'] }], 'questions.0.options'],
    [
      'an option of 101 characters',
      [{ id: 'q', label: 'L', type: 'choice', options: ['o'.repeat(101)] }],
      'questions.0.options.0',
    ],
    ['an unknown field', [{ id: 'q', label: 'L', type: 'text', hint: 'x' }], 'questions.0.hint'],
    ['not a list', { id: 'q' }, 'questions'],
  ];
  it.each(BAD_QUESTIONS)(
    'refuses %s, naming the field, on create and on PATCH, storing nothing',
    async (_n, questions, path) => {
      const { c, service } = await world();
      const count = () => t.dbs.test.prisma.service.count({ where: { companyId: c.company.id } });
      const before = await count();
      const created = expectError(
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/services',
          headers: c.auth,
          payload: { name: 'X', durationMinutes: 30, questions },
        }),
        400,
        'VALIDATION_ERROR',
      );
      expect(created.error.details.map((f: { path: string }) => f.path)).toContain(path);
      expect(await count()).toBe(before);
      const patched = expectError(
        await t.app.inject({
          method: 'PATCH',
          url: `/api/v1/services/${service._id}`,
          headers: c.auth,
          payload: { questions },
        }),
        400,
        'VALIDATION_ERROR',
      );
      expect(patched.error.details.map((f: { path: string }) => f.path)).toContain(path);
      expect((await get(c.auth, `/api/v1/services/${service._id}`)).questions).toEqual(service.questions);
    },
  );
});

describe("a booking's answers", () => {
  it('are judged, normalised, stored with a snapshot of each question and returned in question order', async () => {
    const { c, service, customer } = await world();
    const b = await post(t.app, '/api/v1/bookings', c.auth, {
      serviceId: service._id,
      startTime: futureHour(3),
      customerId: customer._id,
      answers: { ...GOOD, nickname: null },
    });
    const expected = [
      { questionId: 'allergies', label: 'Any allergies?', type: 'long_text', value: 'None' },
      { questionId: 'length', label: 'Hair length', type: 'choice', value: 'short' },
      { questionId: 'extras', label: 'Extras', type: 'multi_choice', value: ['wash', 'style'] },
      { questionId: 'firstVisit', label: 'First visit?', type: 'boolean', value: false },
      { questionId: 'mobile', label: 'Mobile number', type: 'phone', value: '+49301234567' },
    ];
    expect(b.answers).toEqual(expected);
    expect((await get(c.auth, `/api/v1/bookings/${b._id}`)).answers).toEqual(expected);
    const r = await gql(c.auth, 'query($id: ID!) { booking(id: $id) { answers { questionId label type value } } }', {
      id: b._id,
    });
    expect(r.data.booking.answers).toEqual(expected);
    // Renaming and removing questions later leaves the booking as it was answered.
    ok(
      await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/services/${service._id}`,
        headers: c.auth,
        payload: { questions: [{ ...QUESTIONS[0], label: 'Allergies or sensitivities?' }] },
      }),
    );
    expect((await get(c.auth, `/api/v1/bookings/${b._id}`)).answers).toEqual(expected);
    // The events carry them.
    const events = await get(c.auth, '/api/v1/events?type=booking.created');
    expect(events[0].data.answers).toEqual(expected);
    // The customer's manage page shows them, labelled as asked.
    const page = await t.app.inject({ method: 'GET', url: new URL(b.manageUrl as string).pathname });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<dt>Any allergies?</dt><dd>None</dd>');
    expect(page.body).toContain('<dt>Extras</dt><dd>wash, style</dd>');
    expect(page.body).toContain('<dt>First visit?</dt><dd>No</dd>');
  });

  it('GraphQL createBooking takes answers too, and a service without questions takes none', async () => {
    const { c, service, customer } = await world();
    const r = await gql(
      c.auth,
      `mutation($input: CreateBookingInput!) { createBooking(input: $input) { answers { questionId value } } }`,
      { input: { serviceId: service._id, startTime: futureHour(4), customerId: customer._id, answers: GOOD } },
    );
    expect(r.errors).toBeUndefined();
    expect(r.data.createBooking.answers.map((a: { questionId: string }) => a.questionId)).toEqual([
      'allergies',
      'length',
      'extras',
      'firstVisit',
      'mobile',
    ]);
    const plain = await post(t.app, '/api/v1/services', c.auth, {
      name: 'Plain',
      durationMinutes: 30,
      employeeIds: [],
    });
    expect(plain.questions).toEqual([]);
  });

  const BAD_ANSWERS: Array<[string, Record<string, unknown>, string, string]> = [
    ['an unknown question', { ...GOOD, colour: 'red' }, 'answers.colour', 'is not a question of this service'],
    ['a missing required answer', { ...GOOD, allergies: undefined }, 'answers.allergies', 'is required'],
    ['a required answer given as null', { ...GOOD, firstVisit: null }, 'answers.firstVisit', 'is required'],
    ['an empty required text', { ...GOOD, allergies: '   ' }, 'answers.allergies', 'must not be empty'],
    ['a number for text', { ...GOOD, nickname: 42 }, 'answers.nickname', 'must be a string, not a number'],
    ['an object for text', { ...GOOD, nickname: { a: 1 } }, 'answers.nickname', 'must be a string, not an object'],
    [
      'a text of 1001 characters',
      { ...GOOD, nickname: 'n'.repeat(1001) },
      'answers.nickname',
      'must be at most 1000 characters',
    ],
    [
      'a long text of 5001 characters',
      { ...GOOD, allergies: 'a'.repeat(5001) },
      'answers.allergies',
      'must be at most 5000 characters',
    ],
    [
      'a wrong option',
      { ...GOOD, length: 'shaved' },
      'answers.length',
      'must be one of the options: short, medium, long',
    ],
    [
      'a list for a choice',
      { ...GOOD, length: ['short'] },
      'answers.length',
      'must be one of the options: short, medium, long',
    ],
    [
      'a wrong option in a multi choice',
      { ...GOOD, extras: ['wash', 'perm'] },
      'answers.extras',
      'must list only the options: wash, dry, style',
    ],
    [
      'a string for a multi choice',
      { ...GOOD, extras: 'wash' },
      'answers.extras',
      'must be a list of options, not a string',
    ],
    [
      'a repeated option in a multi choice',
      { ...GOOD, extras: ['wash', 'wash'] },
      'answers.extras',
      'must not repeat an option',
    ],
    [
      '"true" for a boolean',
      { ...GOOD, firstVisit: 'true' },
      'answers.firstVisit',
      'must be true or false, not a string',
    ],
    [
      'a malformed phone number',
      { ...GOOD, mobile: '12345' },
      'answers.mobile',
      'must be a telephone number in international format, e.g. +14155550123',
    ],
    ['a number for a phone', { ...GOOD, mobile: 4930123 }, 'answers.mobile', 'must be a string, not a number'],
  ];

  it.each(BAD_ANSWERS)('refuse %s: 400 naming the question, nothing stored', async (_n, answers, path, message) => {
    const { c, service } = await world();
    const db = t.dbs.test.prisma;
    const counts = async () => [
      await db.booking.count({ where: { companyId: c.company.id } }),
      await db.customer.count({ where: { companyId: c.company.id } }),
      await db.event.count({ where: { companyId: c.company.id } }),
    ];
    const before = await counts();
    const body = expectError(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/bookings',
        headers: c.auth,
        // An inline new customer: refused answers must not leave them behind either.
        payload: {
          serviceId: service._id,
          startTime: futureHour(3),
          customer: { name: 'N', email: 'n@example.com' },
          answers,
        },
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect(body.error.details).toContainEqual({ path, message });
    expect(await counts()).toEqual(before);
  });

  it('refuse answers that are not an object, and answers to a service without questions', async () => {
    const { c, service, customer } = await world();
    const plain = await post(t.app, '/api/v1/services', c.auth, {
      name: 'Plain',
      durationMinutes: 60,
      employeeIds: [service.employeeIds[0]],
    });
    const book = (payload: object) =>
      t.app.inject({ method: 'POST', url: '/api/v1/bookings', headers: c.auth, payload });
    const notObject = expectError(
      await book({ serviceId: service._id, startTime: futureHour(3), customerId: customer._id, answers: ['None'] }),
      400,
      'VALIDATION_ERROR',
    );
    expect(notObject.error.details[0].path).toBe('answers');
    const extra = expectError(
      await book({ serviceId: plain._id, startTime: futureHour(3), customerId: customer._id, answers: { a: 'b' } }),
      400,
      'VALIDATION_ERROR',
    );
    expect(extra.error.details).toEqual([{ path: 'answers.a', message: 'is not a question of this service' }]);
    // Every fault at once, each named.
    const all = expectError(
      await book({
        serviceId: service._id,
        startTime: futureHour(3),
        customerId: customer._id,
        answers: { length: 'x', zzz: 1 },
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect(all.error.details.map((f: { path: string }) => f.path).sort()).toEqual([
      'answers.allergies',
      'answers.firstVisit',
      'answers.length',
      'answers.zzz',
    ]);
    expect(await t.dbs.test.prisma.booking.count({ where: { companyId: c.company.id } })).toBe(0);
  });
});
