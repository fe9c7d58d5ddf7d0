// The commands about one company's data (`--company`): bookings, webhooks and events, each
// calling the use case the API and the admin area call for the same verb. Ids print as `_id`,
// as the API names them.
import { DateTime } from 'luxon';
import { AppError } from '../errors.js';
import { BookingStatus } from '../generated/prisma/enums.js';
import { cancelBooking, listBookingEvents, listBookingsStarting } from '../schema/bookings/index.js';
import { findBookingWithDetails } from '../schema/find-records.js';
import { EVENT_TYPES, listEventsByPosition } from '../schema/events/index.js';
import {
  listWebhookDeliveries,
  listWebhookEndpoints,
  retryWebhookDelivery,
  sendTestWebhook,
} from '../schema/webhooks/index.js';
import { companyOption, integer, list, optional, required, type Implementation, type Values } from './command-kit.js';

const iso = (d: Date | null | undefined) => d?.toISOString() ?? null;

/** An ISO 8601 instant, or a date meaning its midnight in the company's zone. */
function timeOption(values: Values, name: string, zone: string): Date | undefined {
  const v = optional(values, name);
  if (v === undefined) return undefined;
  const t = DateTime.fromISO(v, { zone, setZone: true });
  if (!t.isValid || !/^\d{4}-\d{2}-\d{2}/.test(v))
    throw AppError.validation([{ path: name, message: 'must be an ISO 8601 date or date-time' }]);
  return t.toJSDate();
}

function statusesOption(values: Values): BookingStatus[] {
  const known = Object.values(BookingStatus) as string[];
  return list(values, 'status').map((s) => {
    if (!known.includes(s))
      throw AppError.validation([{ path: 'status', message: `must be one of ${known.join(', ')}` }]);
    return s as BookingStatus;
  });
}

interface BookingLine {
  _id: string;
  status: string;
  startTime: string;
  service: string;
  customer: string;
}

interface EventLine {
  position: string;
  _id: string;
  type: string;
  createdAt: string;
}

const table = (rows: string[][]) => {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => r[i]!.length))) ?? [];
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n');
};

