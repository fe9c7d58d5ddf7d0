// Reading the class timetable for the admin area: the sessions of a span, and one session's
// roster (the places taken, in the order they were booked) and waitlist (offered first, then
// the line in its order).
import type { Db } from '../../db/databases.js';
import type { BookingStatus } from '../../generated/prisma/client.js';
import { AppError } from '../../errors.js';
import { isId } from '../../ids.js';

const names = { service: { select: { id: true, name: true } }, employee: { select: { id: true, name: true } } };

/** The sessions of a company starting in [from, to), scheduled and cancelled, by start (at most 500). */
export async function listClassSessionsBetween(db: Db, opts: { companyId: string; from: Date; to: Date }) {
  return db.classSession.findMany({
    where: { companyId: opts.companyId, startTime: { gte: opts.from, lt: opts.to } },
    orderBy: [{ startTime: 'asc' }, { id: 'asc' }],
    include: names,
    take: 500,
  });
}

const PLACE: BookingStatus[] = ['pending', 'confirmed', 'completed', 'no_show'];
const LINE: BookingStatus[] = ['offered', 'waitlisted'];

/** One session with its service and instructor, its places taken in booking order, and its waitlist. */
export async function classRoster(db: Db, opts: { companyId: string; classId: string }) {
  const session = isId(opts.classId)
    ? await db.classSession.findFirst({ where: { id: opts.classId, companyId: opts.companyId }, include: names })
    : null;
  if (!session) throw AppError.notFound('class session');
  const bookings = await db.booking.findMany({
    where: { companyId: opts.companyId, classSessionId: session.id, status: { in: [...PLACE, ...LINE] } },
    include: { customer: { select: { id: true, name: true, email: true } } },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
  const places = bookings.filter((b) => PLACE.includes(b.status));
  const waitlist = bookings
    .filter((b) => LINE.includes(b.status))
    .sort(
      (a, b) =>
        (a.status === 'offered' ? 0 : 1) - (b.status === 'offered' ? 0 : 1) ||
        (a.waitlistPosition ?? 0) - (b.waitlistPosition ?? 0),
    );
  /** Who a cancellation tells: every booking holding or waiting for a place. */
  const live = bookings.filter((b) => ['pending', 'confirmed', 'offered', 'waitlisted'].includes(b.status)).length;
  return { session, places, waitlist, live };
}
