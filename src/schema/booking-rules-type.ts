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
  }),
});

export const BookingRulesInput = builder.inputType('BookingRulesInput', {
  description: 'Booking rules to change: a given value replaces, null resets (company) or inherits (service)',
  fields: (t) => ({
    cancellationCutoffMinutes: t.int({ description: 'Minutes before the start, 0–525600' }),
    rescheduleCutoffMinutes: t.int({ description: 'Minutes before the start, 0–525600' }),
  }),
});
