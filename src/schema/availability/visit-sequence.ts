// The sequence of a visit (docs/api.md, Visits): its services, loaded and checked, and the
// starts of its items back to back. Shared by POST /visits (src/schema/visits/create-visit.ts)
// and GET /availability?serviceIds=… (visit-availability.ts).
import type { Db } from '../../db/databases.js';
import { AppError, isAppError } from '../../errors.js';
import { findEmployee, findService } from '../find-records.js';
import type { Policy } from './refusals.js';

/** The most services one visit may hold (docs/api.md, Visits). */
export const MAX_VISIT_ITEMS = 10;

/** The rule of a visit's later items: their start follows the sequence, not the slot grid. */
export function laterItemPolicy(p: Policy): Policy {
  return { ...p, rules: { ...p.rules, slotIntervalMinutes: null } };
}

export type VisitService = Awaited<ReturnType<typeof findService>>;

/**
 * The starts of services done back to back from `start`: each follows the previous one's end,
 * its buffer after and this one's buffer before (docs/api.md, Visits).
 */
export function sequenceStarts(
  services: Array<{ durationMinutes: number; bufferBeforeMinutes: number; bufferAfterMinutes: number }>,
  start: number,
): number[] {
  const starts: number[] = [];
  let at = start;
  services.forEach((s, i) => {
    if (i > 0) at += s.bufferBeforeMinutes * 60_000;
    starts.push(at);
    at += (s.durationMinutes + s.bufferAfterMinutes) * 60_000;
  });
  return starts;
}

/** NOT_FOUND naming the field, for an id of another company or none at all. */
export async function foundAt<T>(path: string, what: string, find: () => Promise<T>): Promise<T> {
  try {
    return await find();
  } catch (err) {
    if (isAppError(err) && err.code === 'NOT_FOUND')
      throw new AppError('NOT_FOUND', `No such ${what} (${path})`, {
        details: [{ path, message: `no such ${what}` }],
      });
    throw err;
  }
}

/** The services of a visit's items, each an active appointment service, and the employees named. */
export async function loadVisitServices(
  db: Db,
  companyId: string,
  items: Array<{ serviceId: string; employeeId?: string | null }>,
  /** The field that lists the services: `items` (POST /visits) or `serviceIds` (/availability). */
  field: 'items' | 'serviceIds' = 'items',
): Promise<Array<{ service: VisitService; employeeId?: string }>> {
  const out: Array<{ service: VisitService; employeeId?: string }> = [];
  for (const [i, it] of items.entries()) {
    const path = `${field}.${i}`;
    const servicePath = field === 'items' ? `${path}.serviceId` : path;
    const service = await foundAt(servicePath, 'service', () => findService(db, companyId, it.serviceId));
    if (service.kind !== 'appointment')
      throw AppError.validation([
        { path: servicePath, message: 'is a class service; a visit holds appointment services' },
      ]);
    if (!service.active) throw AppError.validation([{ path: servicePath, message: 'is deactivated' }]);
    if (it.employeeId) {
      const e = await foundAt(`${path}.employeeId`, 'employee', () => findEmployee(db, companyId, it.employeeId));
      if (!service.employees.some((x) => x.employeeId === e.id))
        throw AppError.validation([{ path: `${path}.employeeId`, message: 'does not perform this service' }]);
      if (!e.active) throw AppError.validation([{ path: `${path}.employeeId`, message: 'is deactivated' }]);
    }
    out.push({ service, employeeId: it.employeeId ?? undefined });
  }
  return out;
}
