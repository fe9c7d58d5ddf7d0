// Test clocks (docs/sandbox.md, Test clocks): creating, reading, deleting and attaching them.
// A clock belongs to the sandbox company that made it and only that company attaches to it: a
// credential sees one company, so this is the simplest rule that keeps one tenant's clock out
// of another's hands (the clock is deleted with its company, and so by a sandbox wipe). Live
// companies have none: every use case here refuses a live credential with FORBIDDEN.
import { z } from 'zod';
import type { Db, Tx } from '../../db/databases.js';
import type { Prisma, TestClock } from '../../generated/prisma/client.js';
import type { Mode } from '../../generated/prisma/enums.js';
import { AppError } from '../../errors.js';
import { isId, newId } from '../../ids.js';
import { boundedInstant } from '../domain-validation.js';
import { parseInput } from '../validation.js';

/** Test clocks exist for sandbox companies only (docs/sandbox.md). */
export function requireSandbox(mode: Mode): void {
  if (mode !== 'test')
    throw new AppError('FORBIDDEN', 'Test clocks exist for sandbox (test) companies only; use a test credential');
}

const createInput = z.object({ frozenTime: boundedInstant }).strict();

export async function createTestClock(db: Db, opts: { companyId: string; mode: Mode; input: unknown }) {
  requireSandbox(opts.mode);
  const { frozenTime } = parseInput(createInput, opts.input);
  return db.testClock.create({ data: { id: newId(), companyId: opts.companyId, frozenTime } });
}

/** Where-clause of a company's clocks (lists). */
export const testClockFilter = (companyId: string): Prisma.TestClockWhereInput => ({ companyId });

export async function findTestClock(
  db: Pick<Tx, 'testClock'>,
  opts: { companyId: string; mode: Mode; clockId: string },
): Promise<TestClock> {
  requireSandbox(opts.mode);
  const clock = isId(opts.clockId)
    ? await db.testClock.findFirst({ where: { id: opts.clockId, companyId: opts.companyId } })
    : null;
  if (!clock) throw AppError.notFound('test clock');
  return clock;
}

/** Deletes a clock; a company attached to it is detached (back to the real time). */
export async function deleteTestClock(db: Db, opts: { companyId: string; mode: Mode; clockId: string }) {
  const clock = await findTestClock(db, opts);
  await db.testClock.delete({ where: { id: clock.id } });
  return clock;
}

/**
 * The clock a company attaches to (PATCH /me { testClockId }): one of its own, in the sandbox;
 * null detaches. Returns the value to store.
 */
export async function attachableTestClock(
  db: Pick<Tx, 'testClock'>,
  opts: { companyId: string; mode: Mode; testClockId: string | null },
): Promise<string | null> {
  requireSandbox(opts.mode);
  if (opts.testClockId === null) return null;
  const clock = isId(opts.testClockId)
    ? await db.testClock.findFirst({ where: { id: opts.testClockId, companyId: opts.companyId }, select: { id: true } })
    : null;
  if (!clock) throw AppError.validation([{ path: 'testClockId', message: 'is not a test clock of this company' }]);
  return clock.id;
}
