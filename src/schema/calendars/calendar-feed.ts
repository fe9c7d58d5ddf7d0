// BASE_URL/calendar/<token>.ics (docs/calendars.md): a secret-URL iCalendar feed of one
// employee's or the whole company's place-holding bookings (pending and confirmed) from 30 days
// back to 180 days ahead, each with the customer's name and the service, and the class sessions
// they teach. Notes only when the feed was made with includeNotes. The same UID as the
// booking's invitations, so a calendar holding both shows one entry. DTSTAMP is the row's last
// change, not the time of the request: the same bookings give the same bytes, so the ETag holds
// until something changes.
import { createHash } from 'node:crypto';
import ical, { ICalCalendarMethod, ICalEventStatus } from 'ical-generator';
import type { Config } from '../../config.js';
import { feedTokenHash, feedTokenMode } from '../../crypto/calendar-feed-token.js';
import type { Databases } from '../../db/databases.js';
import { deepFreeze } from '../../frozen.js';
import { publicOrigin } from '../core/index.js';
import { bookingUid, locationText, PRODUCT_ID, uidHostOf } from './booking-invitation.js';

const DAY_MS = 86_400_000;

/**
 * Rendered feeds, each under the digest of everything its bytes are made of (the rows in its
 * window and the names they show; `feedDigest`). The digest is computed by the database on
 * every request, so an entry can never be stale, on this instance or any other: a change to
 * any row the feed shows, or a row entering or leaving its window, gives a new digest and a
 * new render. Only the render is saved (most of a 5 000-event feed's cost). Bounded by bytes.
 */
const CACHE_BYTES = 64 * 1024 * 1024;
// eslint-disable-next-line no-restricted-syntax -- process state: rendered calendar feeds
const rendered = new Map<string, { digest: string; feed: RenderedFeed }>();
// eslint-disable-next-line no-restricted-syntax -- process state: rendered calendar feeds
let cachedBytes = 0;

function remember(key: string, digest: string, feed: RenderedFeed): void {
  const old = rendered.get(key);
  if (old) {
    cachedBytes -= old.feed.ics.length;
    rendered.delete(key);
  }
  if (feed.ics.length > CACHE_BYTES / 4) return;
  rendered.set(key, { digest, feed: deepFreeze(feed) });
  cachedBytes += feed.ics.length;
  // Oldest first out (a Map keeps insertion order; a hit re-inserts).
  for (const [id, entry] of rendered) {
    if (cachedBytes <= CACHE_BYTES) break;
    rendered.delete(id);
    cachedBytes -= entry.feed.ics.length;
  }
}
export const FEED_DAYS_BACK = 30;
export const FEED_DAYS_AHEAD = 180;

/**
 * RFC 5545 §3.1 line folding: a line longer than 75 octets goes on in continuation lines that
 * start with a space, never splitting a UTF-8 character. ical-generator folds the whole
 * calendar in Calendar.toString() with a TextEncoder made per character, which takes over a
 * second for 5 000 events; each event's lines are folded here instead, by the same rule
 * (74 octets to a segment), and whole lines of plain ASCII are passed through untouched.
 */
export function foldLines(text: string): string {
  const lines = text.split('\r\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const bytes = Buffer.byteLength(line);
    if (bytes <= 74) continue;
    if (bytes === line.length) {
      // Plain ASCII: one octet a character, so 74-character pieces.
      const pieces: string[] = [];
      for (let at = 0; at < line.length; at += 74) pieces.push(line.slice(at, at + 74));
      lines[i] = pieces.join('\r\n ');
      continue;
    }
    let out = '';
    let octets = 0;
    for (const ch of line) {
      const cp = ch.codePointAt(0)!;
      const size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
      octets += size;
      if (octets > 74) {
        out += '\r\n ';
        octets = size;
      }
      out += ch;
    }
    lines[i] = out;
  }
  return lines.join('\r\n');
}

export interface RenderedFeed {
  ics: string;
  /** A strong validator of exactly these bytes, quoted as an ETag header wants it. */
  etag: string;
  events: number;
}

/**
 * The feed a token opens, rendered; null for a token that is malformed, of the other mode,
 * rotated away, or never issued (the caller answers all of these with the same 404).
 */
