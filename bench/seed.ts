// `npm run bench:seed` (docs/performance.md, "The scale data set"): fills a PostgreSQL database of
// its own with years of history for thousands of companies, in minutes: every table is filled
// by INSERT … SELECT over generate_series inside PostgreSQL, nothing row by row from here.
//
//   npm run bench:seed -- --companies 2000 --bookings 2000000
//
// Options (defaults in brackets): --companies [2000], --bookings [2000000] (appointments; class
// rosters come on top), --customers [0.15 x bookings], --events [5 x bookings], --deliveries
// [events / 2], --database [BENCH_SCALE_DATABASE_URL or postgresql://postgres@127.0.0.1:5432/svc_scale].
//
// The shape: five companies with 200 staff, one in twenty with 20-50, the rest with 1-5; each
// company's bookings in proportion to its staff, spread over three years (two and a half back,
// half a year ahead) at business hours, in every state (the past completed, cancelled, no-show or
// expired; the future confirmed or cancelled); weekly classes with rosters of eight at the
// companies with 20 staff or more; events with positions, and a succeeded webhook delivery for
// every other event, at one disabled endpoint per company (nothing will be sent).
//
// Idempotent: the database remembers the options it was seeded with (table bench_seed); the same
// options again do nothing, other options drop and seed it anew. Ids have the house layout
// (seconds, then a tag per table, then a counter), so they sort by creation like real ones.
import { parseArgs } from 'node:util';
import pg from 'pg';
import { openDatabases } from '../src/db/databases.js';
import { hashPassword } from '../src/crypto/password.js';
import { SCALE_PASSWORD } from './seed-options.js';

const { values } = parseArgs({
  options: {
    companies: { type: 'string', default: '2000' },
    bookings: { type: 'string', default: '2000000' },
    customers: { type: 'string' },
    events: { type: 'string' },
    deliveries: { type: 'string' },
    database: { type: 'string' },
  },
});

const count = (name: string, v: string | undefined, fallback: number) => {
  const n = v === undefined ? fallback : Number(v);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`--${name} must be a positive whole number, not ${v}`);
  return n;
};
const companies = count('companies', values.companies, 2000);
const bookings = count('bookings', values.bookings, 2_000_000);
const customers = count('customers', values.customers, Math.max(companies * 10, Math.round(bookings * 0.15)));
const events = count('events', values.events, bookings * 5);
const deliveries = count('deliveries', values.deliveries, Math.floor(events / 2));
const url = values.database ?? process.env.BENCH_SCALE_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/svc_scale';
// `shape` changes when the seed fills something new, so a database seeded before is seeded anew.
const options = { companies, bookings, customers, events, deliveries, shape: 2 };
if (deliveries > events) throw new Error('--deliveries cannot exceed --events (one delivery per event at most)');
if (customers < companies * 10) throw new Error('--customers must be at least 10 per company (class rosters of 8)');

const DAYS = 1095; // three years
const SLOTS = 8; // 09:00 … 16:00, one hour apart

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const u = new URL(url);
  u.pathname = '/postgres';
  const c = new pg.Client({ connectionString: u.toString() });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

async function alreadySeeded(): Promise<boolean> {
  const name = new URL(url).pathname.slice(1);
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`the database name ${name} is odd; give a plain one`);
  const exists = await admin(
    async (c) => (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount,
  );
  if (!exists) return false;
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query(`SELECT options FROM bench_seed WHERE complete`).catch(() => ({ rows: [] }));
    const seeded = r.rows[0]?.options as Record<string, unknown> | undefined;
    return r.rows.length === 1 && Object.entries(options).every(([k, v]) => seeded?.[k] === v);
  } finally {
    await c.end();
  }
}