export const COMPANY_COMMANDS: Record<string, Implementation> = {
  'bookings list': {
    async run(services, v) {
      const { company, db } = await companyOption(services, v);
      const from = timeOption(v, 'from', company.timezone) ?? new Date();
      const to = timeOption(v, 'to', company.timezone) ?? new Date(from.getTime() + 7 * 24 * 3600 * 1000);
      if (to <= from) throw AppError.validation([{ path: 'to', message: 'must be after --from' }]);
      const rows = await listBookingsStarting(db, {
        companyId: company.id,
        from,
        to,
        employeeId: optional(v, 'employee') ?? null,
        statuses: statusesOption(v),
        limit: integer(v, 'limit', { min: 1, max: 500, default: 100 }),
      });
      return {
        data: rows.map((b) => ({
          _id: b.id,
          status: b.status,
          startTime: b.startTime.toISOString(),
          endTime: b.endTime.toISOString(),
          serviceId: b.serviceId,
          service: b.service.name,
          employeeId: b.employeeId,
          customerId: b.customerId,
          customer: b.customer.name,
        })),
      };
    },
    format: (r: { data: BookingLine[] }) =>
      r.data.length
        ? table([
            ['START', 'STATUS', 'SERVICE', 'CUSTOMER', 'ID'],
            ...r.data.map((b) => [b.startTime, b.status, b.service, b.customer, b._id]),
          ])
        : 'No bookings in that window.',
  },
  'bookings show': {
    async run(services, v) {
      const { company, db } = await companyOption(services, v);
      const b = await findBookingWithDetails(db, company.id, required(v, 'booking'));
      const events = await listBookingEvents(db, { companyId: company.id, bookingId: b.id, limit: 100 });
      return {
        _id: b.id,
        status: b.status,
        startTime: b.startTime.toISOString(),
        endTime: b.endTime.toISOString(),
        service: { _id: b.service.id, name: b.service.name },
        employee: { _id: b.employee.id, name: b.employee.name },
        customer: { _id: b.customer.id, name: b.customer.name, email: b.customer.email, phone: b.customer.phone },
        price: b.price,
        currency: b.currency,
        notes: b.notes,
        cancelReason: b.cancelReason,
        cancelledBy: b.cancelledBy,
        cancellationFee: b.cancellationFee,
        holdExpiresAt: iso(b.holdExpiresAt),
        createdAt: b.createdAt.toISOString(),
        payments: b.payments.map((p) => ({
          _id: p.id,
          kind: p.kind,
          status: p.status,
          amount: p.amount,
          amountRefunded: p.amountRefunded,
          currency: p.currency,
        })),
        events: events.map((e) => ({ _id: e.id, type: e.type, createdAt: e.createdAt.toISOString() })),
      };
    },
  },
  'bookings cancel': {
    async run(services, v) {
      const { company, mode, db } = await companyOption(services, v);
      const reason = optional(v, 'reason');
      const { booking, refunds } = await cancelBooking(db, {
        company,
        mode,
        config: services.config,
        bookingId: required(v, 'booking'),
        input: { cancelledBy: 'business', ...(reason !== undefined ? { reason } : {}) },
      });
      return { _id: booking.id, status: booking.status, cancelReason: booking.cancelReason, refunds };
    },
  },
  'webhooks list': {
    async run(services, v) {
      const { company, db } = await companyOption(services, v);
      const shown = integer(v, 'deliveries', { min: 0, max: 50, default: 5 });
      const endpoints = await listWebhookEndpoints(db, company.id);
      return {
        data: await Promise.all(
          endpoints.map(async (e) => ({
            _id: e.id,
            url: e.url,
            enabled: e.enabled,
            events: e.events,
            deliveries: shown
              ? (await listWebhookDeliveries(db, { companyId: company.id, endpointId: e.id, limit: shown })).map(
                  (d) => ({
                    _id: d.id,
                    eventId: d.event.id,
                    eventType: d.event.type,
                    status: d.status,
                    attemptCount: d.attemptCount,
                    lastStatusCode: d.lastStatusCode,
                    nextAttemptAt: iso(d.nextAttemptAt),
                  }),
                )
              : [],
          })),
        ),
      };
    },
  },
  'webhooks test': {
    async run(services, v) {
      const { company, db } = await companyOption(services, v);
      const delivery = await sendTestWebhook(db, { companyId: company.id, id: required(v, 'endpoint') });
      return { _id: delivery.id, eventId: delivery.event.id, eventType: delivery.event.type, status: delivery.status };
    },
  },
  'webhooks retry': {
    async run(services, v) {
      const { company, db } = await companyOption(services, v);
      const d = await retryWebhookDelivery(db, { companyId: company.id, id: required(v, 'delivery') });
      return { _id: d.id, eventId: d.eventId, status: d.status, nextAttemptAt: iso(d.nextAttemptAt) };
    },
  },
  'events tail': {
    async run(services, v) {
      const { company, db } = await companyOption(services, v);
      const after = optional(v, 'after');
      if (after !== undefined && !/^\d{1,15}$/.test(after))
        throw AppError.validation([{ path: 'after', message: 'must be an event position (a whole number)' }]);
      const types = list(v, 'type');
      for (const t of types) {
        if (!(EVENT_TYPES as readonly string[]).includes(t))
          throw AppError.validation([{ path: 'type', message: `${t} is not an event type` }]);
      }
      const events = await listEventsByPosition(db, {
        companyId: company.id,
        after: after === undefined ? null : BigInt(after),
        limit: integer(v, 'limit', { min: 1, max: 500, default: 20 }),
        types,
      });
      return {
        data: events.map((e) => ({
          position: String(e.position),
          _id: e.id,
          type: e.type,
          createdAt: e.createdAt.toISOString(),
          data: e.data,
        })),
      };
    },
    format: (r: { data: EventLine[] }) =>
      r.data.map((e) => `${e.position.padStart(8)}  ${e.createdAt}  ${e.type.padEnd(24)}  ${e._id}`).join('\n'),
  },
};
