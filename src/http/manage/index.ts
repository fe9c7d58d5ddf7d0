// The customer's manage link, BASE_URL/b/<token> (docs/manage-links.md, docs/api.md Manage
// links): an encapsulated plugin registered by src/app.ts at /b. No login: the signed token is
// the credential, so every answer is no-store, no-referrer and noindex, and a link that opens
// nothing is one 404 page whatever the reason. Each change calls the same use case as the API
// (cancelBooking with cancelledBy customer, rescheduleBooking with rescheduledBy customer, the
// customer's cancellation quote, findAvailability), and every refusal is this page again with
// a message, never an error envelope.
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DateTime } from 'luxon';
import { sendPage } from '../../auth/pages/html.js';
import { stringFieldsOf } from '../../auth/pages/request-fields.js';
import { AppError, isAppError, toAppError } from '../../errors.js';
import { findAvailability } from '../../schema/availability/index.js';
import { acceptOffer, cancelBooking, quoteCancellation, rescheduleBooking } from '../../schema/bookings/index.js';
import { openManageLink, publicOrigin, type ManagedBooking } from '../../schema/core/index.js';
import type { Services } from '../../services.js';
import { MANAGE_CSP, messagePage, notFoundPage, formatInstant, type Notice } from './pages.js';
import { bookingView, cancelView, linkPath, permitted, rescheduleView, type DaySlots } from './views.js';

/** Days the reschedule picker shows per page. */
export const DAYS_PER_PAGE = 3;
/** How far ahead the picker pages (the booking rules may allow less; availability decides). */
const MAX_DAYS_AHEAD = 365;

const DONE: Record<string, Notice> = {
  cancelled: { kind: 'ok', text: 'Your booking is cancelled.' },
  rescheduled: { kind: 'ok', text: 'Your booking has moved to the new time.' },
  accepted: { kind: 'ok', text: 'The place is yours.' },
};

function send(reply: FastifyReply, status: number, html: string): FastifyReply {
  reply.header('x-robots-tag', 'noindex, nofollow');
  return sendPage(reply, status, html, { csp: MANAGE_CSP, referrerPolicy: 'no-referrer' });
}

/**
 * A form post from another site: refused. Browsers send Sec-Fetch-Site with every request;
 * these pages' no-referrer policy makes a browser's Origin on a form post "null", so Origin
 * decides only for a browser that sends no Sec-Fetch-Site. A page elsewhere that knows a link
 * could otherwise make its visitor's browser post to it.
 */
function crossSite(req: FastifyRequest, services: Services): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined) return site !== 'same-origin' && site !== 'none';
  const origin = req.headers.origin;
  if (origin === undefined || origin === 'null') return false;
  return origin !== publicOrigin(services.config) && origin !== `${req.protocol}://${req.host}`;
}

/** The words of a refusal from a use case, for the customer. */
function refusal(err: AppError, m: ManagedBooking): Notice {
  const zone = m.booking.company.timezone;
  switch (err.code) {
    case 'CUTOFF_PASSED': {
      const deadline = (err.details as { deadline?: string } | undefined)?.deadline;
      return {
        kind: 'error',
        text: `It is too late to do this online${deadline ? `: the deadline was ${formatInstant(new Date(deadline), zone)}` : ''}. Please contact ${m.booking.company.name}.`,
      };
    }
    case 'SLOT_UNAVAILABLE':
      return { kind: 'error', text: 'That time is no longer free. Please choose another time.' };
    case 'CONFLICT':
      return {
        kind: 'error',
        text: 'The cancellation terms have changed since the page was loaded. Please check them and confirm again.',
      };
    case 'INVALID_STATE_TRANSITION':
      return { kind: 'error', text: 'This booking can no longer be changed online.' };
    case 'VALIDATION_ERROR':
      return { kind: 'error', text: 'Please choose one of the times shown.' };
    default:
      return { kind: 'error', text: 'That did not work. Please try again.' };
  }
}

/** The first local day of a picker page: `from` when it is a real date from today on, else today. */
function pageStart(from: string | undefined, zone: string, now: Date): { start: DateTime; bad: boolean } {
  const today = DateTime.fromJSDate(now, { zone }).startOf('day');
  if (from === undefined || from === '') return { start: today, bad: false };
  const d = /^\d{4}-\d{2}-\d{2}$/.test(from) ? DateTime.fromISO(from, { zone }) : null;
  if (!d?.isValid) return { start: today, bad: true };
  const last = today.plus({ days: MAX_DAYS_AHEAD - DAYS_PER_PAGE });
  return { start: d < today ? today : d > last ? last : d, bad: false };
}

