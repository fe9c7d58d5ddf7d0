// Services (docs/api.md): what can be booked, its duration, buffers around it, price in minor
// units, whether it must be paid for up front, and the employees qualified to perform it.
// `kind` (appointment or class) is fixed at creation: class sessions and bookings depend on it.
// DELETE deactivates, like employees: history stays, new bookings are refused.
import { z } from 'zod';
import type { Db } from '../../db/databases.js';
import { AppError } from '../../errors.js';
import { Prisma } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import { isCheckViolation } from '../db-errors.js';
import { bookingRulesPatch, patchBookingRules } from '../booking-rules.js';
import { remindersInput } from '../notifications/index.js';
import { cancellationPolicySchema, depositAmountSchema, moneyFieldErrors } from './cancellation-policy.js';
import { id, minutes } from '../domain-validation.js';
import { mergeMetadata, metadataInput, metadataPatch } from '../metadata.js';
import { questionsSchema } from './questions.js';
import { waitlistSchema } from './waitlist-config.js';
import { parseInput, requiredText, text } from '../validation.js';
import { findService, requireAll, serviceInclude } from '../find-records.js';
import { requiredResourceIdsInput, requiredResourceKindsInput, requireResources } from '../resources/index.js';

const fields = {
  name: requiredText(200),
  description: text(5000).nullable(),
  durationMinutes: z.number().int('must be an integer').min(1, 'must be at least 1').max(1440, 'must be at most 1440'),
  price: z
    .number()
    .int('must be an integer in minor units')
    .min(0, 'must not be negative')
    .max(100_000_000, 'must be at most 100000000'),
  bufferBeforeMinutes: minutes(720),
  bufferAfterMinutes: minutes(720),
  requiresPayment: z.boolean(),
  depositAmount: depositAmountSchema.nullable(),
  cancellationPolicy: cancellationPolicySchema.nullable(),
  bookingRules: bookingRulesPatch,
  /** The service's own reminders, replacing the company's; null inherits them. */
  reminders: remindersInput.nullable(),
  questions: questionsSchema,
  /** A class service's waitlist (waitlist-config.ts); null removes it. */
  waitlist: waitlistSchema.nullable(),
  active: z.boolean(),
  employeeIds: z
    .array(id)
    .max(500, 'must list at most 500 employees')
    .transform((ids) => [...new Set(ids)]),
  /** Resources every booking holds (ids of this company, no duplicates, at most 10). */
  requiredResourceIds: requiredResourceIdsInput,
  /** Kinds of which a booking holds any one free resource (each at most once). */
  requiredResourceKinds: requiredResourceKindsInput,
};

const createInput = z
  .object({ ...fields, kind: z.enum(['appointment', 'class']), metadata: metadataInput })
  .partial({
    description: true,
    kind: true,
    price: true,
    bufferBeforeMinutes: true,
    bufferAfterMinutes: true,
    requiresPayment: true,
    depositAmount: true,
    cancellationPolicy: true,
    bookingRules: true,
    reminders: true,
    questions: true,
    waitlist: true,
    active: true,
    employeeIds: true,
    metadata: true,
    requiredResourceIds: true,
    requiredResourceKinds: true,
  })
  .strict();
const updateInput = z
  .object({ ...fields, metadata: metadataPatch })
  .partial()
  .strict();

async function requireEmployees(db: Db, companyId: string, ids: string[] | undefined) {
  await requireAll(
    (list) => db.employee.findMany({ where: { companyId, id: { in: list } }, select: { id: true } }),
    ids ?? [],
    'employee',
  );
}

