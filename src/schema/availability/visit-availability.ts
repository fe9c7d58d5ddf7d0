// GET /availability?serviceIds=a,b (docs/api.md, Visits): the starts at which a whole visit
// fits, its services back to back as POST /visits books them. It reuses the availability
// engine: the free starts of the first service (freeSlots, the grid and the one rule of
// src/schema/availability/refusals.ts), each then asked of the rule for every later item at its
// offset in the sequence, with that item's own employees, schedules and booking rules. Each
// service's schedules are loaded once for the whole window, so a month costs one load per
// service plus the rule's binary searches per start.
import type { Db } from '../../db/databases.js';
import type { Company } from '../../generated/prisma/client.js';
import { AppError } from '../../errors.js';
import { policyFor } from './explain-availability.js';
import { refusals } from './refusals.js';
import { freeSlots, loadSchedules, type Slot } from './schedule.js';
import { loadResourceSchedule, resourceRefusals } from '../resources/index.js';
import { laterItemPolicy, loadVisitServices, MAX_VISIT_ITEMS, sequenceStarts } from './visit-sequence.js';

export interface VisitSlotItem {
  serviceId: string;
  startTime: Date;
  endTime: Date;
  employeeIds: string[];
}

/** A start of a whole visit: the first item's free employees, and every item's times and employees. */
export interface VisitSlot extends Slot {
  items: VisitSlotItem[];
}

export async function findVisitAvailability(
  db: Db,
  opts: { company: Company; serviceIds: string[]; employeeId?: string | null; from: number; to: number; now: number },
): Promise<VisitSlot[]> {
  if (opts.serviceIds.length > MAX_VISIT_ITEMS)
    throw AppError.validation([{ path: 'serviceIds', message: `must name at most ${MAX_VISIT_ITEMS} services` }]);
  const loaded = await loadVisitServices(
    db,
    opts.company.id,
    opts.serviceIds.map((serviceId) => ({ serviceId })),
    'serviceIds',
  );
  if (opts.from >= opts.to) return [];
  const services = loaded.map((l) => l.service);
  const offsets = sequenceStarts(services, 0);
  const last = services.length - 1;
  const span = offsets[last]! + services[last]!.durationMinutes * 60_000;
  const items = await Promise.all(
    services.map(async (service, i) => {
      const qualified = service.employees.map((e) => e.employeeId);
      const ids = opts.employeeId ? qualified.filter((id) => id === opts.employeeId) : qualified;
      const employees = await db.employee.findMany({
        where: { companyId: opts.company.id, active: true, id: { in: ids } },
        select: { id: true, workingHours: true },
        orderBy: { id: 'asc' },
      });
      const base = policyFor(opts.company, service, opts.now);
      const policy = i === 0 ? base : laterItemPolicy(base);
      const window = {
        from: opts.from + offsets[i]!,
        to: opts.to + offsets[i]!,
        margin: (service.bufferBeforeMinutes + service.bufferAfterMinutes + service.durationMinutes) * 60_000,
      };
      const [schedules, resources] = await Promise.all([
        loadSchedules(db, {
          companyId: opts.company.id,
          zone: opts.company.timezone,
          employees,
          ...window,
          countServiceId: policy.rules.dailyLimitPerEmployee !== null ? service.id : undefined,
        }),
        // The rooms and equipment the item requires (src/schema/resources/), with their holds.
        loadResourceSchedule(db, {
          companyId: opts.company.id,
          zone: opts.company.timezone,
          needs: service,
          ...window,
        }),
      ]);
      return { service, policy, schedules, resources, offset: offsets[i]! };
    }),
  );
  const [first, ...rest] = items;
  const out: VisitSlot[] = [];
  for (const slot of freeSlots(first!.schedules, first!.service, opts.from, opts.to, first!.policy, first!.resources)) {
    const start = slot.startTime.getTime();
    const later: VisitSlotItem[] = [];
    for (const it of rest) {
      const at = start + it.offset;
      if (it.resources && resourceRefusals(it.resources, at, it.service).length > 0) break;
      const free = it.schedules
        .filter((s) => refusals(s, at, it.service, it.policy).length === 0)
        .map((s) => s.employeeId);
      if (free.length === 0) break;
      later.push({
        serviceId: it.service.id,
        startTime: new Date(at),
        endTime: new Date(at + it.service.durationMinutes * 60_000),
        employeeIds: free,
      });
    }
    if (later.length < rest.length) continue;
    out.push({
      startTime: slot.startTime,
      endTime: new Date(start + span),
      employeeIds: slot.employeeIds,
      items: [
        {
          serviceId: first!.service.id,
          startTime: slot.startTime,
          endTime: slot.endTime,
          employeeIds: slot.employeeIds,
        },
        ...later,
      ],
    });
  }
  return out;
}
