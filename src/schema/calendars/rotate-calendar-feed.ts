// POST /employees/:id/calendar-feed/rotate and POST /me/calendar-feed/rotate { includeNotes? }
// (docs/calendars.md): creates the employee's or the company's feed, or gives it a new token.
// One row per scope, replaced in one statement, so the old URL stops the moment this commits.
// Scope employees:write for both (docs/api.md says why).
import { z } from 'zod';
import type { Config } from '../../config.js';
import { feedTokenHash, newFeedToken } from '../../crypto/calendar-feed-token.js';
import { secretBox } from '../../crypto/secret-box.js';
import type { Db } from '../../db/databases.js';
import type { Mode } from '../../generated/prisma/enums.js';
import { newId } from '../../ids.js';
import { publicOrigin } from '../core/index.js';
import { findEmployee } from '../find-records.js';
import { parseInput } from '../validation.js';

const input = z
  .object({ includeNotes: z.boolean({ error: 'must be true or false' }).nullish() })
  .strict()
  .nullish();

export const COMPANY_FEED_SCOPE = 'company';

export function feedUrl(config: Config, token: string): string {
  return `${publicOrigin(config)}/calendar/${token}.ics`;
}

export interface RotatedFeed {
  url: string;
  includeNotes: boolean;
}

export async function rotateCalendarFeed(
  db: Db,
  opts: { config: Config; mode: Mode; companyId: string; employeeId?: string; input?: unknown },
): Promise<RotatedFeed> {
  const data = parseInput(input, opts.input ?? null) ?? {};
  const employee = opts.employeeId !== undefined ? await findEmployee(db, opts.companyId, opts.employeeId) : null;
  const token = newFeedToken(opts.mode);
  const sealed = secretBox(opts.config).seal(token);
  const includeNotes = data.includeNotes ?? false;
  const scope = employee?.id ?? COMPANY_FEED_SCOPE;
  await db.calendarFeed.upsert({
    where: { companyId_scope: { companyId: opts.companyId, scope } },
    create: {
      id: newId(),
      companyId: opts.companyId,
      employeeId: employee?.id ?? null,
      scope,
      tokenHash: feedTokenHash(token),
      tokenSealed: sealed,
      includeNotes,
    },
    update: { tokenHash: feedTokenHash(token), tokenSealed: sealed, includeNotes, rotatedAt: new Date() },
  });
  return { url: feedUrl(opts.config, token), includeNotes };
}

/** An employee's feed (or, with employeeId null, the company's) with its URL, for the admin area. */
export async function findCalendarFeed(
  db: Db,
  opts: { config: Config; companyId: string; employeeId: string | null },
): Promise<(RotatedFeed & { rotatedAt: Date }) | null> {
  const row = await db.calendarFeed.findUnique({
    where: { companyId_scope: { companyId: opts.companyId, scope: opts.employeeId ?? COMPANY_FEED_SCOPE } },
  });
  if (!row) return null;
  return {
    url: feedUrl(opts.config, secretBox(opts.config).open(row.tokenSealed)),
    includeNotes: row.includeNotes,
    rotatedAt: row.rotatedAt,
  };
}
