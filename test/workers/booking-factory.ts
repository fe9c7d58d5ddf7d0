// Bookings written straight through Prisma with the schema's own rules (the booking use cases
// are another branch's; the payments and e-mail workers only need the rows).
import type { Db } from '../../src/db/databases.js';
import { newId } from '../../src/ids.js';
import { unique } from '../helpers/factories.js';

export async function createBooking(
  db: Db,
  o: { companyId: string; status?: 'pending' | 'confirmed' | 'cancelled'; price?: number; currency?: string; startTime?: Date; holdExpiresAt?: Date | null; customerName?: string },
) {
  const employee = await db.employee.create({ data: { id: newId(), companyId: o.companyId, name: `Alex ${unique()}`, workingHours: {} } });
  const service = await db.service.create({
    data: { id: newId(), companyId: o.companyId, name: 'Haircut & Style', durationMinutes: 60, price: o.price ?? 4500, requiresPayment: (o.price ?? 4500) > 0 },
  });
  const customer = await db.customer.create({
    data: { id: newId(), companyId: o.companyId, name: o.customerName ?? 'Dana Customer', email: `dana-${unique()}@example.com` },
  });
  const startTime = o.startTime ?? new Date(Date.now() + 7 * 86400_000 + Math.floor(Math.random() * 1e6) * 60_000);
  const endTime = new Date(startTime.getTime() + 3600_000);
  const status = o.status ?? 'pending';
  const booking = await db.booking.create({
    data: {
      id: newId(),
      companyId: o.companyId,
      serviceId: service.id,
      employeeId: employee.id,
      customerId: customer.id,
      startTime,
      endTime,
      blockStart: startTime,
      blockEnd: endTime,
      status,
      price: o.price ?? 4500,
      currency: o.currency ?? 'EUR',
      holdExpiresAt: status === 'pending' ? (o.holdExpiresAt === undefined ? new Date(Date.now() + 15 * 60_000) : o.holdExpiresAt) : null,
    },
  });
  return { booking, employee, service, customer };
}
