// The three views of a manage link (docs/manage-links.md): the booking, the cancel
// confirmation with the quote, and the reschedule picker over findAvailability's slots.
import { DateTime } from 'luxon';
import type { CancellationQuote } from '../../schema/bookings/index.js';
import type { ManagedBooking } from '../../schema/core/index.js';
import { formatInstant, formatMoney, formatSlot, managePage, NoticeText, type Notice } from './pages.js';

const STATUS_WORDS: Record<string, string> = {
  pending: 'Awaiting payment',
  confirmed: 'Confirmed',
  cancelled: 'Cancelled',
  completed: 'Completed',
  no_show: 'Missed',
  expired: 'Expired (not paid in time)',
  waitlisted: 'On the waitlist',
  offered: 'A place is offered to you',
};

export const linkPath = (token: string, rest = '') => `/b/${token}${rest}`;

/** What the customer may still do: only before the start, and only from a live state. */
export function permitted(m: ManagedBooking): { cancel: boolean; reschedule: boolean; accept: boolean } {
  const b = m.booking;
  const open = !m.started;
  return {
    // A waitlisted customer may leave the line, an offered one give the place back (docs/api.md, Class waitlists).
    cancel: open && ['pending', 'confirmed', 'waitlisted', 'offered'].includes(b.status),
    accept: open && b.status === 'offered',
    reschedule: open && b.status === 'confirmed' && !b.classSessionId && b.service.kind !== 'class',
  };
}

/** The customer's answers to the service's questions, labelled as they were asked. */
function AnswerRows({ answers }: { answers: unknown }) {
  const list = Array.isArray(answers) ? (answers as Array<{ label: string; value: unknown }>) : [];
  const shown = (v: unknown) =>
    typeof v === 'boolean' ? (v ? 'Yes' : 'No') : Array.isArray(v) ? v.join(', ') : String(v);
  return (
    <>
      {list.map((a) => (
        <>
          <dt>{a.label}</dt>
          <dd>{shown(a.value)}</dd>
        </>
      ))}
    </>
  );
}

function Summary({ m }: { m: ManagedBooking }) {
  const b = m.booking;
  const zone = b.company.timezone;
  return (
    <>
      <dl>
        <dt>Service</dt>
        <dd>{b.service.name}</dd>
        <dt>With</dt>
        <dd>{b.employee.name}</dd>
        <dt>When</dt>
        <dd>{formatSlot(b.startTime, b.endTime, zone)}</dd>
        <dt>Status</dt>
        <dd>{STATUS_WORDS[b.status] ?? b.status}</dd>
        {b.waitlistPosition ? (
          <>
            <dt>Place in line</dt>
            <dd>{b.waitlistPosition}</dd>
          </>
        ) : null}
        {b.offerExpiresAt && (
          <>
            <dt>Offer open until</dt>
            <dd>{formatInstant(b.offerExpiresAt, zone)}</dd>
          </>
        )}
        <dt>Business</dt>
        <dd>{b.company.name}</dd>
        <AnswerRows answers={b.answers} />
      </dl>
      <p data-local data-start={b.startTime.toISOString()} data-end={b.endTime.toISOString()} hidden>
        <strong>In your time zone:</strong> <span data-out />
      </p>
    </>
  );
}

/** " You can reach … at … or …." when the business left a phone or an e-mail. */
function contact(m: ManagedBooking): string {
  const c = m.booking.company;
  const ways = [c.phone, c.email].filter(Boolean);
  return ways.length ? ` You can reach ${c.name} at ${ways.join(' or ')}.` : '';
}

export function bookingView(token: string, m: ManagedBooking, n?: Notice | null): string {
  const b = m.booking;
  const can = permitted(m);
  const leave =
    b.status === 'waitlisted' ? 'Leave the waitlist' : b.status === 'offered' ? 'Decline the place' : 'Cancel booking';
  const next = m.started ? (
    <p class="notice info">This booking has started, so it can no longer be changed online.{contact(m)}</p>
  ) : !can.cancel && !can.reschedule ? (
    <p class="muted">This booking can no longer be changed online.{contact(m)}</p>
  ) : (
    <div class="actions">
      {can.accept && (
        <form method="post" action={linkPath(token, '/accept')}>
          <button type="submit" class="primary">
            Accept the place
          </button>
        </form>
      )}
      {can.reschedule && (
        <a class="button primary" href={linkPath(token, '/reschedule')}>
          Reschedule
        </a>
      )}
      {can.cancel && (
        <a class="button" href={linkPath(token, '/cancel')}>
          {leave}
        </a>
      )}
    </div>
  );
  return managePage(
    `Your booking at ${b.company.name}`,
    <>
      <h1>Your booking</h1>
      <NoticeText notice={n} />
      <Summary m={m} />
      {next}
      <p class="muted">Keep this link private: anyone who has it can change this booking.</p>
    </>,
  );
}

