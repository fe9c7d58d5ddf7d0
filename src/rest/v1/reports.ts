// GET /api/v1/reports/bookings (docs/api.md, "Reports"): GraphQL's bookingStats. Revenue needs
// payments:read besides bookings:read; a credential without it gets the report without
// `revenue` (left out, never zero), as the route's second operation selects none.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { graphqlRoute, type V1Deps } from '../route.js';
import { Nullable, Timestamp } from '../schemas.js';

const GROUPINGS = ['day', 'employee', 'service'] as const;

const Counts = Type.Object(
  {
    total: Type.Integer({ description: 'All the bookings: the sum of the other counts' }),
    pending: Type.Integer(),
    confirmed: Type.Integer(),
    cancelled: Type.Integer(),
    completed: Type.Integer(),
    noShow: Type.Integer({ description: 'Status no_show' }),
    expired: Type.Integer(),
    waitlisted: Type.Integer({ description: "On a full class's waitlist" }),
    offered: Type.Integer({ description: 'Offered a freed class place, not yet accepted' }),
  },
  { title: 'Bookings by status' },
);

const Revenue = Type.Object(
  {
    currency: Type.String({ description: 'ISO 4217 code' }),
    collected: Type.Integer({ description: 'Minor units: succeeded payments, including those refunded since' }),
    refunded: Type.Integer({ description: 'Minor units: refunded payments' }),
    net: Type.Integer({ description: 'Minor units: collected − refunded' }),
  },
  { title: 'Revenue in one currency' },
);

function reportSchema(withRevenue: boolean) {
  const group = Type.Object(
    {
      key: Type.String({
        description: "The company's local date (YYYY-MM-DD), the employee's or service's id; `total` for totals",
      }),
      name: Nullable(Type.String({ description: "The employee's or service's name" })),
      counts: Counts,
      noShowRate: Nullable(Type.Number({ description: 'noShow / (completed + noShow); null when both are 0' })),
      ...(withRevenue
        ? {
            revenue: Type.Optional(
              Type.Array(Revenue, {
                description: 'By currency. Present only for a credential with the payments:read scope',
              }),
            ),
          }
        : {}),
      bookedMinutes: Type.Integer(),
      availableMinutes: Type.Integer({ description: 'Working minutes of the active employees, less time off' }),
      utilisation: Nullable(
        Type.Number({ description: 'bookedMinutes / availableMinutes; null without working time' }),
      ),
    },
    { title: 'Statistics of a group of bookings' },
  );
  return Type.Object(
    {
      from: Timestamp,
      to: Timestamp,
      groupBy: Type.Union(GROUPINGS.map((g) => Type.Literal(g))),
      timeZone: Type.String({ description: "The company's IANA time zone, which makes the days" }),
      groups: Type.Array(group),
      totals: group,
    },
    { title: 'Booking report' },
  );
}

type Report = { groupBy: string };

export default async function reportRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/reports/bookings',
    operationId: 'getBookingReport',
    summary:
      "Counts by status, revenue, no-show rate and utilisation of the bookings starting in [from, to), by the company's local day, employee or service; at most 366 days. Revenue also needs payments:read",
    tags: ['Reports'],
    scope: 'bookings:read',
    request: {
      querystring: Type.Object(
        { from: Timestamp, to: Timestamp, groupBy: Type.Union(GROUPINGS.map((g) => Type.Literal(g))) },
        { additionalProperties: false },
      ),
    },
    response: reportSchema(true),
    withoutScope: { scope: 'payments:read', response: reportSchema(false) },
    query: 'bookingStats',
    // GraphQL's enum values are DAY, EMPLOYEE, SERVICE; REST's values are lower case.
    variables: (req) => ({ ...req.query, groupBy: req.query.groupBy.toUpperCase() }),
    select: (r: Report) => ({ ...r, groupBy: r.groupBy.toLowerCase() }),
  });
}
