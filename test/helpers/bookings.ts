// Bookings made the way the API makes them: through createEmployee, createService and
// createBooking, the use cases behind POST /employees, /services and /bookings. So a test's
// booking meets the database's constraints, writes booking.created (and customer.created) to
// the outbox, and finds or creates its customer by e-mail, exactly as a client's would. Each
// booking gets an employee (working all day, every day) and a service of its own, so the
// bookings of one test never compete for a slot.
import { randomInt } from 'node:crypto';
import type { Db } from '../../src/db/databases.js';
import type { Company } from '../../src/generated/prisma/client.js';
import { createBooking } from '../../src/schema/bookings/create-booking.js';
import { createEmployee } from '../../src/schema/staff/create-employee.js';
import { findCustomer } from '../../src/schema/find-records.js';
import { createService } from '../../src/schema/services/manage-services.js';
import { transitionBooking } from '../../src/schema/bookings/transition-booking.js';
import { ALL_DAY } from './domain.js';
import { unique } from './factories.js';

export interface BookingOptions {
  /** A service that requires payment makes a pending booking (the default); otherwise it is confirmed at once. */
  requiresPayment?: boolean;
  price?: number;
  /** Default: a whole hour between 08:00 and 16:00 UTC, one to a hundred weeks ahead. */
  startTime?: Date;
  customerName?: string;
  /**
   * The use case's clock (its `now`, as a test clock would set it): a pending booking made
   * 16 minutes ago has a 15-minute hold that ended a minute ago.
   */
  bookedAt?: Date;
}

function someFutureHour(): Date {
  const d = new Date(Date.now() + randomInt(7, 360) * 86_400_000);
  d.setUTCHours(randomInt(8, 16), 0, 0, 0);
  return d;
}

export async function bookThroughUseCase(db: Db, company: Company, o: BookingOptions = {}) {
  const employee = await createEmployee(db, {
    companyId: company.id,
    input: { name: `Alex ${unique()}`, workingHours: ALL_DAY },
  });
  const service = await createService(db, {
    companyId: company.id,
    input: {
      name: 'Haircut & Style',
      durationMinutes: 60,
      price: o.price ?? 4500,
      requiresPayment: o.requiresPayment ?? true,
      employeeIds: [employee.id],
    },
  });
  const booking = await createBooking(db, {
    company,
    input: {
      serviceId: service.id,
      employeeId: employee.id,
      startTime: (o.startTime ?? someFutureHour()).toISOString(),
      customer: { name: o.customerName ?? 'Dana Customer', email: `dana-${unique()}@example.com` },
    },
    now: o.bookedAt,
  });
  const customer = await findCustomer(db, company.id, booking.customerId);
  return { booking, employee, service, customer };
}

/** A booking cancelled by the business after it was made (POST /bookings/:id/cancel). */
export async function cancelledBooking(db: Db, company: Company, o: BookingOptions & { reason?: string } = {}) {
  const made = await bookThroughUseCase(db, company, o);
  const booking = await transitionBooking(db, {
    companyId: company.id,
    bookingId: made.booking.id,
    action: 'cancel',
    input: o.reason ? { reason: o.reason } : {},
  });
  return { ...made, booking };
}

/** A pending booking booked `minutes` ago by the use case's clock, so its hold ran out `minutes - 15` ago. */
export const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);
