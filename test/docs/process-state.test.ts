// Keeps ARCHITECTURE.md's "Process state" true to the code: every module-level value that
// outlives a request is allowed by the lint rule only under a name of that table
// (`-- process state: <name>`), and every entry of the table that names a file still has that
// state in it. So a new cache cannot land without its row (key, bound, cross-instance
// invalidation, why it cannot carry one company's data into another's answer). And the caches
// of the table hand out deeply frozen values, equal to what they compute without the cache.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, OPT_IN_SCOPES } from '../../src/auth/scopes.js';
import { isDeepFrozen } from '../../src/frozen.js';
import { findAvailability, setAvailabilityCache } from '../../src/schema/availability/index.js';
import { openCalendarFeed } from '../../src/schema/calendars/index.js';
import { overviewFigures } from '../../src/schema/reports/index.js';
import { EMPTY_WEEK, localDays, readWorkingHours } from '../../src/schema/staff/index.js';
import type { TestApp } from '../helpers/app.js';
import { createDomainApp, futureHour, ok, post, salon } from '../helpers/domain.js';
import { bearer, createAccountWithKeys } from '../helpers/factories.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' ? [] : sources(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

/** The table's rows under "## Process state": name, and the files its second cell names. */
function table(): Map<string, string[]> {
  const text = readFileSync(join(root, 'ARCHITECTURE.md'), 'utf8');
  const start = text.indexOf('\n## Process state\n');
  expect(start).toBeGreaterThan(0);
  const end = text.indexOf('\n## ', start + 1);
  const rows = new Map<string, string[]>();
  for (const line of text.slice(start, end).split('\n')) {
    if (!line.startsWith('| ') || line.startsWith('| name') || line.startsWith('| ---')) continue;
    const cells = line.split('|').map((c) => c.trim());
    rows.set(
      cells[1]!,
      [...cells[2]!.matchAll(/`(src\/[^`]+)`/g)].map((m) => m[1]!),
    );
  }
  return rows;
}

/** Every `process state: <name>` the code declares, with the files that declare it. */
function declared(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const file of sources(join(root, 'src'))) {
    for (const m of readFileSync(file, 'utf8').matchAll(/no-restricted-syntax -- process state: ([^\n]+)/g)) {
      const name = m[1]!.trim();
      if (!out.has(name)) out.set(name, new Set());
      out.get(name)!.add(relative(root, file));
    }
  }
  return out;
}

describe('ARCHITECTURE.md, Process state', () => {
  const rows = table();
  const code = declared();

  it('lists every piece of module state the code declares, in the file the row names', () => {
    expect(code.size).toBeGreaterThan(10);
    for (const [name, files] of code) {
      expect(rows.has(name), `"${name}" (${[...files].join(', ')}) is not a row of the table`).toBe(true);
      for (const file of files) expect(rows.get(name), `row "${name}" does not name ${file}`).toContain(file);
    }
  });

  it('names only files that exist, and no module state the code no longer has', () => {
    for (const [name, files] of rows) {
      expect(files.length, `row "${name}" names no file`).toBeGreaterThan(0);
      for (const file of files) expect(statSync(join(root, file)).isFile(), file).toBe(true);
      // A row the lint rule knows (module state) must still be declared where it says.
      if (code.has(name)) for (const file of code.get(name)!) expect(files).toContain(file);
    }
  });
});

describe('the caches hand out frozen values, equal to the uncached ones', () => {
  let t: TestApp;
  let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
  beforeAll(async () => {
    t = await createDomainApp();
    w = await createAccountWithKeys(t.dbs);
  });
  afterAll(async () => t?.close());
  const db = () => t.dbs.test.prisma;

  it('availability: the kept month is frozen, and equals the month computed without the cache', async () => {
    const auth = bearer(w.testKey.key);
    const { service } = await salon(t.app, auth);
    const company = await db().company.findUniqueOrThrow({ where: { id: w.test.id } });
    const input = { serviceId: service._id, from: futureHour(3, 0), to: futureHour(10, 0) };
    const first = await findAvailability(db(), { company, input });
    const kept = await findAvailability(db(), { company, input });
    expect(kept.kind === 'appointment' && kept.slots.length).toBeGreaterThan(100);
    expect(kept.kind === 'appointment' && isDeepFrozen(kept.slots)).toBe(true);
    expect(kept).toEqual(first);
    setAvailabilityCache([db()], false);
    try {
      const fresh = await findAvailability(db(), { company, input });
      expect(fresh.kind === 'appointment' && isDeepFrozen(fresh.slots)).toBe(false);
      expect(kept).toEqual(fresh);
    } finally {
      setAvailabilityCache([db()], true);
    }
  });

  it('credential cache: a resolution (its company row and scopes) is frozen', async () => {
    const credential = await t.services.credentials.resolve(w.testKey.key);
    expect(credential?.companyId).toBe(w.test.id);
    expect(isDeepFrozen(credential)).toBe(true);
    expect(() => (credential!.scopes as Set<string>).add('x')).toThrow(/frozen/);
  });

  it('local days, parsed working hours and the shared constants are frozen', () => {
    const days = localDays('Europe/Berlin', Date.UTC(2026, 2, 27), Date.UTC(2026, 2, 31));
    expect(days.length).toBeGreaterThan(3);
    for (const d of days) expect(Object.isFrozen(d)).toBe(true);
    const hours = readWorkingHours({ ...EMPTY_WEEK, monday: [{ start: '09:00', end: '17:00' }] });
    expect(isDeepFrozen(hours)).toBe(true);
    expect(isDeepFrozen(readWorkingHours('not hours'))).toBe(true);
    for (const value of [EMPTY_WEEK, ALL_SCOPES, OPT_IN_SCOPES]) expect(isDeepFrozen(value)).toBe(true);
  });

  it('rendered calendar feeds and kept report values are frozen', async () => {
    const auth = bearer(w.testKey.key);
    const { employee, service } = await salon(t.app, auth);
    await post(t.app, '/api/v1/bookings', auth, {
      serviceId: service._id,
      startTime: futureHour(2),
      customer: { name: 'Ann', email: 'ann-frozen@example.com' },
    });
    const made = ok(
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/employees/${employee._id}/calendar-feed/rotate`,
        headers: auth,
      }),
    );
    const token = new URL(made.url).pathname.slice('/calendar/'.length, -'.ics'.length);
    await openCalendarFeed(t.dbs, t.config, token);
    const feed = await openCalendarFeed(t.dbs, t.config, token);
    expect(feed?.ics).toContain('BEGIN:VEVENT');
    expect(isDeepFrozen(feed)).toBe(true);
    const company = await db().company.findUniqueOrThrow({ where: { id: w.test.id } });
    const figures = await overviewFigures(db(), company, new Date());
    expect(isDeepFrozen(figures)).toBe(true);
  });
});