/** JSON columns: a policy or Prisma's database null; booking rules merged into what is stored. */
function jsonFields(
  input: {
    cancellationPolicy?: unknown;
    bookingRules?: z.output<typeof bookingRulesPatch>;
    reminders?: z.output<typeof remindersInput> | null;
    waitlist?: z.output<typeof waitlistSchema> | null;
  },
  storedRules: unknown,
) {
  return {
    ...(input.waitlist !== undefined ? { waitlist: input.waitlist === null ? Prisma.DbNull : input.waitlist } : {}),
    ...(input.cancellationPolicy !== undefined
      ? {
          cancellationPolicy:
            input.cancellationPolicy === null ? Prisma.DbNull : (input.cancellationPolicy as Prisma.InputJsonValue),
        }
      : {}),
    ...(input.bookingRules ? { bookingRules: patchBookingRules(storedRules, input.bookingRules) } : {}),
    ...(input.reminders !== undefined ? { reminders: input.reminders === null ? Prisma.DbNull : input.reminders } : {}),
  };
}

function checkMoneyFields(s: Parameters<typeof moneyFieldErrors>[0]) {
  const errors = moneyFieldErrors(s);
  if (errors.length) throw AppError.validation(errors);
}

/** A waitlist is a class's: an appointment service has none (docs/api.md, Class waitlists). */
function checkWaitlistKind(kind: string, waitlist: unknown) {
  if (waitlist != null && kind !== 'class')
    throw AppError.validation([{ path: 'waitlist', message: 'is only for class services' }]);
}

export async function createService(db: Db, opts: { companyId: string; input: unknown }) {
  const { employeeIds, cancellationPolicy, bookingRules, reminders, waitlist, ...data } = parseInput(
    createInput,
    opts.input,
  );
  checkWaitlistKind(data.kind ?? 'appointment', waitlist);
  checkMoneyFields({
    price: data.price ?? 0,
    depositAmount: data.depositAmount ?? null,
    cancellationPolicy: cancellationPolicy ?? null,
  });
  await requireEmployees(db, opts.companyId, employeeIds);
  await requireResources(db, opts.companyId, data.requiredResourceIds ?? []);
  return db.service.create({
    data: {
      id: newId(),
      companyId: opts.companyId,
      ...data,
      ...jsonFields({ cancellationPolicy, bookingRules, reminders, waitlist }, {}),
      employees: { create: (employeeIds ?? []).map((employeeId) => ({ employeeId })) },
    },
    include: serviceInclude,
  });
}

export async function updateService(db: Db, opts: { companyId: string; serviceId: string; input: unknown }) {
  const existing = await findService(db, opts.companyId, opts.serviceId);
  const { employeeIds, cancellationPolicy, bookingRules, reminders, metadata, waitlist, ...patch } = parseInput(
    updateInput,
    opts.input,
  );
  checkWaitlistKind(existing.kind, waitlist);
  checkMoneyFields({
    price: patch.price ?? existing.price,
    depositAmount: patch.depositAmount !== undefined ? patch.depositAmount : existing.depositAmount,
    cancellationPolicy: cancellationPolicy !== undefined ? cancellationPolicy : existing.cancellationPolicy,
  });
  await requireEmployees(db, opts.companyId, employeeIds);
  await requireResources(db, opts.companyId, patch.requiredResourceIds ?? []);
  return db
    .$transaction(async (tx) => {
      if (metadata)
        await mergeMetadata(tx, { table: 'services', id: existing.id, companyId: opts.companyId, patch: metadata });
      if (employeeIds) {
        await tx.employeeService.deleteMany({ where: { serviceId: existing.id } });
        await tx.employeeService.createMany({
          data: employeeIds.map((employeeId) => ({ employeeId, serviceId: existing.id })),
        });
      }
      return tx.service.update({
        where: { id: existing.id },
        data: {
          ...patch,
          ...jsonFields({ cancellationPolicy, bookingRules, reminders, waitlist }, existing.bookingRules),
        },
        include: serviceInclude,
      });
    })
    .catch((err: unknown) => {
      // A concurrent change of the price: the services_deposit_within_price CHECK has the last word.
      if (isCheckViolation(err))
        throw AppError.validation([{ path: 'depositAmount', message: 'must be at most the price' }]);
      throw err;
    });
}

export async function deactivateService(db: Db, opts: { companyId: string; serviceId: string }) {
  const existing = await findService(db, opts.companyId, opts.serviceId);
  return db.service.update({ where: { id: existing.id }, data: { active: false }, include: serviceInclude });
}
