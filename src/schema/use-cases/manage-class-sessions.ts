// Class sessions (API.md §5 classes): one session of a class service with an instructor,
// times, a capacity and the places taken (bookedCount, kept by the booking use cases in the
// same statement that takes or gives back a place; a CHECK keeps it within 0..capacity).
import { z } from 'zod';
import type { Db } from '../../db/databases.js';
import { AppError } from '../../errors.js';
import { newId } from '../../ids.js';
import { recordBookingEvent } from '../booking-events.js';
import { isCheckViolation } from '../db-errors.js';
import { boundedInstant, checkRange, id } from '../domain-validation.js';
import { recordEvent } from '../events.js';
import { parseInput, text } from '../validation.js';
import { findClassSession, findEmployee, findService } from './find-records.js';

const capacity = z.number().int('must be an integer').min(1, 'must be at least 1').max(10_000, 'must be at most 10000');
const createInput = z
  .object({ serviceId: id, employeeId: id, startTime: boundedInstant, endTime: boundedInstant.optional(), capacity })
  .strict();
const updateInput = z.object({ employeeId: id, startTime: boundedInstant, endTime: boundedInstant, capacity }).partial().strict();

const MAX_SESSION_MS = 24 * 3600_000;

async function requireInstructor(db: Db, companyId: string, employeeId: string, serviceId: string) {
  const employee = await findEmployee(db, companyId, employeeId);
  if (!employee.active) throw AppError.validation([{ path: 'employeeId', message: 'is deactivated' }]);
  if (!employee.services.some((s) => s.serviceId === serviceId)) {
    throw AppError.validation([{ path: 'employeeId', message: 'does not perform this service; add it to the service employeeIds first' }]);
  }
  return employee;
}

export async function createClassSession(db: Db, opts: { companyId: string; input: unknown; now?: Date }) {
  const data = parseInput(createInput, opts.input);
  const service = await findService(db, opts.companyId, data.serviceId);
  if (service.kind !== 'class') throw AppError.validation([{ path: 'serviceId', message: 'is not a class service' }]);
  if (!service.active) throw AppError.validation([{ path: 'serviceId', message: 'is deactivated' }]);
  await requireInstructor(db, opts.companyId, data.employeeId, service.id);
  const endTime = data.endTime ?? new Date(data.startTime.getTime() + service.durationMinutes * 60_000);
  checkRange(data.startTime, endTime, { fromPath: 'startTime', toPath: 'endTime' });
  if (endTime.getTime() - data.startTime.getTime() > MAX_SESSION_MS) throw AppError.validation([{ path: 'endTime', message: 'must be at most 24 hours after startTime' }]);
  if (data.startTime.getTime() <= (opts.now ?? new Date()).getTime()) throw AppError.validation([{ path: 'startTime', message: 'must be in the future' }]);
  return db.classSession.create({
    data: { id: newId(), companyId: opts.companyId, serviceId: service.id, employeeId: data.employeeId, startTime: data.startTime, endTime, capacity: data.capacity },
  });
}

/**
 * Changes a scheduled session. New times move its live bookings with it (each gets a
 * booking.rescheduled event); a capacity below the places taken is refused by the CHECK.
 */
export async function updateClassSession(db: Db, opts: { companyId: string; classId: string; input: unknown }) {
  const session = await findClassSession(db, opts.companyId, opts.classId);
  const patch = parseInput(updateInput, opts.input);
  if (session.status === 'cancelled') throw new AppError('CONFLICT', 'A cancelled class session cannot be changed');
  if (patch.employeeId) await requireInstructor(db, opts.companyId, patch.employeeId, session.serviceId);
  const startTime = patch.startTime ?? session.startTime;
  const endTime = patch.endTime ?? session.endTime;
  checkRange(startTime, endTime, { fromPath: 'startTime', toPath: 'endTime' });
  if (endTime.getTime() - startTime.getTime() > MAX_SESSION_MS) throw AppError.validation([{ path: 'endTime', message: 'must be at most 24 hours after startTime' }]);
  const moved = startTime.getTime() !== session.startTime.getTime() || endTime.getTime() !== session.endTime.getTime();
  try {
    return await db.$transaction(async (tx) => {
      const updated = await tx.classSession.updateMany({ where: { id: session.id, status: 'scheduled' }, data: patch });
      if (updated.count === 0) throw new AppError('CONFLICT', 'A cancelled class session cannot be changed');
      if (moved || patch.employeeId) {
        const live = await tx.booking.findMany({ where: { classSessionId: session.id, status: { in: ['pending', 'confirmed'] } } });
        for (const b of live) {
          const after = await tx.booking.update({
            where: { id: b.id },
            data: { startTime, endTime, blockStart: startTime, blockEnd: endTime, employeeId: patch.employeeId ?? b.employeeId },
          });
          if (moved) await recordBookingEvent(tx, after, 'booking.rescheduled', { previousStartTime: b.startTime.toISOString(), previousEndTime: b.endTime.toISOString() });
        }
      }
      return tx.classSession.findUniqueOrThrow({ where: { id: session.id } });
    });
  } catch (err) {
    if (isCheckViolation(err)) throw AppError.validation([{ path: 'capacity', message: 'must not be below the places already booked' }]);
    throw err;
  }
}

const cancelInput = z.object({ reason: text(500).nullish() }).strict();

/**
 * Cancels a session and every live booking in it, in one transaction: class.cancelled for the
 * session and booking.cancelled for each booking. The session row is updated first, so a
 * concurrent booking (which must take a place on the same row) waits and then finds it
 * cancelled.
 */
export async function cancelClassSession(db: Db, opts: { companyId: string; classId: string; input?: unknown }) {
  const session = await findClassSession(db, opts.companyId, opts.classId);
  const { reason } = parseInput(cancelInput, opts.input ?? {});
  return db.$transaction(async (tx) => {
    const updated = await tx.classSession.updateMany({ where: { id: session.id, status: 'scheduled' }, data: { status: 'cancelled', bookedCount: 0 } });
    if (updated.count === 0) {
      throw new AppError('INVALID_STATE_TRANSITION', 'This class session is already cancelled', { details: { from: 'cancelled', to: 'cancelled' } });
    }
    const live = await tx.booking.findMany({ where: { classSessionId: session.id, status: { in: ['pending', 'confirmed'] } }, orderBy: { id: 'asc' } });
    const why = reason ?? 'class_cancelled';
    for (const b of live) {
      const after = await tx.booking.update({ where: { id: b.id }, data: { status: 'cancelled', cancelReason: why, holdExpiresAt: null } });
      await recordBookingEvent(tx, after, 'booking.cancelled', { reason: why });
    }
    const cancelled = await tx.classSession.findUniqueOrThrow({ where: { id: session.id } });
    await recordEvent(tx, {
      companyId: opts.companyId,
      type: 'class.cancelled',
      data: {
        classId: cancelled.id,
        serviceId: cancelled.serviceId,
        employeeId: cancelled.employeeId,
        startTime: cancelled.startTime.toISOString(),
        endTime: cancelled.endTime.toISOString(),
        capacity: cancelled.capacity,
        reason: reason ?? null,
        cancelledBookingIds: live.map((b) => b.id),
      },
    });
    return cancelled;
  });
}
