import { readFileSync } from 'node:fs';

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