export function cancelView(token: string, m: ManagedBooking, quote: CancellationQuote, n?: Notice | null): string {
  const b = m.booking;
  const zone = b.company.timezone;
  const cur = b.currency;
  let terms;
  if (!quote.allowed) {
    terms =
      quote.deadline && b.status !== 'cancelled' ? (
        <p class="notice error">
          It is too late to cancel online: the deadline was {formatInstant(quote.deadline, zone)}.{contact(m)}
        </p>
      ) : (
        <p class="notice error">This booking can no longer be cancelled online.{contact(m)}</p>
      );
  } else {
    const free = quote.freeUntil && quote.fee === 0 && quote.freeUntil.getTime() > Date.now();
    terms = (
      <>
        {free && <p>Cancelling is free until {formatInstant(quote.freeUntil!, zone)}.</p>}
        <table class="money">
          <caption class="muted">If you cancel now</caption>
          <tr>
            <th scope="row">Cancellation fee</th>
            <td>{formatMoney(quote.fee, cur)}</td>
          </tr>
          <tr>
            <th scope="row">Refund</th>
            <td>{formatMoney(quote.refundAmount, cur)}</td>
          </tr>
        </table>
        <form method="post" action={linkPath(token, '/cancel')}>
          <input type="hidden" name="fee" value={String(quote.fee)} />
          <label for="reason">Reason (optional)</label>
          <textarea id="reason" name="reason" rows={3} maxlength={500} />
          <div class="actions">
            <button type="submit" class="danger">
              Cancel booking{quote.fee ? ` and pay ${formatMoney(quote.fee, cur)}` : ''}
            </button>
            <a href={linkPath(token)}>Keep my booking</a>
          </div>
        </form>
      </>
    );
  }
  return managePage(
    `Cancel your booking at ${b.company.name}`,
    <>
      <h1>Cancel your booking?</h1>
      <NoticeText notice={n} />
      <Summary m={m} />
      <h2>Cost</h2>
      {terms}
      {!quote.allowed && (
        <p>
          <a href={linkPath(token)}>Back to your booking</a>
        </p>
      )}
    </>,
  );
}

export interface DaySlots {
  /** The local date, YYYY-MM-DD in the company's zone. */
  date: string;
  starts: Date[];
}

export function rescheduleView(
  token: string,
  m: ManagedBooking,
  o: { days: DaySlots[]; previous: string | null; next: string | null; notice?: Notice | null },
): string {
  const b = m.booking;
  const zone = b.company.timezone;
  const any = o.days.some((d) => d.starts.length);
  return managePage(
    `Reschedule your booking at ${b.company.name}`,
    <>
      <h1>Choose a new time</h1>
      <NoticeText notice={o.notice} />
      <Summary m={m} />
      <h2>Free times</h2>
      <p class="muted">Times are in the business's time zone, {zone}.</p>
      <nav class="pager" aria-label="Days">
        {o.previous ? <a href={linkPath(token, `/reschedule?from=${o.previous}`)}>← Earlier days</a> : <span />}
        {o.next && <a href={linkPath(token, `/reschedule?from=${o.next}`)}>Later days →</a>}
      </nav>
      <form method="post" action={linkPath(token, '/reschedule')}>
        <input type="hidden" name="from" value={o.days[0]?.date ?? ''} />
        {o.days.map((d) => (
          <fieldset>
            <legend>{DateTime.fromISO(d.date, { zone }).toFormat('cccc d LLLL')}</legend>
            {d.starts.length ? (
              <div class="slots">
                {d.starts.map((s) => {
                  const id = `slot-${s.getTime()}`;
                  return (
                    <div class="slot">
                      <input type="radio" name="startTime" id={id} value={s.toISOString()} required />
                      <label for={id}>{DateTime.fromJSDate(s, { zone }).toFormat('HH:mm')}</label>
                    </div>
                  );
                })}
              </div>
            ) : (
              <p class="muted">No free times.</p>
            )}
          </fieldset>
        ))}
        <div class="actions">
          {any && (
            <button type="submit" class="primary">
              Move my booking
            </button>
          )}
          <a href={linkPath(token)}>Keep the current time</a>
        </div>
      </form>
    </>,
  );
}
