// bookingStats (docs/graphql.md, "Reports"; REST: GET /reports/bookings): counts by status,
// revenue, no-show rate and utilisation of the bookings in a window, grouped by the company's
// local day, by employee or by service. Scopes: bookings:read; the revenue fields also
// payments:read (a credential without it gets INSUFFICIENT_SCOPE on those fields only, the rest
// of the answer resolves).
import { builder } from '../builder.js';
import {
  computeBookingStats,
  type BookingStats,
  type Revenue,
  type StatsGroup,
  type StatusCounts,
} from './compute-booking-stats.js';

const GroupBy = builder.enumType('BookingStatsGroupBy', {
  description: 'How bookingStats groups the bookings',
  values: {
    DAY: { value: 'day', description: "By the company's local calendar day (its time zone, DST included)" },
    EMPLOYEE: { value: 'employee', description: 'By employee' },
    SERVICE: { value: 'service', description: 'By service' },
  } as const,
});

const Counts = builder.objectRef<StatusCounts>('BookingStatusCounts').implement({
  description: 'How many of the bookings are in each status',
  fields: (t) => ({
    total: t.exposeInt('total', { description: 'All of them, whatever their status: the sum of the other counts' }),
    pending: t.exposeInt('pending', { description: 'Status pending: waiting for payment' }),
    confirmed: t.exposeInt('confirmed', { description: 'Status confirmed' }),
    cancelled: t.exposeInt('cancelled', { description: 'Status cancelled' }),
    completed: t.exposeInt('completed', { description: 'Status completed' }),
    noShow: t.exposeInt('noShow', { description: 'Status no_show' }),
    expired: t.exposeInt('expired', {
      description: 'Status expired: its payment hold lapsed, or its waitlist offer did',
    }),
    waitlisted: t.exposeInt('waitlisted', {
      description: "Status waitlisted: on a full class's waitlist, holding no place",
    }),
    offered: t.exposeInt('offered', { description: 'Status offered: a freed class place offered, not yet accepted' }),
  }),
});

const RevenueType = builder.objectRef<Revenue>('BookingRevenue').implement({
  description: "Money taken for the bookings, in one currency's minor units (cents)",
  fields: (t) => ({
    currency: t.exposeString('currency', { description: 'ISO 4217 code' }),
    collected: t.exposeInt('collected', { description: 'Succeeded payments, including those refunded since' }),
    refunded: t.exposeInt('refunded', { description: 'Refunded payments' }),
    net: t.exposeInt('net', { description: 'collected − refunded' }),
  }),
});

const Group = builder.objectRef<StatsGroup>('BookingStatsGroup').implement({
  description: 'The statistics of one group of bookings (or of all of them: `totals`)',
  fields: (t) => ({
    key: t.exposeString('key', {
      description: "The company's local date (YYYY-MM-DD), the employee's or the service's id; `total` for the totals",
    }),
    name: t.exposeString('name', { nullable: true, description: "The employee's or the service's name" }),
    counts: t.expose('counts', { type: Counts, description: 'The bookings by status' }),
    noShowRate: t.exposeFloat('noShowRate', {
      nullable: true,
      description: 'noShow / (completed + noShow), 4 decimals; null when none was completed or missed',
    }),
    revenue: t.field({
      type: [RevenueType],
      // Nullable: a credential without payments:read gets INSUFFICIENT_SCOPE here and the rest.
      nullable: true,
      authScopes: { scope: 'payments:read' },
      description: 'Payments of these bookings by currency: succeeded minus refunded. Needs the payments:read scope',
      resolve: (g) => g.revenue,
    }),
    bookedMinutes: t.exposeInt('bookedMinutes', {
      description:
        'Minutes of the appointments that hold or held their time (pending, confirmed, completed, no_show) and of ' +
        'the class sessions with at least one such booking, counted once each, to the end of the window',
    }),
    availableMinutes: t.exposeInt('availableMinutes', {
      description:
        'Working minutes of the active employees (their working hours, less time off), within the window; by ' +
        'service, those of the employees who perform it',
    }),
    utilisation: t.exposeFloat('utilisation', {
      nullable: true,
      description: 'bookedMinutes / availableMinutes, 4 decimals; null without working time',
    }),
  }),
});

const Stats = builder.objectRef<BookingStats>('BookingStats').implement({
  description: 'Booking statistics of a window, grouped',
  fields: (t) => ({
    from: t.expose('from', { type: 'DateTime', description: 'The start of the window, included' }),
    to: t.expose('to', { type: 'DateTime', description: 'The end of the window, excluded' }),
    groupBy: t.field({ type: GroupBy, description: 'How the groups were made', resolve: (s) => s.groupBy }),
    timeZone: t.exposeString('timeZone', { description: "The company's IANA time zone, which makes the days" }),
    groups: t.expose('groups', {
      type: [Group],
      description:
        'Every local day of the window, every active employee or service, and any other with bookings; by key',
    }),
    totals: t.expose('totals', { type: Group, description: 'All the bookings of the window' }),
  }),
});

builder.queryField('bookingStats', (t) =>
  t.field({
    type: Stats,
    authScopes: { scope: 'bookings:read' },
    description:
      'Statistics of the bookings that start in [from, to) (at most 366 days), grouped by local day, employee or ' +
      'service. Revenue fields need payments:read as well',
    args: {
      from: t.arg({ type: 'DateTime', required: true, description: 'Bookings starting at or after this instant' }),
      to: t.arg({
        type: 'DateTime',
        required: true,
        description: 'Bookings starting before this instant; at most 366 days after from',
      }),
      groupBy: t.arg({ type: GroupBy, required: true, description: 'By local day, employee or service' }),
    },
    resolve: (_r, args, ctx) =>
      computeBookingStats(ctx.db, {
        company: ctx.credential!.company,
        input: args,
        // The revenue query runs only for a credential that may read it.
        withRevenue: ctx.credential!.scopes.has('payments:read'),
      }),
  }),
);