async function pickerDays(m: ManagedBooking, start: DateTime): Promise<DaySlots[]> {
  const b = m.booking;
  const end = start.plus({ days: DAYS_PER_PAGE });
  const days: DaySlots[] = Array.from({ length: DAYS_PER_PAGE }, (_, i) => ({
    date: start.plus({ days: i }).toISODate()!,
    starts: [],
  }));
  const found = await findAvailability(m.db, {
    company: b.company,
    input: {
      serviceId: b.serviceId,
      from: start.toUTC().toISO(),
      to: end.toUTC().toISO(),
      employeeId: b.employeeId,
      // An occurrence of a booking series is rescheduled at its site only (docs/api.md, Booking series).
      ...(b.seriesId && b.locationId ? { locationId: b.locationId } : {}),
    },
  });
  if (found.kind !== 'appointment') return days;
  for (const slot of found.slots) {
    const date = DateTime.fromJSDate(slot.startTime, { zone: b.company.timezone }).toISODate();
    days.find((d) => d.date === date)?.starts.push(slot.startTime);
  }
  return days;
}

async function renderPicker(
  reply: FastifyReply,
  token: string,
  m: ManagedBooking,
  o: { from?: string; notice?: Notice | null; status?: number },
): Promise<FastifyReply> {
  const zone = m.booking.company.timezone;
  const now = m.now;
  const { start, bad } = pageStart(o.from, zone, now);
  const today = DateTime.fromJSDate(now, { zone }).startOf('day');
  let days: DaySlots[];
  let n =
    o.notice ?? (bad ? { kind: 'error' as const, text: 'That date is not valid; here are the next days.' } : null);
  try {
    days = await pickerDays(m, start);
  } catch (err) {
    if (!isAppError(err) || err.status >= 500) throw err;
    // The employee no longer does this service, say: nothing can be offered online.
    days = [];
    n = { kind: 'error', text: `No new times can be offered online. Please contact ${m.booking.company.name}.` };
  }
  const previous = start > today ? DateTime.max(today, start.minus({ days: DAYS_PER_PAGE })).toISODate() : null;
  const nextStart = start.plus({ days: DAYS_PER_PAGE });
  const next = nextStart <= today.plus({ days: MAX_DAYS_AHEAD - DAYS_PER_PAGE }) ? nextStart.toISODate() : null;
  return send(reply, o.status ?? 200, rescheduleView(token, m, { days, previous, next, notice: n }));
}

