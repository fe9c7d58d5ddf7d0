// When the resources a service requires are free (docs/api.md, Rooms and equipment): each
// required resource inside its weekly hours for the appointment (null hours: always) and with
// the booking's block (buffers included) clear of every active hold, exactly what the
// `resource_holds_no_overlap` exclusion constraint enforces; for a required kind, at least one
// resource of that kind so. The schedule is loaded once per request (the resources in one query,
// all their holds in the window in one more) and asked per start with a few binary searches, as
// the employee rule of src/schema/availability/refusals.ts is.
import { sqlRows, type Queryable } from '../../db/databases.js';
import { Prisma, type ResourceKind } from '../../generated/prisma/client.js';
import { localDays, localIntervals, mergeIntervals, readWorkingHours, type Interval } from '../staff/index.js';

type Client = Queryable;

/** What a service requires (the columns of services). */
export interface ResourceNeeds {
  requiredResourceIds: string[];
  requiredResourceKinds: ResourceKind[];
}

export const needsResources = (s: ResourceNeeds) =>
  s.requiredResourceIds.length > 0 || s.requiredResourceKinds.length > 0;

export interface ResourceTimes {
  id: string;
  name: string;
  kind: ResourceKind;
  /** Sorted, merged: when it is available; null: always. */
  open: Interval[] | null;
  /** Sorted, merged: its active holds. */
  busy: Interval[];
}

export interface ResourceSchedule {
  /** The resources required by id, in the order the service lists them. */
  byId: ResourceTimes[];
  /** Per required kind, its resources (id order). */
  byKind: Array<{ kind: ResourceKind; resources: ResourceTimes[] }>;
}

/** A refusal for a resource (a Reason of availability/refusals.ts, with resourceId). */
export interface ResourceReason {
  code: 'RESOURCE_BUSY';
  message: string;
  resourceId?: string;
  details?: Record<string, unknown>;
}

const MINUTE = 60_000;

function lastStartingBy(list: Interval[], at: number): number {
  let lo = 0;
  let hi = list.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]![0] <= at) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}
const inside = (list: Interval[], a: number, b: number) => {
  const i = lastStartingBy(list, a);
  return i >= 0 && b <= list[i]![1];
};
const overlaps = (list: Interval[], a: number, b: number) => {
  const i = lastStartingBy(list, b - 1);
  return i >= 0 && list[i]![1] > a;
};

/** Whether resource `r` can be held for the appointment [start, end) with block [bs, be). */
export function resourceFree(r: ResourceTimes, start: number, end: number, bs: number, be: number): boolean {
  return (r.open === null || inside(r.open, start, end)) && !overlaps(r.busy, bs, be);
}

/**
 * The resources a service needs and their holds around [from, to) (widened by `margin`), or null
 * when it needs none. Two queries whatever the window; a resource id of the service that no
 * longer exists counts as never free.
 */
