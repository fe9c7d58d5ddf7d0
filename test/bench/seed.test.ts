// `npm run bench:seed` (docs/performance.md, "The scale data set") run for real on a tiny data
// set in a database of its own: every row it writes holds to the schema's references and
// constraints (the bulk load turns triggers off for events and deliveries, so the references
// are checked here), live bookings hold their employees' time, and a second run with the same
// options changes nothing.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { seededDatabase } from '../helpers/scale-seed.js';

const db = seededDatabase('seed_test');
const seed = () => db.seed();

async function query<T extends pg.QueryResultRow>(sql: string): Promise<T[]> {
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  try {
    return (await c.query<T>(sql)).rows;
  } finally {
    await c.end();
  }
}

afterAll(() => db.drop());

// PGlite has no second database to seed; the seed is for PostgreSQL.
describe.runIf(process.env.DATABASE_URL)('bench:seed', () => {
  it('fills every table in the shape asked for, consistently, and a second run does nothing', async () => {
    const first = seed();
    expect(first.status, first.stderr).toBe(0);
    const [counts] = await query<Record<string, string>>(`SELECT
        (SELECT count(*) FROM companies) AS companies,
        (SELECT count(*) FROM bookings WHERE class_session_id IS NULL) AS appointments,
        (SELECT count(*) FROM bookings WHERE class_session_id IS NOT NULL) AS roster,
        (SELECT count(*) FROM events) AS events,
        (SELECT count(*) FROM webhook_deliveries) AS deliveries,
        (SELECT count(DISTINCT status) FROM bookings) AS states,
        (SELECT max(staff) FROM (SELECT count(*) AS staff FROM employees GROUP BY company_id) s) AS largest,
        (SELECT min(staff) FROM (SELECT count(*) AS staff FROM employees GROUP BY company_id) s) AS smallest`);
    expect(counts).toMatchObject({
      companies: '21',
      appointments: '3000',
      events: '15000',
      deliveries: '7500',
      states: '5',
      largest: '200',
    });
    expect(Number(counts!.roster)).toBeGreaterThan(0);
    expect(Number(counts!.smallest)).toBeLessThanOrEqual(5);
    // References the bulk load did not check itself.
    const [orphans] = await query<Record<string, string>>(`SELECT
        (SELECT count(*) FROM webhook_deliveries d LEFT JOIN webhook_endpoints e ON e.id = d.endpoint_id
          WHERE e.id IS NULL OR e.company_id <> d.company_id) AS endpoints,
        (SELECT count(*) FROM webhook_deliveries d LEFT JOIN events e ON e.id = d.event_id
          WHERE e.id IS NULL OR e.company_id <> d.company_id) AS events,
        (SELECT count(*) FROM events WHERE position IS NULL OR dispatched_at IS NULL) AS undispatched,
        (SELECT count(*) FROM bookings b JOIN customers c ON c.id = b.customer_id WHERE c.company_id <> b.company_id) AS customers,
        (SELECT count(*) FROM bookings b JOIN employees e ON e.id = b.employee_id WHERE e.company_id <> b.company_id) AS employees`);
    expect(orphans).toEqual({ endpoints: '0', events: '0', undispatched: '0', customers: '0', employees: '0' });
    // Every live appointment holds its employee's time (the trigger ran), and class places add up.
    const [held] = await query<Record<string, string>>(`SELECT
        (SELECT count(*) FROM bookings WHERE status IN ('pending', 'confirmed') AND class_session_id IS NULL) AS live,
        (SELECT count(*) FROM employee_blocks WHERE booking_id IS NOT NULL) AS blocks,
        (SELECT count(*) FROM class_sessions cs WHERE booked_count <> (SELECT count(*) FROM bookings b
          WHERE b.class_session_id = cs.id AND b.status IN ('pending', 'confirmed'))) AS miscounted`);
    expect(held!.blocks).toBe(held!.live);
    expect(held!.miscounted).toBe('0');
    const ids = await query<{ id: string }>(`SELECT id FROM bookings ORDER BY random() LIMIT 50`);
    for (const { id } of ids) expect(id).toMatch(/^[0-9a-f]{24}$/);

    const again = seed();
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).toContain('already holds this data set');
  }, 120_000);
});
