// The data of booking events (docs/webhooks.md): bookingId, customerId, startTime,
// endTime, status, plus serviceId and employeeId, and previousStartTime/previousEndTime on a
// reschedule or reason on a cancellation, and the booking's metadata and answers; visitId for
// an item of a multi-service visit, seriesId for an occurrence of a booking series; locationId
// where the booking takes place (docs/api.md, Locations).
import type { Tx } from '../../db/databases.js';
import type { Booking } from '../../generated/prisma/client.js';
import { recordEvent, type OutboxEventType } from '../events/index.js';

export function bookingEventData(b: Booking, extra: Record<string, unknown> = {}) {
  return {
    bookingId: b.id,
    customerId: b.customerId,
    startTime: b.startTime.toISOString(),
    endTime: b.endTime.toISOString(),
    status: b.status,
    serviceId: b.serviceId,
    employeeId: b.employeeId,
    ...(b.classSessionId ? { classId: b.classSessionId } : {}),
    ...(b.visitId ? { visitId: b.visitId } : {}),
    ...(b.seriesId ? { seriesId: b.seriesId } : {}),
    ...(b.locationId ? { locationId: b.locationId } : {}),
    metadata: b.metadata,
    answers: b.answers,
    ...extra,
  };
}

export function recordBookingEvent(tx: Tx, b: Booking, type: OutboxEventType, extra: Record<string, unknown> = {}) {
  return recordEvent(tx, { companyId: b.companyId, type, data: bookingEventData(b, extra) });
}
