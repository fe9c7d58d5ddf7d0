// An employee's outside calendars (docs/api.md, External calendars): `externalCalendars` on the
// employee's create and update, up to five ICS URLs whose busy times block availability like
// time off. A URL is a secret: sealed with the secret box, answered only redacted (scheme and
// host), never logged. It must pass the webhook URL rules of its mode
// (src/webhooks/ssrf-guard.ts: https and no internal address in live), checked here when it is
// saved and again, after DNS, on every fetch. A new or changed URL is due at once: the workers'
// sweep (src/workers/fetch-external-calendar.ts) fetches it within seconds.
import { z } from 'zod';
import type { Config } from '../../config.js';
import type { Db, Tx } from '../../db/databases.js';
import { secretBox } from '../../crypto/secret-box.js';
import { AppError } from '../../errors.js';
import type { Mode } from '../../generated/prisma/enums.js';
import { newId } from '../../ids.js';
import { checkUrl, policyFor, UrlRefused } from '../../webhooks/ssrf-guard.js';
import { id } from '../domain-validation.js';
import { requiredText } from '../validation.js';

export const MAX_EXTERNAL_CALENDARS = 5;
export const MAX_CALENDAR_URL_LENGTH = 2048;
export const MAX_CALENDAR_NAME_LENGTH = 100;

/** One entry of `externalCalendars`: a new calendar ({ url, name }) or a kept one ({ id, name?, url? }). */
export const externalCalendarsInput = z
  .array(
    z
      .object({
        id: id.optional(),
        url: z
          .string()
          .min(1, 'is required')
          .max(MAX_CALENDAR_URL_LENGTH, `must be at most ${MAX_CALENDAR_URL_LENGTH} characters`)
          .optional(),
        name: requiredText(MAX_CALENDAR_NAME_LENGTH).optional(),
      })
      .strict()
      .superRefine((c, ctx) => {
        if (!c.id && c.url === undefined) ctx.addIssue({ code: 'custom', path: ['url'], message: 'is required' });
        if (!c.id && c.name === undefined) ctx.addIssue({ code: 'custom', path: ['name'], message: 'is required' });
      }),
  )
  .max(MAX_EXTERNAL_CALENDARS, `must list at most ${MAX_EXTERNAL_CALENDARS} calendars`);

export type ExternalCalendarsInput = z.output<typeof externalCalendarsInput>;

