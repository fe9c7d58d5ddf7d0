// The holds a booking (or class session) takes on the resources its service requires (docs/api.md,
// Rooms and equipment), written in the booking's own transaction right after its row: every
// resource of requiredResourceIds, and for each of requiredResourceKinds one free resource of
// that kind (shuffled, so concurrent bookings spread over the free ones; the next is tried
// when one is taken meanwhile). Each hold is one INSERT ... ON CONFLICT DO NOTHING checked by the
// `resource_holds_no_overlap` exclusion constraint: it waits for a concurrent transaction that
// holds an overlapping row and writes nothing if that one commits, so a lost race is an answer
// (409 SLOT_UNAVAILABLE, reason RESOURCE_BUSY with the resourceId) rather than an aborted
// transaction, and the database has the last word. The holds' `active` flag and times then
// follow the booking in the statement that changes it (triggers in the migration): a cancel,
// expiry or completion releases them.
import { sqlRows, type Transaction, type Tx } from '../../db/databases.js';
import { Prisma } from '../../generated/prisma/client.js';
import { AppError } from '../../errors.js';
import { newId } from '../../ids.js';
import { randomInt } from 'node:crypto';
import {
  busyReason,
  loadResourceSchedule,
  needsResources,
  resourceFree,
  type ResourceNeeds,
  type ResourceReason,
} from './resource-schedule.js';

export type HoldOwner = { bookingId: string } | { classSessionId: string };

const busy = (reasons: ResourceReason[]) =>
  new AppError('SLOT_UNAVAILABLE', 'A resource the service requires is busy at that time', {
    details: { reasons },
  });

async function tryHold(
  tx: Transaction,
  owner: HoldOwner,
  resourceId: string,
  blockStart: Date,
  blockEnd: Date,
): Promise<boolean> {
  const bookingId = 'bookingId' in owner ? owner.bookingId : null;
  const classSessionId = 'classSessionId' in owner ? owner.classSessionId : null;
  const written = await sqlRows<{ id: string }>(
    tx,
    Prisma.sql`
      INSERT INTO resource_holds (id, resource_id, booking_id, class_session_id, start_time, end_time, active)
      VALUES (${newId()}, ${resourceId}, ${bookingId}, ${classSessionId}, ${blockStart}, ${blockEnd}, true)
      ON CONFLICT DO NOTHING RETURNING id`,
  );
  return written.length === 1;
}

function shuffled<T>(list: T[]): T[] {
  const a = [...list];
  for (let i = a.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

/**
 * Inside the booking's (or session's) transaction, after its row is written: holds what `needs`
 * requires over [blockStart, blockEnd) (the appointment [start, end) inside the resources'
 * hours). Returns the ids held; throws SLOT_UNAVAILABLE with RESOURCE_BUSY reasons when a
 * required resource, or every resource of a required kind, is taken or closed.
 */
export async function holdResources(
  tx: Transaction,
  opts: {
    companyId: string;
    zone: string;
    needs: ResourceNeeds;
    owner: HoldOwner;
    start: Date;
    end: Date;
    blockStart: Date;
    blockEnd: Date;
    /** Where the booking takes place: a required kind is held at this location only. */
    locationId?: string | null;
  },
): Promise<string[]> {
  if (!needsResources(opts.needs)) return [];
  const start = opts.start.getTime();
  const end = opts.end.getTime();
  const bs = opts.blockStart.getTime();
  const be = opts.blockEnd.getTime();
  const rs = (await loadResourceSchedule(tx, {
    companyId: opts.companyId,
    zone: opts.zone,
    needs: opts.needs,
    from: start,
    to: end,
    margin: Math.max(start - bs, be - end),
    ignoreBookingId: 'bookingId' in opts.owner ? opts.owner.bookingId : undefined,
    locationId: opts.locationId,
  }))!;
  const held: string[] = [];
  // By id in id order, so two bookings needing the same resources wait on each other in one order.
  for (const r of [...rs.byId].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    if (!resourceFree(r, start, end, bs, be) || !(await tryHold(tx, opts.owner, r.id, opts.blockStart, opts.blockEnd)))
      throw busy([busyReason({ ...r, busy: [[bs, be]] }, start, end)]);
    held.push(r.id);
  }
  for (const k of rs.byKind) {
    let got: string | null = null;
    for (const r of shuffled(k.resources.filter((x) => !held.includes(x.id) && resourceFree(x, start, end, bs, be)))) {
      if (await tryHold(tx, opts.owner, r.id, opts.blockStart, opts.blockEnd)) {
        got = r.id;
        break;
      }
    }
    if (!got)
      throw busy([{ code: 'RESOURCE_BUSY', message: `No ${k.kind} is free at that time`, details: { kind: k.kind } }]);
    held.push(got);
  }
  return held;
}

/** Drops a booking's holds (a reschedule takes them again at the new time, in the same transaction). */
export async function releaseHolds(tx: Tx, owner: HoldOwner): Promise<void> {
  await tx.resourceHold.deleteMany({ where: owner });
}
