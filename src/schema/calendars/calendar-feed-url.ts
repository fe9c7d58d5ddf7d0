// GraphQL of the calendar feeds (docs/calendars.md): rotateEmployeeCalendarFeed and
// rotateCompanyCalendarFeed, each answering { url, includeNotes }. Scope employees:write for
// both (docs/api.md, Calendar feeds).
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { rotateCalendarFeed, type RotatedFeed } from './rotate-calendar-feed.js';

const CalendarFeedUrlType = builder.objectRef<RotatedFeed>('CalendarFeedUrl').implement({
  description: "A calendar feed's secret URL, BASE_URL/calendar/<token>.ics (shown again in the admin area)",
  fields: (t) => ({
    url: t.exposeString('url', { description: 'The feed to subscribe to; the previous URL stopped working' }),
    includeNotes: t.exposeBoolean('includeNotes', { description: "Whether the feed shows bookings' notes" }),
  }),
});

const RotateCalendarFeedInput = builder.inputType('RotateCalendarFeedInput', {
  description: 'How the new feed is made',
  fields: (t) => ({
    includeNotes: t.boolean({ description: "Show bookings' notes in the feed (default false)" }),
  }),
});

const write = { scope: 'employees:write' } as const;
const who = (ctx: Context) => ({
  config: ctx.config,
  mode: ctx.credential!.mode,
  companyId: ctx.credential!.companyId,
});

builder.mutationFields((t) => ({
  rotateEmployeeCalendarFeed: t.field({
    type: CalendarFeedUrlType,
    description: "Creates the employee's calendar feed, or gives it a new URL: the old one stops at once",
    authScopes: write,
    args: {
      employeeId: t.arg.id({ required: true, description: 'The employee id' }),
      input: t.arg({ type: RotateCalendarFeedInput, description: 'includeNotes' }),
    },
    resolve: (_r, a, ctx) =>
      rotateCalendarFeed(ctx.db, { ...who(ctx), employeeId: String(a.employeeId), input: a.input }),
  }),
  rotateCompanyCalendarFeed: t.field({
    type: CalendarFeedUrlType,
    description: "Creates the whole company's calendar feed, or gives it a new URL: the old one stops at once",
    authScopes: write,
    args: { input: t.arg({ type: RotateCalendarFeedInput, description: 'includeNotes' }) },
    resolve: (_r, a, ctx) => rotateCalendarFeed(ctx.db, { ...who(ctx), input: a.input }),
  }),
}));
