import { readFileSync } from 'node:fs';
import type { TestApp } from './app.js';
import { post } from './domain.js';

// The dashboard query of docs/graphql-dashboards.md: a day's bookings with customer, service,
// employee and payments, plus the staff with their bookings of that day.
export const DASHBOARD = `query Dashboard($from: DateTime!, $to: DateTime!, $first: Int!) {
  bookings(from: $from, to: $to, orderBy: START_TIME, first: $first) {
    totalCount
    nodes {
      _id startTime endTime status
      customer { name email phone }
      service { name durationMinutes priceMoney { amount currency } }
      employee { name }
      payments { nodes { status amountMoney { amount currency } } }
    }
  }
  viewer { company { employees(orderBy: NAME) { nodes { name
    bookings(from: $from, to: $to, orderBy: START_TIME, first: 30) { totalCount nodes { startTime status } } } } } }
}`;

/**
 * The canonical day query of docs/graphql.md (Limits), read from the page: a day's bookings
 * Relay-style, `edges { cursor node { … customer service employee payments(first: 5) } }`, paged
 * with `$first`/`$after` (issue 43; test/schema/graph-statements.test.ts, the bench's dashboard-day).
 */
export const DAY_BOOKINGS = /```graphql\n(query DayBookings[\s\S]*?)```/.exec(
  readFileSync(new URL('../../docs/graphql.md', import.meta.url), 'utf8'),
)![1]!;

/**
 * A dashboard's day: each employee booked at every whole hour from `fromHour` to before `toHour`
 * (UTC) of `day` through `POST /bookings`, employee i's customer "Customer i". The bookings in
 * the order made (hour by hour, then employee by employee).
 */
export async function bookDay(
  app: TestApp['app'],
  auth: Record<string, string>,
  o: { serviceId: string; staff: Array<{ _id: string }>; day: Date; fromHour: number; toHour: number },
): Promise<Array<{ _id: string; customerId: string; employeeIndex: number }>> {
  const made = [];
  for (let hour = o.fromHour; hour < o.toHour; hour++)
    for (const [i, employee] of o.staff.entries()) {
      const b = await post(app, '/api/v1/bookings', auth, {
        serviceId: o.serviceId,
        employeeId: employee._id,
        startTime: new Date(o.day.getTime() + hour * 3_600_000).toISOString(),
        customer: { name: `Customer ${i}`, email: `customer${i}@example.com` },
      });
      made.push({ _id: b._id as string, customerId: b.customerId as string, employeeIndex: i });
    }
  return made;
}
