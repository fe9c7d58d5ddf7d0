// /api/v1/test-clocks (docs/sandbox.md, Test clocks): a sandbox company's own "now". Test
// credentials only (a live one gets 403 FORBIDDEN); company:read / company:write.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { graphqlRoute, type V1Deps } from '../route.js';
import { Id, PageQuery, PathId, Timestamp } from '../schemas.js';

const TestClock = Type.Object(
  {
    _id: Id,
    frozenTime: { ...Timestamp, description: "The clock's time; it moves only when advanced" },
    attached: Type.Boolean({ description: 'Whether the company is attached to it (PATCH /me { testClockId })' }),
    createdAt: Timestamp,
  },
  { $id: 'TestClock', title: 'Test clock' },
);

const CreateTestClock = Type.Object(
  { frozenTime: { ...Timestamp, description: 'Its time to start from (years 2000 to 2099)' } },
  { additionalProperties: false },
);

const AdvanceTestClock = Type.Object(
  {
    to: {
      ...Timestamp,
      description: "The new time: not before the clock's time, at most 90 days after it",
    },
  },
  { additionalProperties: false },
);

const tags = ['Test clocks'];

export default async function testClockRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/test-clocks',
    operationId: 'listTestClocks',
    summary: "The company's test clocks, newest first (sandbox only)",
    tags,
    scope: 'company:read',
    list: true,
    request: { querystring: Type.Object({ ...PageQuery }, { additionalProperties: false }) },
    response: TestClock,
    query: 'testClocks',
    variables: (req) => req.query,
  });
  graphqlRoute(app, deps, {
    method: 'POST',
    url: '/test-clocks',
    operationId: 'createTestClock',
    summary: 'Create a test clock frozen at a time (sandbox only); attach it with PATCH /me { testClockId }',
    tags,
    scope: 'company:write',
    request: { body: CreateTestClock },
    response: TestClock,
    mutation: 'createTestClock',
    variables: (req) => ({ input: req.body }),
  });
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/test-clocks/:id',
    operationId: 'getTestClock',
    summary: 'One test clock (sandbox only)',
    tags,
    scope: 'company:read',
    request: { params: Type.Object({ id: PathId }) },
    response: TestClock,
    query: 'testClock',
    variables: (req) => req.params,
  });
  graphqlRoute(app, deps, {
    method: 'POST',
    url: '/test-clocks/:id/advance',
    operationId: 'advanceTestClock',
    summary:
      'Move a test clock forward (at most 90 days): every hold expiry and reminder of the attached company falling due on the way runs, in order, before the answer',
    tags,
    scope: 'company:write',
    request: { params: Type.Object({ id: PathId }), body: AdvanceTestClock },
    response: TestClock,
    mutation: 'advanceTestClock',
    variables: (req) => ({ id: req.params.id, input: req.body }),
  });
  graphqlRoute(app, deps, {
    method: 'DELETE',
    url: '/test-clocks/:id',
    operationId: 'deleteTestClock',
    summary: 'Delete a test clock; an attached company returns to the real time. Returns what was deleted',
    tags,
    scope: 'company:write',
    request: { params: Type.Object({ id: PathId }) },
    response: TestClock,
    mutation: 'deleteTestClock',
    variables: (req) => req.params,
  });
}