const started = Date.now();
const step = async (c: pg.Client, what: string, sql: string, params: unknown[] = []) => {
  const t0 = Date.now();
  const r = await c.query(sql, params);
  process.stderr.write(`bench:seed: ${what}: ${r.rowCount ?? 0} rows, ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
};

/** The service's own migrations, both modes, on the database being seeded. */
async function migrate(): Promise<void> {
  const dbs = await openDatabases({
    DATABASE_URL: url,
    SANDBOX_SCHEMA: 'sandbox',
    DATABASE_POOL_SIZE: 2,
    DATA_DIR: '.data',
  });
  try {
    await dbs.migrate();
  } finally {
    await dbs.close();
  }
}

async function reportTriggers(c: pg.Client, change: 'DISABLE' | 'ENABLE'): Promise<void> {
  const { rows } = await c.query<{ t: string; name: string }>(
    `SELECT tgrelid::regclass::text AS t, tgname AS name FROM pg_trigger WHERE tgname LIKE '%\\_reports' AND NOT tgisinternal`,
  );
  for (const r of rows) await c.query(`ALTER TABLE ${r.t} ${change} TRIGGER "${r.name}"`);
}

async function main(): Promise<void> {
  if (await alreadySeeded()) {
    // The data set is kept; migrations added since it was seeded are applied to it, as to a
    // production database, so the code measured runs on its own schema.
    await migrate();
    process.stderr.write(
      `bench:seed: ${url} already holds this data set (${JSON.stringify(options)}); only new migrations applied\n`,
    );
    return;
  }
  const name = new URL(url).pathname.slice(1);
  await admin(async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${name}`);
  });
  await migrate();

  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(`SET work_mem = '256MB'; SET maintenance_work_mem = '512MB'; SET synchronous_commit = off`);
    // The report versions' triggers (migrations report_versions, calendar_versions: deferred, a
    // counter raised once a row at the commit) are for a running service's writes; a load of
    // millions of rows would spend far longer in them than in the load. They are off for the
    // seed and on again after it (a new data set's counters start at zero: no process has kept
    // anything of it).
    await reportTriggers(c, 'DISABLE');
    await c.query(
      `CREATE TABLE bench_seed (options jsonb NOT NULL, complete boolean NOT NULL, seeded_at timestamptz NOT NULL DEFAULT now())`,
    );
    await c.query(`INSERT INTO bench_seed (options, complete) VALUES ($1, false)`, [JSON.stringify(options)]);
    // A house id: 8 hex digits of seconds, a 2-digit tag per table, a 14-digit counter.
    await c.query(`CREATE FUNCTION pg_temp.sid(t timestamptz, tag text, n bigint) RETURNS text IMMUTABLE LANGUAGE sql AS
      $$ SELECT lpad(to_hex(extract(epoch FROM t)::bigint), 8, '0') || tag || lpad(to_hex(n), 14, '0') $$`);
    // The counter of a house id, back as a number.
    await c.query(`CREATE FUNCTION pg_temp.num(id text) RETURNS bigint IMMUTABLE LANGUAGE sql AS
      $$ SELECT ('x' || lpad(substr(id, 11), 16, '0'))::bit(64)::bigint $$`);
    await c.query(`CREATE TEMP TABLE origin AS SELECT date_trunc('day', now()) - interval '912 days' AS t0`);

    await step(
      c,
      'account',
      `INSERT INTO accounts (id, email, password_hash, created_at) SELECT pg_temp.sid(t0, 'a1', 1), 'scale@bench.invalid', $1, t0 FROM origin`,
      [await hashPassword(SCALE_PASSWORD)],
    );
    // Company sizes: five with 200 staff, one in twenty with 20-50, the rest 1-5.
    await c.query(
      `CREATE TEMP TABLE co AS
       SELECT i, staff, sum(staff) OVER (ORDER BY i) - staff AS emp_off
         FROM (SELECT i, CASE WHEN i <= 5 THEN 200 WHEN i % 20 = 0 THEN 20 + i % 31 ELSE 1 + i % 5 END AS staff
                 FROM generate_series(1, $1::int) i) s`,
      [companies],
    );
    await c.query(`ALTER TABLE co ADD COLUMN cust_off bigint, ADD COLUMN cust_n bigint`);
    await c.query(
      `WITH w AS (SELECT i, greatest(10, floor($1::bigint * staff / (SELECT sum(staff) FROM co)))::bigint AS n FROM co)
       UPDATE co SET cust_n = w.n, cust_off = s.off FROM w, (SELECT i, sum(n) OVER (ORDER BY i) - n AS off FROM w) s
        WHERE co.i = w.i AND s.i = w.i`,
      [customers],
    );
    await c.query(`CREATE INDEX ON co (i)`);
    await step(
      c,
      'companies',
      `INSERT INTO companies (id, account_id, mode, name, email, timezone, currency, created_at, updated_at)
       SELECT pg_temp.sid(t0, 'c0', i), pg_temp.sid(t0, 'a1', 1), 'live',
              CASE WHEN staff >= 200 THEN 'Chain ' ELSE 'Shop ' END || i, 'shop' || i || '@example.com',
              (ARRAY['Europe/Berlin','America/New_York','Europe/London','Asia/Tokyo'])[1 + i % 4], 'EUR', t0, t0
         FROM co, origin`,
    );
    const hours = JSON.stringify(
      Object.fromEntries(
        ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [
          d,
          d === 'sunday' ? [] : [{ start: '09:00', end: '20:00' }],
        ]),
      ),
    );
    await c.query(
      `CREATE TEMP TABLE emp AS SELECT co.i AS company, co.emp_off + k - 1 AS e, k FROM co, generate_series(1, co.staff) k`,
    );
    await c.query(`CREATE INDEX ON emp (e)`);
    const employeeCount = Number((await c.query(`SELECT count(*) AS n FROM emp`)).rows[0].n);
    const perEmployee = Math.ceil(bookings / employeeCount);
    if (perEmployee > DAYS * SLOTS)
      throw new Error(`${perEmployee} bookings per employee do not fit in three years; seed more companies`);
    await step(
      c,
      'employees',
      `INSERT INTO employees (id, company_id, name, working_hours, created_at, updated_at)
       SELECT pg_temp.sid(t0, 'e0', e), pg_temp.sid(t0, 'c0', company), 'Staff ' || k, $1::jsonb, t0, t0 FROM emp, origin`,
      [hours],
    );
    // Three appointment services (30, 60 and 45 minutes) and a class per company.
    await step(
      c,
      'services',
      `INSERT INTO services (id, company_id, name, kind, duration_minutes, price, created_at, updated_at)
       SELECT pg_temp.sid(t0, '5e', co.i * 4 + s), pg_temp.sid(t0, 'c0', co.i),
              (ARRAY['Short visit','Long visit','Standard visit','Group class'])[s + 1],
              CASE WHEN s = 3 THEN 'class' ELSE 'appointment' END::"ServiceKind",
              (ARRAY[30, 60, 45, 60])[s + 1], (ARRAY[2500, 6000, 4500, 1500])[s + 1], t0, t0
         FROM co, generate_series(0, 3) s, origin`,
    );
    await step(
      c,
      'employee services',
      `INSERT INTO employee_services (employee_id, service_id)
       SELECT pg_temp.sid(t0, 'e0', e), pg_temp.sid(t0, '5e', company * 4 + s) FROM emp, generate_series(0, 2) s, origin`,
    );
    await step(
      c,
      'customers',
      `INSERT INTO customers (id, company_id, name, email, phone, created_at, updated_at)
       SELECT pg_temp.sid(t0 + (k * interval '1 minute'), 'c5', co.cust_off + k), pg_temp.sid(t0, 'c0', co.i),
              'Customer ' || (co.cust_off + k), 'customer' || (co.cust_off + k) || '@example.com',
              '+4930' || lpad((co.cust_off + k)::text, 8, '0'), t0 + (k * interval '1 minute'), t0 + (k * interval '1 minute')
         FROM co, generate_series(0, co.cust_n - 1) k, origin`,
    );
    // Booking n: employee n % E, its m-th booking on day m * DAYS / M at 09:00 + (m % 8) hours
    // (UTC; the day's hours in the company's zone matter no more to the figures than the mix).
    await step(
      c,
      'bookings',
      `WITH b AS (
         SELECT n, n % $2 AS e, n / $2 AS m FROM generate_series(0, $1::bigint - 1) n
       ), t AS (
         SELECT b.n, b.m, emp.e, emp.company, co.cust_off, co.cust_n, (b.m % 3) AS s,
                origin.t0 + (b.m * ${DAYS} / $3) * interval '1 day' + (9 + b.m % ${SLOTS}) * interval '1 hour' AS st
           FROM b JOIN emp ON emp.e = b.e JOIN co ON co.i = emp.company, origin
       )
       INSERT INTO bookings (id, company_id, service_id, employee_id, customer_id, start_time, end_time, block_start,
                             block_end, status, cancelled_by, cancel_reason, price, currency, created_at, updated_at)
       SELECT pg_temp.sid(st - interval '7 days', 'b0', n), pg_temp.sid(o.t0, 'c0', company),
              pg_temp.sid(o.t0, '5e', company * 4 + s), pg_temp.sid(o.t0, 'e0', e),
              pg_temp.sid(o.t0 + ((m * 31 + e) % cust_n) * interval '1 minute', 'c5', cust_off + (m * 31 + e) % cust_n),
              st, st + (ARRAY[30, 60, 45])[s + 1] * interval '1 minute', st, st + (ARRAY[30, 60, 45])[s + 1] * interval '1 minute',
              st1.status::"BookingStatus", CASE WHEN st1.status = 'cancelled' THEN 'customer'::"CancelledBy" END,
              CASE WHEN st1.status = 'cancelled' THEN 'Plans changed' END,
              (ARRAY[2500, 6000, 4500])[s + 1], 'EUR', st - interval '7 days', st - interval '7 days'
         FROM t, origin o,
              LATERAL (SELECT CASE
                WHEN t.st >= now() THEN CASE WHEN n % 20 = 0 THEN 'cancelled' ELSE 'confirmed' END
                WHEN n % 20 < 2 THEN 'cancelled' WHEN n % 20 = 2 THEN 'no_show' WHEN n % 20 = 3 THEN 'expired'
                ELSE 'completed' END AS status) st1`,
      [bookings, employeeCount, perEmployee],
    );
    // Weekly classes at 18:30 by each larger company's first employee, with rosters of eight.
    await step(
      c,
      'class sessions',
      `INSERT INTO class_sessions (id, company_id, service_id, employee_id, start_time, end_time, capacity, booked_count,
                                   status, created_at, updated_at)
       SELECT pg_temp.sid(st - interval '30 days', 'c1', co.i * 1000 + w), pg_temp.sid(o.t0, 'c0', co.i),
              pg_temp.sid(o.t0, '5e', co.i * 4 + 3), pg_temp.sid(o.t0, 'e0', co.emp_off), st, st + interval '1 hour', 12,
              CASE WHEN st >= now() THEN 8 ELSE 0 END, 'scheduled', st - interval '30 days', st - interval '30 days'
         FROM co, origin o, generate_series(0, ${Math.floor(DAYS / 7) - 1}) w,
              LATERAL (SELECT o.t0 + w * interval '7 days' + interval '18 hours 30 minutes' AS st) x
        WHERE co.staff >= 20`,
    );
    // Eight distinct customers of the company a session (the company has at least ten).
    await step(
      c,
      'class rosters',
      `INSERT INTO bookings (id, company_id, service_id, employee_id, customer_id, class_session_id, start_time, end_time,
                             block_start, block_end, status, price, currency, created_at, updated_at)
       SELECT pg_temp.sid(cs.start_time - interval '3 days', 'b1', x.w * 8 + seat), cs.company_id, cs.service_id, cs.employee_id,
              pg_temp.sid(o.t0 + ((x.w + seat) % co.cust_n) * interval '1 minute', 'c5', co.cust_off + (x.w + seat) % co.cust_n),
              cs.id, cs.start_time, cs.end_time, cs.start_time, cs.end_time,
              CASE WHEN cs.start_time >= now() THEN 'confirmed' ELSE 'completed' END::"BookingStatus", 1500, 'EUR',
              cs.start_time - interval '3 days', cs.start_time - interval '3 days'
         FROM class_sessions cs JOIN co ON co.i = pg_temp.num(cs.company_id), origin o, generate_series(0, 7) seat,
              LATERAL (SELECT pg_temp.num(cs.id) AS w) x`,
    );
    await step(
      c,
      'webhook endpoints',
      `INSERT INTO webhook_endpoints (id, company_id, url, events, enabled, secret_enc, token_enc, disabled_reason, created_at, updated_at)
       SELECT pg_temp.sid(t0, 'ed', i), pg_temp.sid(t0, 'c0', i), 'https://hooks.example.com/' || i, ARRAY['*'], false,
              'seeded', 'seeded', 'bench:seed', t0, t0 FROM co, origin`,
    );
    // Events: k = 0..K-1 per booking in booking order (which is time order, day by day); the
    // position follows the same order. Triggers are off for the bulk load: the relay's NOTIFY
    // would fire once a row, and every event is dispatched already.
    await c.query(`SET session_replication_role = replica`);
    const perBooking = Math.ceil(events / bookings);
    await step(
      c,
      'events',
      `INSERT INTO events (id, company_id, type, data, created_at, dispatched_at, position)
       SELECT pg_temp.sid(b.created_at + k * interval '1 hour', 'e7', n), b.company_id,
              (ARRAY['booking.created','booking.reminder_sent','booking.confirmed','booking.completed','booking.updated'])[k % 5 + 1],
              jsonb_build_object('bookingId', b.id, 'status', b.status), b.created_at + k * interval '1 hour',
              b.created_at + k * interval '1 hour', n + 1
         FROM (SELECT id, company_id, status, created_at, row_number() OVER (ORDER BY id) - 1 AS bn FROM bookings WHERE id LIKE '________b0%') b,
              generate_series(0, $2 - 1) k, LATERAL (SELECT b.bn * $2 + k AS n) x
        WHERE n < $1`,
      [events, perBooking],
    );
    // The endpoint of a company has the company's id with the endpoints' tag.
    await step(
      c,
      'webhook deliveries',
      `INSERT INTO webhook_deliveries (id, company_id, endpoint_id, event_id, status, attempt_count, last_status_code, created_at, updated_at)
       SELECT pg_temp.sid(e.created_at, 'de', e.position), e.company_id,
              substr(e.company_id, 1, 8) || 'ed' || substr(e.company_id, 11), e.id, 'succeeded', 1, 200, e.created_at, e.created_at
         FROM events e WHERE e.position % $2 = 0 AND e.position / $2 <= $1`,
      [deliveries, Math.max(1, Math.floor(events / deliveries))],
    );
    // A card payment for every third booking served, one in ten of them refunded by half, made an
    // hour before the start: the payments pages and reports have a history to page through.
    await step(
      c,
      'payments',
      `INSERT INTO payments (id, company_id, booking_id, amount, currency, status, kind, amount_refunded, brand, last4,
                             outcome, refunded_at, created_at, updated_at)
       SELECT pg_temp.sid(b.start_time - interval '1 hour', 'p0', pg_temp.num(b.id)), b.company_id, b.id, b.price, b.currency,
              CASE WHEN pg_temp.num(b.id) % 30 = 0 THEN 'partially_refunded' ELSE 'succeeded' END::"PaymentStatus", 'full',
              CASE WHEN pg_temp.num(b.id) % 30 = 0 THEN b.price / 2 ELSE 0 END, 'visa', '4242', 'succeeded',
              CASE WHEN pg_temp.num(b.id) % 30 = 0 THEN b.start_time + interval '1 day' END,
              b.start_time - interval '1 hour', b.start_time - interval '1 hour'
         FROM bookings b WHERE b.status = 'completed' AND pg_temp.num(b.id) % 3 = 0`,
    );
    await c.query(`SET session_replication_role = DEFAULT`);
    await reportTriggers(c, 'ENABLE');
    await step(c, 'analyze', 'ANALYZE');
    await c.query(`UPDATE bench_seed SET complete = true`);
  } finally {
    await c.end();
  }
  process.stderr.write(
    `bench:seed: done in ${((Date.now() - started) / 1000).toFixed(0)} s (${JSON.stringify(options)})\n`,
  );
}

await main();
