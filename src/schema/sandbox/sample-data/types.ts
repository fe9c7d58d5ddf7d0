// The shape of a sample company's contents (docs/sandbox.md): declarative
// data that `seedSampleCompany` turns into rows. Employees and services refer to each other by
// a short key so the data reads like a staff sheet, not like a set of foreign keys.

import { WEEKDAYS, type Weekday, type WorkingHours } from '../../staff/index.js';
import type { WaitlistConfig } from '../../services/index.js';

export { WEEKDAYS, type Weekday, type WorkingHours };

export interface SampleEmployee {
  key: string;
  name: string;
  email: string;
  phone: string;
  /** An interval's locationId here is a key of the template's locations. */
  workingHours: WorkingHours;
}

export interface SampleService {
  key: string;
  name: string;
  description: string;
  kind: 'appointment' | 'class';
  durationMinutes: number;
  /** Minor units of the company's currency. */
  price: number;
  bufferBeforeMinutes: number;
  bufferAfterMinutes: number;
  requiresPayment: boolean;
  /** Keys of the employees who perform it (for a class: who may instruct it). */
  employees: string[];
  /** Keys of the resources every booking holds (docs/api.md, Rooms and equipment). */
  resources?: string[];
  /** Kinds of which every booking holds any one free resource. */
  resourceKinds?: Array<'room' | 'equipment'>;
  /** A class's waitlist (docs/api.md, Class waitlists); absent: none. */
  waitlist?: WaitlistConfig;
}

/** A room or piece of equipment. */
export interface SampleResource {
  key: string;
  name: string;
  kind: 'room' | 'equipment';
  /** Key of the location it is at. */
  location?: string;
}

/** A site of the company (docs/api.md, Locations). */
export interface SampleLocation {
  key: string;
  name: string;
  address: string;
  timeZone: string;
  phone?: string;
}

/** A class on the weekly timetable; sessions are generated for the coming weeks. */
export interface SampleClassSlot {
  service: string;
  instructor: string;
  weekday: Weekday;
  /** Local start time "HH:MM" in the company's zone; the duration is the service's. */
  start: string;
  capacity: number;
}

/** A recurring class (docs/api.md, Class schedules), created as a class schedule by the seed. */
export interface SampleClassSchedule {
  service: string;
  instructor: string;
  /** Local start time "HH:MM" in the company's zone. */
  start: string;
  rrule: string;
  capacity: number;
}

export interface SampleCustomer {
  name: string;
  email: string;
  phone: string;
  notes?: string;
}

/**
 * What a sample company has booked when it is made (docs/sandbox.md), booked after the seed
 * through the API's own use cases (../sample-bookings.ts). Customers are named by e-mail,
 * employees, services and locations by key; `inDays` is how many local days from today
 * (domain time) the first booking is at the earliest: it falls on the first day from then on
 * whose working hours hold it, at the start of the first interval long enough.
 */
export interface SampleBookings {
  /** One multi-service visit (docs/api.md, Visits): the services back to back, one employee. */
  visit?: { customer: string; employee: string; services: string[]; inDays: number };
  /** One booking series (docs/api.md, Booking series) at a location, e.g. weekly. */
  series?: { customer: string; employee: string; service: string; location: string; rrule: string; inDays: number };
  /**
   * One full class session with people waiting (docs/api.md, Class waitlists): the first
   * session of `service` from `inDays` on, its places taken by the first customers in order and
   * the rest on its waitlist, in order (positions 1..n).
   */
  fullClass?: { service: string; customers: string[]; inDays: number };
}

export interface SampleCompanyData {
  employees: SampleEmployee[];
  services: SampleService[];
  timetable: SampleClassSlot[];
  /** Recurring classes kept by class schedules (the sessions they generate are theirs, not the timetable's). */
  schedules?: SampleClassSchedule[];
  customers: SampleCustomer[];
  resources?: SampleResource[];
  locations?: SampleLocation[];
  bookings?: SampleBookings;
}

/** Builds a week from the days that differ from "closed". */
export function week(days: Partial<WorkingHours>): WorkingHours {
  return Object.fromEntries(WEEKDAYS.map((d) => [d, days[d] ?? []])) as WorkingHours;
}

/** One interval, "09:00-17:00" → { start, end }. */
export function hours(...ranges: string[]): { start: string; end: string }[] {
  return ranges.map((r) => {
    const [start, end] = r.split('-') as [string, string];
    return { start, end };
  });
}
