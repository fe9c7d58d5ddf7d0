// Customer manage links (docs/api.md, Manage links): every
// booking's `manageUrl` is BASE_URL/b/<token>, a signed token (src/crypto/manage-link-token.ts)
// bound to the booking, its mode and its link version. POST /bookings/:id/manage-link/rotate
// adds one to the version, so every earlier link of that booking stops working. A link opens
// its booking until 7 days after the booking ends; the page changes nothing once it started.
import type { Config } from '../../config.js';
import type { Databases, Db } from '../../db/databases.js';
import type { Booking, Company, Employee, Service } from '../../generated/prisma/client.js';
import type { Mode } from '../../generated/prisma/enums.js';
import { manageLinkKeys, signManageToken, verifyManageToken } from '../../crypto/manage-link-token.js';
import { findBooking } from '../find-records.js';
import { domainNow } from '../domain-time.js';

/** How long after its end a booking's link still opens it (docs/api.md, Manage links). */
export const MANAGE_LINK_LIFETIME_AFTER_END_MS = 7 * 24 * 60 * 60 * 1000;

/** The public origin links point at: BASE_URL, else the server's own address (development). */
export function publicOrigin(config: Config): string {
  return (
    config.BASE_URL ??
    `${config.TLS_CERT ? 'https' : 'http'}://${config.HOST === '0.0.0.0' ? 'localhost' : config.HOST}:${config.PORT}`
  );
}

export function manageToken(config: Config, mode: Mode, booking: Pick<Booking, 'id' | 'manageLinkVersion'>): string {
  return signManageToken(manageLinkKeys(config), {
    mode,
    bookingId: booking.id,
    version: booking.manageLinkVersion,
  });
}

export function manageUrl(config: Config, mode: Mode, booking: Pick<Booking, 'id' | 'manageLinkVersion'>): string {
  return `${publicOrigin(config)}/b/${manageToken(config, mode, booking)}`;
}

export interface ManagedBooking {
  mode: Mode;
  /** The database of the link's mode. */
  db: Db;
  booking: Booking & { service: Service; employee: Employee; company: Company };
  /** Whether the booking has started, after which the link changes nothing. */
  started: boolean;
  /** The company's domain time (its test clock's in the sandbox), from which pages count days. */
  now: Date;
}

/**
 * The booking a manage token opens, or null for a token that is malformed, signed with no
 * current key, of an earlier link version, or of a booking that ended more than 7 days ago
 * (the caller answers all of these the same way). A link's expiry is by the real time (it is
 * not domain time, docs/api.md, Manage links); whether the appointment has started is by the
 * company's domain time (docs/sandbox.md, Test clocks), like every cut-off.
 */
export async function openManageLink(
  dbs: Databases,
  config: Config,
  token: string,
  now?: Date,
): Promise<ManagedBooking | null> {
  const claims = verifyManageToken(manageLinkKeys(config), token);
  if (!claims) return null;
  const db = dbs.forMode(claims.mode);
  const booking = await db.booking.findUnique({
    where: { id: claims.bookingId },
    include: { service: true, employee: true, company: true, customer: { select: { erasedAt: true } } },
  });
  if (!booking || booking.manageLinkVersion !== claims.version) return null;
  // The erase moved the version of every link it knew; a link made later opens nothing either.
  if (booking.customer.erasedAt) return null;
  if ((now ?? new Date()).getTime() > booking.endTime.getTime() + MANAGE_LINK_LIFETIME_AFTER_END_MS) return null;
  const domain = now ?? (await domainNow(db, booking.companyId));
  return { mode: claims.mode, db, booking, started: domain.getTime() >= booking.startTime.getTime(), now: domain };
}

/** POST /bookings/:id/manage-link/rotate: the booking's earlier links stop working. */
export async function rotateManageLink(db: Db, opts: { companyId: string; bookingId: string }): Promise<Booking> {
  const booking = await findBooking(db, opts.companyId, opts.bookingId);
  return db.booking.update({ where: { id: booking.id }, data: { manageLinkVersion: { increment: 1 } } });
}
