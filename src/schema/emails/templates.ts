// The customer e-mails of docs/sandbox.md (booking confirmed, rescheduled, cancelled; payment
// receipt; a waitlist offer, and leaving a waitlist), as text and HTML, with times in the
// customer's time zone when the booking records one (customerTimeZone), else its location's,
// else the company's, the zone always named (Luxon, DST-correct). A booking at a location names
// it (name and address) in its e-mails, the payment receipt included.
import { DateTime } from 'luxon';

/** What a customer e-mail is about (docs/sandbox.md): the `kind` an e-mail is logged with. */
export const EMAIL_KINDS = [
  'booking_confirmed',
  'booking_rescheduled',
  'booking_cancelled',
  'booking_reminder',
  'payment_receipt',
  'waitlist_offer',
  'waitlist_left',
] as const;

export type EmailKind = (typeof EMAIL_KINDS)[number];

export interface EmailFacts {
  kind: EmailKind;
  company: { name: string; timezone: string; email: string | null; phone: string | null; address: string | null };
  customer: { name: string };
  service: { name: string };
  employee: { name: string };
  /** Where the booking takes place (docs/api.md, Locations); absent or null: the company's address. */
  location?: { name: string; address: string; timeZone: string } | null;
  booking: {
    id: string;
    startTime: Date;
    endTime: Date;
    cancelReason?: string | null;
    /** A waitlist offer's end (docs/api.md, Class waitlists). */
    offerExpiresAt?: Date | null;
    /** The customer's IANA zone, when the booking was made with one: e-mails show times in it. */
    customerTimeZone?: string | null;
  };
  previous?: { startTime: Date; endTime: Date };
  /** The customer's manage link (docs/manage-links.md), in confirmations and reschedules. */
  manageUrl?: string;
  /** A visit's receipt: each item paid for, in the order of the visit. */
  items?: Array<{
    service: { name: string };
    employee: { name: string };
    startTime: Date;
    endTime: Date;
    price: number;
    currency: string;
  }>;
  payment?: {
    id: string;
    amount: number;
    currency: string;
    brand: string | null;
    last4: string | null;
    createdAt: Date;
  };
}

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** "Monday 30 March 2026, 10:00–11:00 GMT+2 (Europe/Berlin)" in the given zone. */
export function formatSlot(start: Date, end: Date, zone: string): string {
  const s = DateTime.fromJSDate(start, { zone });
  const e = DateTime.fromJSDate(end, { zone });
  return `${s.toFormat('cccc d LLLL yyyy, HH:mm')}–${e.toFormat('HH:mm')} ${s.toFormat('ZZZZ')} (${zone})`;
}

export function formatMoney(amount: number, currency: string): string {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).format(
    amount /
      10 ** (new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2),
  );
}