export async function openCalendarFeed(
  dbs: Databases,
  config: Config,
  token: string,
  now: Date = new Date(),
): Promise<RenderedFeed | null> {
  const mode = feedTokenMode(token);
  if (!mode) return null;
  const db = dbs.forMode(mode);
  const feed = await db.calendarFeed.findUnique({
    where: { tokenHash: feedTokenHash(token) },
    include: { company: true, employee: true },
  });
  if (!feed) return null;
  const from = new Date(now.getTime() - FEED_DAYS_BACK * DAY_MS);
  const to = new Date(now.getTime() + FEED_DAYS_AHEAD * DAY_MS);
  // The digest of every input of the bytes below: the feed's own settings, the company's name
  // and address, and, in the database, each booking and session in the window with the fields
  // and names its event shows.
  const [rows] = await db.$queryRaw<Array<{ bookings: string | null; sessions: string | null }>>`
    SELECT
      (SELECT md5(string_agg(concat_ws('|', b.id, b.start_time, b.end_time, b.status, b.notes, b.calendar_sequence,
                                       b.updated_at, c.name, s.name, e.name, l.name, l.address), ',' ORDER BY b.id))
         FROM bookings b
         JOIN customers c ON c.id = b.customer_id
         JOIN services s ON s.id = b.service_id
         JOIN employees e ON e.id = b.employee_id
         LEFT JOIN locations l ON l.id = b.location_id
        WHERE b.company_id = ${feed.companyId}
          AND (${feed.employeeId}::text IS NULL OR b.employee_id = ${feed.employeeId})
          AND b.end_time > ${from} AND b.start_time < ${to}
          AND b.status IN ('pending', 'confirmed') AND b.class_session_id IS NULL) AS bookings,
      (SELECT md5(string_agg(concat_ws('|', cs.id, cs.start_time, cs.end_time, cs.capacity, cs.booked_count,
                                       cs.updated_at, s.name, e.name, l.name, l.address), ',' ORDER BY cs.id))
         FROM class_sessions cs
         JOIN services s ON s.id = cs.service_id
         JOIN employees e ON e.id = cs.employee_id
         LEFT JOIN locations l ON l.id = cs.location_id
        WHERE cs.company_id = ${feed.companyId}
          AND (${feed.employeeId}::text IS NULL OR cs.employee_id = ${feed.employeeId})
          AND cs.end_time > ${from} AND cs.start_time < ${to}
          AND cs.status = 'scheduled') AS sessions`;
  const digest = createHash('sha256')
    .update(
      JSON.stringify([
        rows?.bookings,
        rows?.sessions,
        feed.includeNotes,
        feed.employee?.name ?? null,
        feed.company.name,
        feed.company.address,
        publicOrigin(config),
      ]),
    )
    .digest('base64url');
  const key = `${mode}:${feed.companyId}:${feed.id}`;
  const hit = rendered.get(key);
  if (hit && hit.digest === digest) {
    rendered.delete(key);
    rendered.set(key, hit);
    return hit.feed;
  }
  const whose = feed.employeeId ? { employeeId: feed.employeeId } : {};
  const window = { endTime: { gt: from }, startTime: { lt: to } };
  const [bookings, sessions] = await Promise.all([
    db.booking.findMany({
      where: {
        companyId: feed.companyId,
        ...whose,
        ...window,
        // Place-holding bookings only; a class booking is shown by its session.
        status: { in: ['pending', 'confirmed'] },
        classSessionId: null,
      },
      orderBy: [{ startTime: 'asc' }, { id: 'asc' }],
      select: {
        id: true,
        startTime: true,
        endTime: true,
        status: true,
        notes: true,
        calendarSequence: true,
        updatedAt: true,
        customer: { select: { name: true } },
        service: { select: { name: true } },
        employee: { select: { name: true } },
        location: { select: { name: true, address: true } },
      },
    }),
    db.classSession.findMany({
      where: { companyId: feed.companyId, ...whose, ...window, status: 'scheduled' },
      orderBy: [{ startTime: 'asc' }, { id: 'asc' }],
      select: {
        id: true,
        startTime: true,
        endTime: true,
        capacity: true,
        bookedCount: true,
        updatedAt: true,
        service: { select: { name: true } },
        employee: { select: { name: true } },
        location: { select: { name: true, address: true } },
      },
    }),
  ]);
  const company = feed.company;
  const host = uidHostOf(publicOrigin(config));
  const cal = ical({
    prodId: PRODUCT_ID,
    method: ICalCalendarMethod.PUBLISH,
    name: feed.employee ? `${feed.employee.name} · ${company.name}` : company.name,
    timezone: null,
    // REFRESH-INTERVAL and X-PUBLISHED-TTL: how often a subscribed client should look again.
    ttl: 15 * 60,
  });
  // The calendar's own lines first, without events (see foldLines below for why).
  const shell = cal.toString();
  const head = shell.slice(0, shell.lastIndexOf('END:VCALENDAR'));
  const parts: string[] = [head];
  for (const b of bookings) {
    const withWhom = feed.employee ? '' : ` (${b.employee.name})`;
    const lines = [
      `Customer: ${b.customer.name}`,
      `Service: ${b.service.name}`,
      `Staff: ${b.employee.name}`,
      ...(b.status === 'pending' ? ['Awaiting payment'] : []),
      ...(feed.includeNotes && b.notes ? ['', `Notes: ${b.notes}`] : []),
      '',
      `Booking reference: ${b.id}`,
    ];
    const event = cal.createEvent({
      id: bookingUid(b.id, host),
      sequence: b.calendarSequence,
      stamp: b.updatedAt,
      lastModified: b.updatedAt,
      start: b.startTime,
      end: b.endTime,
      summary: `${b.customer.name} – ${b.service.name}${withWhom}`,
      description: lines.join('\n'),
      // Where it takes place (docs/api.md, Locations): its location, else the company's address.
      location: locationText(b.location, company.address),
      status: b.status === 'pending' ? ICalEventStatus.TENTATIVE : ICalEventStatus.CONFIRMED,
    });
    parts.push(foldLines(event.toString()));
  }
  for (const s of sessions) {
    const event = cal.createEvent({
      id: `class-${s.id}@${host}`,
      stamp: s.updatedAt,
      lastModified: s.updatedAt,
      start: s.startTime,
      end: s.endTime,
      summary: `${s.service.name} (class, ${s.bookedCount}/${s.capacity} booked)${feed.employee ? '' : ` (${s.employee.name})`}`,
      description: `Class: ${s.service.name}\nInstructor: ${s.employee.name}\nBooked: ${s.bookedCount} of ${s.capacity}\n\nSession reference: ${s.id}`,
      location: locationText(s.location, company.address),
      status: ICalEventStatus.CONFIRMED,
    });
    parts.push(foldLines(event.toString()));
  }
  parts.push('END:VCALENDAR');
  const ics = parts.join('');
  const etag = `"${createHash('sha256').update(ics).digest('base64url').slice(0, 32)}"`;
  const result = { ics, etag, events: bookings.length + sessions.length };
  remember(key, digest, result);
  return result;
}