export default async function managePages(app: FastifyInstance, opts: { services: Services }): Promise<void> {
  const { services } = opts;
  await app.register(formbody, { bodyLimit: 16 * 1024 });

  // Every answer of a secret URL: not cached, not referred, not indexed.
  app.addHook('onSend', async (_req, reply) => {
    reply.header('cache-control', 'no-store');
    reply.header('referrer-policy', 'no-referrer');
    reply.header('x-robots-tag', 'noindex, nofollow');
  });

  app.setErrorHandler(async (err, req, reply) => {
    const error = toAppError(err);
    if (error.status >= 500) req.log.error({ err: error.cause ?? error }, 'manage page failed');
    const retryAfter = error.headers?.['retry-after'];
    if (retryAfter) reply.header('retry-after', retryAfter);
    if (error.code === 'NOT_FOUND') return send(reply, 404, notFoundPage());
    if (error.code === 'RATE_LIMITED')
      return send(reply, 429, messagePage('Too many requests', 'Please wait a moment and try again.'));
    if (error.code === 'FORBIDDEN') return send(reply, 403, messagePage('Not allowed', error.message));
    if (error.status >= 500)
      return send(reply, error.status, messagePage('Something went wrong', 'Please try again in a moment.'));
    return send(reply, error.status, messagePage('Invalid request', 'This page only accepts its own forms.'));
  });
  app.setNotFoundHandler(async (_req, reply) => send(reply, 404, notFoundPage()));

  /** The booking the path's token opens; a 404 page (the same for every reason) otherwise. */
  const open = async (req: FastifyRequest): Promise<{ token: string; m: ManagedBooking }> => {
    const token = stringFieldsOf(req.params).token ?? '';
    const m = await openManageLink(services.dbs, services.config, token);
    if (!m) throw AppError.notFound('page');
    return { token, m };
  };
  const guardPost = (req: FastifyRequest) => {
    if (crossSite(req, services)) throw new AppError('FORBIDDEN', 'This form can only be sent from its own page.');
    // HTML forms only: a JSON or other body is nothing these pages send.
    if (
      !String(req.headers['content-type'] ?? '')
        .toLowerCase()
        .startsWith('application/x-www-form-urlencoded')
    )
      throw new AppError('VALIDATION_ERROR', 'This page only accepts its own forms.');
  };
  const hide = { schema: { hide: true } };

  app.get('/:token', hide, async (req, reply) => {
    const { token, m } = await open(req);
    const done = DONE[stringFieldsOf(req.query).done ?? ''];
    return send(reply, 200, bookingView(token, m, done));
  });

  app.get('/:token/cancel', hide, async (req, reply) => {
    const { token, m } = await open(req);
    if (!permitted(m).cancel) return send(reply, 200, bookingView(token, m));
    const quote = await quoteCancellation(m.db, {
      company: m.booking.company,
      bookingId: m.booking.id,
      input: { cancelledBy: 'customer' },
    });
    return send(reply, 200, cancelView(token, m, quote));
  });

  app.post('/:token/cancel', hide, async (req, reply) => {
    guardPost(req);
    const { token, m } = await open(req);
    const form = stringFieldsOf(req.body, { firstOfRepeated: true });
    if (!permitted(m).cancel) {
      const text = m.started
        ? 'This booking has started, so it can no longer be changed online.'
        : 'This booking can no longer be cancelled online.';
      return send(reply, 409, bookingView(token, m, { kind: 'error', text }));
    }
    const company = m.booking.company;
    const quote = await quoteCancellation(m.db, {
      company,
      bookingId: m.booking.id,
      input: { cancelledBy: 'customer' },
    });
    // The fee the customer saw is the fee they agree to: if it changed since (the free period
    // ended meanwhile), they confirm again with the new one.
    if (quote.allowed && form.fee !== String(quote.fee)) {
      return send(
        reply,
        409,
        cancelView(token, m, quote, {
          kind: 'error',
          text: 'The cancellation terms have changed since the page was loaded. Please check them and confirm again.',
        }),
      );
    }
    const reason = (form.reason ?? '').trim().slice(0, 500);
    try {
      await cancelBooking(m.db, {
        company,
        mode: m.mode,
        config: services.config,
        bookingId: m.booking.id,
        input: { cancelledBy: 'customer', ...(reason ? { reason } : {}) },
        // Checked again under the booking's lock: the fee shown is the most that is charged.
        acceptedFee: quote.fee,
      });
    } catch (err) {
      if (!isAppError(err) || err.status >= 500) throw err;
      const fresh = await quoteCancellation(m.db, {
        company,
        bookingId: m.booking.id,
        input: { cancelledBy: 'customer' },
      });
      return send(reply, err.status, cancelView(token, m, fresh, refusal(err, m)));
    }
    return reply.redirect(`${linkPath(token)}?done=cancelled`, 303);
  });

  // A waitlist offer accepted by the customer (docs/api.md, Class waitlists).
  app.post('/:token/accept', hide, async (req, reply) => {
    guardPost(req);
    const { token, m } = await open(req);
    if (!permitted(m).accept) {
      const text = m.started
        ? 'This booking has started, so it can no longer be changed online.'
        : 'There is no offer to accept for this booking.';
      return send(reply, 409, bookingView(token, m, { kind: 'error', text }));
    }
    try {
      await acceptOffer(m.db, { company: m.booking.company, bookingId: m.booking.id });
    } catch (err) {
      if (!isAppError(err) || err.status >= 500) throw err;
      const fresh = (await openManageLink(services.dbs, services.config, token)) ?? m;
      const text =
        err.code === 'INVALID_STATE_TRANSITION'
          ? 'The offer is no longer open: it lapsed or was already answered.'
          : err.message;
      return send(reply, err.status, bookingView(token, fresh, { kind: 'error', text }));
    }
    return reply.redirect(`${linkPath(token)}?done=accepted`, 303);
  });

  app.get('/:token/reschedule', hide, async (req, reply) => {
    const { token, m } = await open(req);
    if (!permitted(m).reschedule) return send(reply, 200, bookingView(token, m));
    return renderPicker(reply, token, m, { from: stringFieldsOf(req.query, { firstOfRepeated: true }).from });
  });

  app.post('/:token/reschedule', hide, async (req, reply) => {
    guardPost(req);
    const { token, m } = await open(req);
    const form = stringFieldsOf(req.body, { firstOfRepeated: true });
    if (!permitted(m).reschedule) {
      const text = m.started
        ? 'This booking has started, so it can no longer be changed online.'
        : 'This booking can no longer be moved online.';
      return send(reply, 409, bookingView(token, m, { kind: 'error', text }));
    }
    if (!form.startTime) {
      return renderPicker(reply, token, m, {
        from: form.from,
        status: 400,
        notice: { kind: 'error', text: 'Please choose one of the times shown.' },
      });
    }
    try {
      await rescheduleBooking(m.db, {
        company: m.booking.company,
        bookingId: m.booking.id,
        input: { startTime: form.startTime, employeeId: m.booking.employeeId, rescheduledBy: 'customer' },
      });
    } catch (err) {
      if (!isAppError(err) || err.status >= 500) throw err;
      return renderPicker(reply, token, m, { from: form.from, status: err.status, notice: refusal(err, m) });
    }
    return reply.redirect(`${linkPath(token)}?done=rescheduled`, 303);
  });
}