export function renderEmail(f: EmailFacts): RenderedEmail {
  // docs/calendars.md: the customer's zone when the booking has one, else its location's, else
  // the company's, named.
  const zone = f.booking.customerTimeZone || f.location?.timeZone || f.company.timezone;
  const when = formatSlot(f.booking.startTime, f.booking.endTime, zone);
  const place = f.location ? `${f.location.name}, ${f.location.address}` : null;
  const where = place ? [`Where: ${place}`] : [];
  const lines: string[] = [];
  let subject: string;
  switch (f.kind) {
    case 'booking_confirmed':
      subject = `Your booking at ${f.company.name} is confirmed`;
      lines.push(`Your ${f.service.name} with ${f.employee.name} is confirmed.`, '', `When: ${when}`, ...where);
      break;
    case 'booking_rescheduled':
      subject = `Your booking at ${f.company.name} has moved`;
      // A class session moved to another site keeps its time (docs/api.md, Classes): the
      // e-mail then says where, not a "new time" equal to the old one.
      if (
        f.previous &&
        f.previous.startTime.getTime() === f.booking.startTime.getTime() &&
        f.previous.endTime.getTime() === f.booking.endTime.getTime()
      ) {
        lines.push(`Your ${f.service.name} with ${f.employee.name} has moved to another place.`, '', `When: ${when}`);
        lines.push(...(place ? [`New place: ${place}`] : where));
        break;
      }
      lines.push(`Your ${f.service.name} with ${f.employee.name} has been rescheduled.`, '', `New time: ${when}`);
      if (f.previous) lines.push(`Was: ${formatSlot(f.previous.startTime, f.previous.endTime, zone)}`);
      lines.push(...where);
      break;
    case 'booking_reminder':
      // A reminder (docs/api.md, Reminders), sent offsetMinutes before the start.
      subject = `Reminder: your booking at ${f.company.name}`;
      lines.push(`This is a reminder of your ${f.service.name} with ${f.employee.name}.`, '', `When: ${when}`);
      if (place ?? f.company.address) lines.push(`Where: ${place ?? f.company.address}`);
      break;
    case 'waitlist_offer': {
      // A freed class place reserved for a waitlisted customer until offerExpiresAt.
      const until = f.booking.offerExpiresAt
        ? DateTime.fromJSDate(f.booking.offerExpiresAt, { zone }).toFormat('cccc d LLLL yyyy, HH:mm ZZZZ')
        : 'soon';
      subject = `A place is free for you at ${f.company.name}`;
      lines.push(
        `A place has opened up in ${f.service.name} with ${f.employee.name}, and it is yours if you accept it.`,
        '',
        `When: ${when}`,
        ...where,
        `Accept by: ${until}; after that it goes to the next person on the waitlist.`,
      );
      break;
    }
    case 'waitlist_left':
      // A waitlisted or offered booking cancelled: it never held a place, nor was invited.
      subject = `You have left the waitlist at ${f.company.name}`;
      lines.push(
        `You are no longer on the waitlist for ${f.service.name} with ${f.employee.name} on ${when}.`,
        'You held no place in this class, so nothing else changes for you.',
      );
      if (f.booking.cancelReason) lines.push('', `Reason: ${f.booking.cancelReason}`);
      break;
    case 'booking_cancelled':
      subject = `Your booking at ${f.company.name} is cancelled`;
      lines.push(`Your ${f.service.name} with ${f.employee.name} on ${when} has been cancelled.`, ...where);
      if (f.booking.cancelReason) lines.push('', `Reason: ${f.booking.cancelReason}`);
      break;
    case 'payment_receipt': {
      const p = f.payment!;
      subject = `Receipt for your payment to ${f.company.name}`;
      lines.push(
        `Thank you for your payment.`,
        '',
        `Amount: ${formatMoney(p.amount, p.currency)}`,
        `Card: ${p.brand ?? 'card'} ending in ${p.last4 ?? '----'}`,
        `Paid: ${DateTime.fromJSDate(p.createdAt, { zone }).toFormat('d LLLL yyyy, HH:mm ZZZZ')}`,
        ...(f.items?.length
          ? [
              'For:',
              ...f.items.map(
                (i) =>
                  `- ${i.service.name} with ${i.employee.name}, ${formatSlot(i.startTime, i.endTime, zone)}: ${formatMoney(i.price, i.currency)}`,
              ),
            ]
          : [`For: ${f.service.name} with ${f.employee.name}, ${when}`]),
        // The same line as the booking's own e-mails: the site it was paid for.
        ...where,
        `Receipt number: ${p.id}`,
      );
      break;
    }
  }
  const manage =
    f.manageUrl &&
    (f.kind === 'booking_confirmed' ||
      f.kind === 'booking_rescheduled' ||
      f.kind === 'booking_reminder' ||
      f.kind === 'waitlist_offer');
  const manageLine =
    f.kind === 'waitlist_offer'
      ? 'To accept the place or give it back, use your booking link (keep it private):'
      : 'To cancel or reschedule, use your booking link (keep it private):';
  if (manage) lines.push('', manageLine, f.manageUrl!);
  lines.push('', `Booking reference: ${f.booking.id}`);
  const contact = [f.company.address, f.company.phone, f.company.email].filter(Boolean).join(' · ');
  const greeting = `Hello ${f.customer.name},`;
  const text = [greeting, '', ...lines, '', '—', f.company.name, ...(contact ? [contact] : [])].join('\n');
  const html = [
    '<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">',
    `<p>${escape(greeting)}</p>`,
    ...lines
      .filter((l) => !(manage && (l === manageLine || l === f.manageUrl)))
      .map((l) => (l ? `<p>${escape(l)}</p>` : '')),
    ...(manage
      ? [
          f.kind === 'waitlist_offer'
            ? `<p><a href="${escape(f.manageUrl!)}">Accept the place</a>, or give it back, online. Keep this link private.</p>`
            : `<p><a href="${escape(f.manageUrl!)}">Manage your booking</a>: cancel or reschedule it online. Keep this link private.</p>`,
        ]
      : []),
    `<hr><p><strong>${escape(f.company.name)}</strong>${contact ? `<br>${escape(contact)}` : ''}</p>`,
    '</body></html>',
  ].join('\n');
  return { subject, text, html };
}
