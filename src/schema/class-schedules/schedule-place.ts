// Where a class schedule's sessions take place (docs/api.md, Class schedules and Locations): an
// optional location of the company, whose zone the schedule's times are then in, and resources
// each session holds besides those its service requires. Checked before anything is written:
// an id that is not the company's (another company's included) is 404 naming the field; a
// resource at another location than the schedule's is 400 naming its index. A one-off class
// session (classes/) is placed by the same rule, its 404 naming the resource's index too.
import type { Db, Tx } from '../../db/databases.js';
import { AppError } from '../../errors.js';

type Client = Db | Tx;

export interface SchedulePlace {
  locationId: string | null;
  resourceIds: string[];
  /** The zone the schedule's local times are in: the location's, else the company's. */
  zone: string;
}

export async function resolvePlace(
  db: Client,
  opts: {
    companyId: string;
    companyZone: string;
    locationId: string | null;
    resourceIds: string[];
    /** What is placed, for the messages (default "class schedule"). */
    what?: string;
    /** Name an unknown resource by its index (`resourceIds.<i>`) rather than by the list. */
    indexed?: boolean;
  },
): Promise<SchedulePlace> {
  const what = opts.what ?? 'class schedule';
  const location = opts.locationId
    ? await db.location.findFirst({ where: { id: opts.locationId, companyId: opts.companyId } })
    : null;
  if (opts.locationId && !location)
    throw new AppError('NOT_FOUND', `No such location: ${opts.locationId}`, {
      details: { field: 'locationId', id: opts.locationId },
    });
  if (opts.resourceIds.length > 0) {
    const rows = await db.resource.findMany({
      where: { companyId: opts.companyId, id: { in: opts.resourceIds } },
      select: { id: true, locationId: true },
    });
    const byId = new Map(rows.map((r) => [r.id, r]));
    const gone = opts.resourceIds.findIndex((i) => !byId.has(i));
    if (gone >= 0) {
      const missing = opts.resourceIds[gone]!;
      throw new AppError('NOT_FOUND', `No such resource: ${missing}`, {
        details: { field: opts.indexed ? `resourceIds.${gone}` : 'resourceIds', id: missing },
      });
    }
    const misplaced = opts.resourceIds.flatMap((rid, i) => {
      const at = byId.get(rid)!.locationId;
      // A resource without a location may serve anywhere; one at a site serves that site only.
      if (at === null || at === (opts.locationId ?? null)) return [];
      return [
        {
          path: `resourceIds.${i}`,
          message: opts.locationId
            ? `is at another location (${at}) than the ${what}`
            : `is at location ${at}; give the ${what} that locationId`,
        },
      ];
    });
    if (misplaced.length) throw AppError.validation(misplaced);
  }
  return {
    locationId: location?.id ?? null,
    resourceIds: opts.resourceIds,
    zone: location?.timeZone ?? opts.companyZone,
  };
}

/** The zone of a stored schedule: its location's when it has one, else the company's. */
export async function scheduleZone(
  db: Client,
  schedule: { locationId: string | null },
  companyZone: string,
): Promise<string> {
  if (!schedule.locationId) return companyZone;
  const l = await db.location.findUnique({ where: { id: schedule.locationId }, select: { timeZone: true } });
  return l?.timeZone ?? companyZone;
}