/** What answers show of a calendar URL: its scheme and host, the rest (the secret) elided. */
export function redactCalendarUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}/…`;
  } catch {
    return '…';
  }
}

/** The URL as it will be fetched (webcal:// is https://), or a field error. */
function checkedUrl(raw: string, path: string, mode: Mode, config: Config): string {
  const url = /^webcals?:\/\//i.test(raw) ? raw.replace(/^webcals?:/i, 'https:') : raw;
  try {
    return checkUrl(url, policyFor(mode, config)).toString();
  } catch (err) {
    if (err instanceof UrlRefused) throw AppError.validation([{ path, message: err.message }]);
    throw err;
  }
}

export interface UrlRules {
  mode: Mode;
  config: Config;
}

/**
 * Checks every URL of the list (before anything is written), so a refused one is a 400 naming
 * its field. Returns the list with the URLs as they will be fetched.
 */
export function checkExternalCalendars(list: ExternalCalendarsInput, rules: UrlRules): ExternalCalendarsInput {
  const seen = new Set<string>();
  return list.map((c, i) => {
    if (c.id) {
      if (seen.has(c.id))
        throw AppError.validation([{ path: `externalCalendars.${i}.id`, message: 'is listed twice' }]);
      seen.add(c.id);
    }
    if (c.url === undefined) return c;
    const url = checkedUrl(c.url, `externalCalendars.${i}.url`, rules.mode, rules.config);
    if (seen.has(url)) throw AppError.validation([{ path: `externalCalendars.${i}.url`, message: 'is listed twice' }]);
    seen.add(url);
    return { ...c, url };
  });
}

/**
 * Makes the employee's calendars exactly `list` (checked by checkExternalCalendars): an entry
 * with `id` keeps that calendar (its busy times and ETag too, unless its URL changes), an entry
 * with a URL the employee already has keeps that one, any other is new and due at once; the
 * calendars left out are removed with their busy times. The caller holds the employee's lock
 * (removing busy times changes availability).
 */
export async function replaceExternalCalendars(
  tx: Tx,
  opts: { companyId: string; employeeId: string; list: ExternalCalendarsInput; config: Config },
): Promise<void> {
  const box = secretBox(opts.config);
  const existing = await tx.externalCalendar.findMany({
    where: { companyId: opts.companyId, employeeId: opts.employeeId },
    orderBy: { slot: 'asc' },
  });
  const urlOf = new Map(
    existing.map((e) => {
      let url: string | null = null;
      try {
        url = box.open(e.urlEnc);
      } catch {
        // A URL sealed under another key cannot be matched; it can still be kept by id.
      }
      return [e.id, url] as const;
    }),
  );
  type Plan = { keep: (typeof existing)[number] | null; url?: string; name?: string };
  const plan: Plan[] = opts.list.map((c, i) => {
    if (c.id) {
      const keep = existing.find((e) => e.id === c.id);
      if (!keep)
        throw AppError.validation([
          { path: `externalCalendars.${i}.id`, message: "is not one of this employee's external calendars" },
        ]);
      return { keep, url: c.url, name: c.name };
    }
    const keep = existing.find((e) => urlOf.get(e.id) === c.url && !opts.list.some((x) => x.id === e.id)) ?? null;
    return { keep, url: c.url, name: c.name };
  });
  const kept = new Set(plan.flatMap((p) => (p.keep ? [p.keep.id] : [])));
  const gone = existing.filter((e) => !kept.has(e.id)).map((e) => e.id);
  if (gone.length) await tx.externalCalendar.deleteMany({ where: { id: { in: gone } } });
  const used = new Set(existing.filter((e) => kept.has(e.id)).map((e) => e.slot));
  const freeSlot = () => {
    for (let s = 0; s < MAX_EXTERNAL_CALENDARS; s++)
      if (!used.has(s)) {
        used.add(s);
        return s;
      }
    throw AppError.validation([
      { path: 'externalCalendars', message: `must list at most ${MAX_EXTERNAL_CALENDARS} calendars` },
    ]);
  };
  for (const p of plan) {
    if (p.keep) {
      const changed = p.url !== undefined && p.url !== urlOf.get(p.keep.id);
      if (!changed && (p.name === undefined || p.name === p.keep.name)) continue;
      if (changed) await tx.externalBusy.deleteMany({ where: { calendarId: p.keep.id } });
      await tx.externalCalendar.update({
        where: { id: p.keep.id },
        data: {
          ...(p.name !== undefined ? { name: p.name } : {}),
          ...(changed
            ? {
                urlEnc: box.seal(p.url!),
                urlRedacted: redactCalendarUrl(p.url!),
                etag: null,
                lastModified: null,
                lastSuccessAt: null,
                lastError: null,
                lastErrorAt: null,
                nextFetchAt: new Date(),
                leaseUntil: null,
                version: { increment: 1 },
              }
            : {}),
        },
      });
      continue;
    }
    await tx.externalCalendar.create({
      data: {
        id: newId(),
        companyId: opts.companyId,
        employeeId: opts.employeeId,
        slot: freeSlot(),
        name: p.name!,
        urlEnc: box.seal(p.url!),
        urlRedacted: redactCalendarUrl(p.url!),
        nextFetchAt: new Date(),
      },
    });
  }
}

/** An employee's external calendars in slot order (the admin staff page). */
export async function listExternalCalendars(db: Db, opts: { companyId: string; employeeId: string }) {
  return db.externalCalendar.findMany({
    where: { companyId: opts.companyId, employeeId: opts.employeeId },
    orderBy: { slot: 'asc' },
  });
}
