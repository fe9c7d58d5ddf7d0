// Test clocks (docs/sandbox.md, Test clocks). Scopes: company:read / company:write; sandbox
// companies only (FORBIDDEN for a live credential).
import type { TestClock } from '../../generated/prisma/client.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { connectionType, ListOrderEnum, resolveConnection } from '../connections.js';
import { legacyPageArgs } from '../pagination.js';
import { advanceTestClock } from './advance-test-clock.js';
import {
  createTestClock,
  deleteTestClock,
  findTestClock,
  requireSandbox,
  testClockFilter,
} from './manage-test-clocks.js';
import { NodeInterface } from '../node.js';

export const TestClockType = builder.prismaObject('TestClock', {
  interfaces: [NodeInterface],
  description:
    "A sandbox company's own now: while the company is attached to it (PATCH /me { testClockId }), its availability, holds, cut-offs and reminders follow the clock's time",
  fields: (t) => ({
    _id: t.exposeID('id', { description: 'The test clock id' }),
    frozenTime: t.expose('frozenTime', {
      type: 'DateTime',
      description: "The clock's time; it moves only when advanced",
    }),
    attached: t.boolean({
      description: 'Whether the company is attached to this clock (its domain time is the clock’s)',
      resolve: async (c, _a, ctx) =>
        (await ctx.db.company.count({ where: { id: c.companyId, testClockId: c.id } })) > 0,
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created (the real time)' }),
  }),
});

const TestClockConnection = connectionType<TestClock>('TestClock', TestClockType);

const CreateTestClockInput = builder.inputType('CreateTestClockInput', {
  description: 'A new test clock',
  fields: (t) => ({
    frozenTime: t.field({ type: 'DateTime', required: true, description: 'Its time to start from' }),
  }),
});

const AdvanceTestClockInput = builder.inputType('AdvanceTestClockInput', {
  description: 'Where to move a test clock',
  fields: (t) => ({
    to: t.field({
      type: 'DateTime',
      required: true,
      description: "The new time: not before the clock's time, at most 90 days after it",
    }),
  }),
});

const who = (ctx: Context) => ({ companyId: ctx.credential!.companyId, mode: ctx.credential!.mode });

builder.queryFields((t) => ({
  testClocks: t.connection(
    {
      type: TestClockType,
      description: "The company's test clocks, newest first (sandbox only; FORBIDDEN for live companies)",
      authScopes: { scope: 'company:read' },
      args: {
        ...legacyPageArgs(t.arg),
        orderBy: t.arg({ type: ListOrderEnum, description: 'The order (default NEWEST_FIRST)' }),
      },
      resolve: (_r, a, ctx) => {
        requireSandbox(ctx.credential!.mode);
        const where = testClockFilter(ctx.credential!.companyId);
        return resolveConnection(
          a,
          a.orderBy,
          ctx.credential!.companyId,
          (q) => ctx.db.testClock.findMany({ ...q, where: { ...q.where, ...where } }),
          () => ctx.db.testClock.count({ where }),
        );
      },
    },
    TestClockConnection,
  ),
  testClock: t.field({
    type: TestClockType,
    description: 'One test clock by id (sandbox only)',
    authScopes: { scope: 'company:read' },
    args: { id: t.arg.id({ required: true, description: 'The test clock id' }) },
    resolve: (_r, args, ctx) => findTestClock(ctx.db, { ...who(ctx), clockId: String(args.id) }),
  }),
}));

builder.mutationFields((t) => ({
  createTestClock: t.field({
    type: TestClockType,
    description:
      'Creates a test clock frozen at a time (sandbox only); attach the company with updateMe { testClockId }',
    authScopes: { scope: 'company:write' },
    args: { input: t.arg({ type: CreateTestClockInput, required: true, description: 'The clock' }) },
    resolve: (_r, args, ctx) => createTestClock(ctx.db, { ...who(ctx), input: args.input }),
  }),
  advanceTestClock: t.field({
    type: TestClockType,
    description:
      'Moves a test clock forward (at most 90 days), running every hold expiry and reminder of the attached company that falls due on the way, in order; returns once they have run',
    authScopes: { scope: 'company:write' },
    args: {
      id: t.arg.id({ required: true, description: 'The test clock id' }),
      input: t.arg({ type: AdvanceTestClockInput, required: true, description: 'Where to move it' }),
    },
    resolve: (_r, args, ctx) =>
      advanceTestClock(ctx.db, { ...who(ctx), config: ctx.config, clockId: String(args.id), input: args.input }),
  }),
  deleteTestClock: t.field({
    type: TestClockType,
    description: 'Deletes a test clock; an attached company returns to the real time. Returns what was deleted',
    authScopes: { scope: 'company:write' },
    args: { id: t.arg.id({ required: true, description: 'The test clock id' }) },
    resolve: async (_r, args, ctx) => {
      const clock = await deleteTestClock(ctx.db, { ...who(ctx), clockId: String(args.id) });
      // The profile a credential carries shows the attachment: it is gone with the clock.
      await ctx.services.credentials.invalidateCompany(clock.companyId);
      return clock;
    },
  }),
}));