export async function loadResourceSchedule(
  db: Client,
  opts: {
    companyId: string;
    zone: string;
    needs: ResourceNeeds;
    from: number;
    to: number;
    margin: number;
    /** Bookings to leave out (the ones being moved). */
    ignoreBookingId?: string | string[];
    /** Where the booking takes place: a required kind is then met by a resource there only. */
    locationId?: string | null;
  },
): Promise<ResourceSchedule | null> {
  const { needs } = opts;
  if (!needsResources(needs)) return null;
  // The required resources, and those of a required kind (at the location, when one is given),
  // with their location's zone. SQL, so that it runs in either kind of transaction.
  const resources = await sqlRows<{
    id: string;
    name: string;
    kind: ResourceKind;
    workingHours: unknown;
    locationId: string | null;
    zone: string | null;
  }>(
    db,
    Prisma.sql`
      SELECT r.id, r.name, r.kind::text AS kind, r.working_hours AS "workingHours", r.location_id AS "locationId",
             l.time_zone AS zone
      FROM resources r LEFT JOIN locations l ON l.id = r.location_id
      WHERE r.company_id = ${opts.companyId}
        AND (r.id = ANY(${needs.requiredResourceIds}::text[])
             OR (r.kind::text = ANY(${needs.requiredResourceKinds}::text[])
                 AND (${opts.locationId ?? null}::text IS NULL OR r.location_id = ${opts.locationId ?? null})))
      ORDER BY r.id`,
  );
  const lo = new Date(opts.from - opts.margin);
  const hi = new Date(opts.to + opts.margin);
  const ignored = opts.ignoreBookingId === undefined ? [] : [opts.ignoreBookingId].flat();
  const holds = resources.length
    ? await sqlRows<{ resourceId: string; startTime: Date; endTime: Date }>(
        db,
        Prisma.sql`
          SELECT resource_id AS "resourceId", start_time AS "startTime", end_time AS "endTime"
          FROM resource_holds
          WHERE resource_id = ANY(${resources.map((r) => r.id)}::text[]) AND active
            AND start_time < ${hi} AND end_time > ${lo}
            AND (booking_id IS NULL OR booking_id <> ALL(${ignored}::text[]))`,
      )
    : [];
  const busy = new Map<string, Interval[]>();
  for (const h of holds) {
    const list = busy.get(h.resourceId) ?? [];
    list.push([h.startTime.getTime(), h.endTime.getTime()]);
    busy.set(h.resourceId, list);
  }
  // A resource at a location keeps the hours of the location's zone (docs/api.md, Locations).
  const daysIn = new Map<string, ReturnType<typeof localDays>>();
  const days = (zone: string) => {
    let d = daysIn.get(zone);
    if (!d) daysIn.set(zone, (d = localDays(zone, opts.from - 86_400_000, opts.to + 86_400_000)));
    return d;
  };
  const times = new Map<string, ResourceTimes>(
    resources.map((r) => [
      r.id,
      {
        id: r.id,
        name: r.name,
        kind: r.kind,
        open:
          r.workingHours === null
            ? null
            : mergeIntervals(localIntervals(readWorkingHours(r.workingHours), days(r.zone ?? opts.zone))),
        busy: mergeIntervals((busy.get(r.id) ?? []).sort((a, b) => a[0] - b[0])),
      },
    ]),
  );
  const gone = (id: string): ResourceTimes => ({ id, name: id, kind: 'room', open: [], busy: [] });
  return {
    byId: needs.requiredResourceIds.map((id) => times.get(id) ?? gone(id)),
    byKind: needs.requiredResourceKinds.map((kind) => ({
      kind,
      resources: resources
        .filter((r) => r.kind === kind && (!opts.locationId || r.locationId === opts.locationId))
        .map((r) => times.get(r.id)!),
    })),
  };
}

/** The block [bs, be) and appointment [start, end) of a start under a timing. */
export function spans(
  start: number,
  t: { durationMinutes: number; bufferBeforeMinutes: number; bufferAfterMinutes: number },
) {
  const end = start + t.durationMinutes * MINUTE;
  return { start, end, bs: start - t.bufferBeforeMinutes * MINUTE, be: end + t.bufferAfterMinutes * MINUTE };
}

/** Every reason the required resources cannot be held for a booking starting at `start`; empty when they can. */
export function resourceRefusals(
  rs: ResourceSchedule,
  start: number,
  t: { durationMinutes: number; bufferBeforeMinutes: number; bufferAfterMinutes: number },
): ResourceReason[] {
  const { end, bs, be } = spans(start, t);
  let out: ResourceReason[] | null = null;
  for (const r of rs.byId) {
    if (resourceFree(r, start, end, bs, be)) continue;
    (out ??= []).push(busyReason(r, start, end));
  }
  for (const k of rs.byKind) {
    if (k.resources.some((r) => resourceFree(r, start, end, bs, be))) continue;
    (out ??= []).push({
      code: 'RESOURCE_BUSY',
      message: `No ${k.kind} is free at that time`,
      details: { kind: k.kind },
    });
  }
  return out ?? [];
}

export function busyReason(r: ResourceTimes, start: number, end: number): ResourceReason {
  const closed = r.open !== null && !inside(r.open, start, end);
  return {
    code: 'RESOURCE_BUSY',
    message: closed
      ? `${r.name} is not available at that time (outside its hours)`
      : `${r.name} is booked at that time`,
    resourceId: r.id,
    ...(closed ? { details: { outsideHours: true } } : {}),
  };
}
