// Booking rules in GraphQL (docs/api.md, Booking rules): the company's rules with defaults
// filled in, a service's overrides (null inherits), and the input both take.
import { builder } from './builder.js';
import type { BookingRuleOverrides, BookingRules } from './booking-rules.js';

export const BookingRulesType = builder.objectRef<BookingRules>('BookingRules').implement({
  description: "The company's booking rules, defaults filled in; a service may override each",
  fields: (t) => ({
    cancellationCutoffMinutes: t.exposeInt('cancellationCutoffMinutes', {
      description: 'A customer may cancel until this many minutes before the start (default 0)',
    }),
    rescheduleCutoffMinutes: t.exposeInt('rescheduleCutoffMinutes', {
      description: 'A customer may reschedule until this many minutes before the start (default 0)',
    }),
    minNoticeMinutes: t.exposeInt('minNoticeMinutes', {
      description: 'A start can be booked from this many minutes after now (default 0)',
    }),
    maxAdvanceDays: t.exposeInt('maxAdvanceDays', {
      description: 'A start can be booked at most this many days (of 24 hours) ahead (default 365)',
    }),
    slotIntervalMinutes: t.exposeInt('slotIntervalMinutes', {
      nullable: true,
      description:
        'Starts step by this many minutes from each working interval and off-grid starts are refused; ' +
        'null: a 15-minute grid is offered and any start inside working hours is accepted',
    }),
    dailyLimitPerEmployee: t.exposeInt('dailyLimitPerEmployee', {
      nullable: true,
      description: 'At most this many live bookings of a service per employee per local day; null: no limit',
    }),
  }),
});

export const ServiceBookingRulesType = builder.objectRef<BookingRuleOverrides>('ServiceBookingRules').implement({
  description: "A service's overrides of the company's booking rules; null inherits the company's",
  fields: (t) => ({
    cancellationCutoffMinutes: t.exposeInt('cancellationCutoffMinutes', {
      nullable: true,
      description: "Minutes before the start a customer may still cancel; null: the company's",
    }),
    rescheduleCutoffMinutes: t.exposeInt('rescheduleCutoffMinutes', {
      nullable: true,
      description: "Minutes before the start a customer may still reschedule; null: the company's",
    }),
    minNoticeMinutes: t.exposeInt('minNoticeMinutes', {
      nullable: true,
      description: "Minutes of notice a booking needs; null: the company's",
    }),
    maxAdvanceDays: t.exposeInt('maxAdvanceDays', {
      nullable: true,
      description: "Days ahead a start can be booked; null: the company's",
    }),
    slotIntervalMinutes: t.exposeInt('slotIntervalMinutes', {
      nullable: true,
      description: "Minutes between offered starts; null: the company's",
    }),
    dailyLimitPerEmployee: t.exposeInt('dailyLimitPerEmployee', {
      nullable: true,
      description: "Bookings of this service per employee per local day; null: the company's",
    }),
  }),
});

export const BookingRulesInput = builder.inputType('BookingRulesInput', {
  description: 'Booking rules to change: a given value replaces, null resets (company) or inherits (service)',
  fields: (t) => ({
    cancellationCutoffMinutes: t.int({ description: 'Minutes before the start, 0–525600' }),
    rescheduleCutoffMinutes: t.int({ description: 'Minutes before the start, 0–525600' }),
    minNoticeMinutes: t.int({ description: 'Minutes of notice a booking needs, 0–525600' }),
    maxAdvanceDays: t.int({ description: 'Days ahead a start can be booked, 1–730' }),
    slotIntervalMinutes: t.int({ description: 'Minutes between offered starts, 5–240' }),
    dailyLimitPerEmployee: t.int({ description: 'Bookings of a service per employee per local day, 1–1000' }),
  }),
});
