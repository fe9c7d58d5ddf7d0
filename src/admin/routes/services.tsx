// Company > Services (docs/admin.md): what the company offers, added by name, kind, duration and
// price (createService, as POST /api/v1/services), and each service's page: duration, price,
// buffers, payment and deposit, cancellation policy, the questions asked at booking, the staff
// who perform it and whether it is active, saved in one go by updateService (as
// PATCH /api/v1/services/:id, each field given). Amounts are typed in the currency's units and
// sent in minor units; every other rule is the use case's, its refusals shown next to the field
// they name (`cancellationPolicy.lateFee.amount`, `questions.2.options`), nothing changed. The
// pages are views/services.tsx.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isAppError } from '../../errors.js';
import { findService } from '../../schema/find-records.js';
import { createService, updateService } from '../../schema/services/index.js';
import type { Services } from '../../services.js';
import { sendAdmin } from '../http.js';
import { DoneNotice } from '../components/fields.js';
import { detailErrors, parseAmount, parseWhole } from '../forms.js';
import { companyPath } from '../layout.js';
import { formList, formOf, paramsOf, queryOf, type CompanyScope, companyRoutes } from '../scope.js';

import { listPage, rowCount, servicePage, SERVICES_DONE as DONE } from '../views/services.js';

/** The update of the service page's form, or the fields it could not read. */
function inputOf(v: Record<string, string>, employeeIds: string[], currency: string) {
  const errors: Record<string, string> = {};
  const whole = (key: string, path = key, fallback?: number) => {
    const t = (v[key] ?? '').trim();
    if (!t && fallback !== undefined) return fallback;
    const n = parseWhole(t);
    if (n === null) errors[path] = 'must be a whole number';
    return n ?? 0;
  };
  const amount = (key: string, path = key) => {
    const n = parseAmount(v[key] ?? '', currency);
    if (n === null) errors[path] = `must be an amount in ${currency}, e.g. 45.00`;
    return n ?? 0;
  };
  const free = (v.freeUntilMinutesBefore ?? '').trim();
  const cancellationPolicy = free
    ? {
        freeUntilMinutesBefore: whole('freeUntilMinutesBefore'),
        lateFee: v.lateFeeKind === 'amount' ? { amount: amount('lateFee') } : { percent: whole('lateFee', 'lateFee') },
      }
    : null;
  const questions: Array<Record<string, unknown>> = [];
  /** The form's row of each question sent (a removed or empty row is not sent). */
  const rowOf: number[] = [];
  for (let i = 0; i < rowCount(v); i++) {
    const id = (v[`q.${i}.id`] ?? '').trim();
    const label = (v[`q.${i}.label`] ?? '').trim();
    if (v[`q.${i}.remove`] || (!id && !label)) continue;
    const type = v[`q.${i}.type`] ?? 'text';
    const options = (v[`q.${i}.options`] ?? '')
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean);
    questions.push({
      id,
      label,
      type,
      required: v[`q.${i}.required`] === 'on',
      ...(options.length || type === 'choice' || type === 'multi_choice'
        ? { options: options.length ? options : null }
        : {}),
    });
    rowOf.push(i);
  }
  const input = {
    name: (v.name ?? '').trim(),
    description: (v.description ?? '').trim() || null,
    durationMinutes: whole('durationMinutes'),
    price: (v.price ?? '').trim() ? amount('price') : 0,
    bufferBeforeMinutes: whole('bufferBeforeMinutes', 'bufferBeforeMinutes', 0),
    bufferAfterMinutes: whole('bufferAfterMinutes', 'bufferAfterMinutes', 0),
    requiresPayment: v.requiresPayment === 'on',
    depositAmount: (v.depositAmount ?? '').trim() ? amount('depositAmount') : null,
    cancellationPolicy,
    questions,
    employeeIds,
    active: v.active === 'on',
  };
  return { input, errors, rowOf };
}

/** A use case's fault path as the form's field: `questions.2.label` → the row's, the policy's → its fields. */
function formField(path: string, rowOf: number[]): string {
  const q = /^questions\.(\d+)(?:\.(\w+))?/.exec(path);
  if (q) {
    const row = rowOf[Number(q[1])];
    return row === undefined ? 'q.0' : q[2] ? `q.${row}.${q[2]}` : `q.${row}`;
  }
  if (path === 'questions') return 'q.0';
  if (path.startsWith('cancellationPolicy.lateFee')) return 'lateFee';
  if (path.startsWith('cancellationPolicy')) return 'freeUntilMinutesBefore';
  return path.split(/[.[]/)[0]!;
}

export function registerServiceRoutes(app: FastifyInstance, services: Services): void {
  const pages = companyRoutes(app, services, 'services');
  const base = '/:mode/companies/:companyId/services';
  const serviceOf = (s: CompanyScope, req: FastifyRequest) =>
    findService(s.db, s.company.id, paramsOf(req).serviceId ?? '');
  const done = (s: CompanyScope, id: string, what: keyof typeof DONE, reply: FastifyReply) =>
    reply.redirect(companyPath(s.company, `/services/${id}?done=${what}`), 303);

  pages.get(base, async (s, req, reply) => {
    return sendAdmin(reply, 200, await listPage(s, <DoneNotice done={queryOf(req).done} table={DONE} />));
  });

  pages.post(base, async (s, req, reply) => {
    const form = formOf(req);
    const values = {
      name: form.name ?? '',
      kind: form.kind ?? '',
      durationMinutes: form.durationMinutes ?? '',
      price: form.price ?? '',
    };
    const errors: Record<string, string> = {};
    const duration = parseWhole(values.durationMinutes);
    if (duration === null) errors.durationMinutes = 'must be a whole number of minutes';
    const price = values.price.trim() ? parseAmount(values.price, s.company.currency) : 0;
    if (price === null) errors.price = `must be an amount in ${s.company.currency}, e.g. 45.00`;
    if (Object.keys(errors).length) return sendAdmin(reply, 400, await listPage(s, null, { values, errors }));
    let created;
    try {
      created = await createService(s.db, {
        companyId: s.company.id,
        input: { name: values.name.trim(), kind: values.kind, durationMinutes: duration, price },
      });
    } catch (err) {
      const found = detailErrors(err);
      if (!found) throw err;
      const mapped = Object.fromEntries(Object.entries(found).map(([k, m]) => [k.split(/[.[]/)[0]!, m]));
      return sendAdmin(reply, 400, await listPage(s, null, { values, errors: mapped }));
    }
    req.log.info({ companyId: s.company.id, serviceId: created.id }, 'admin added a service');
    return done(s, created.id, 'created', reply);
  });

  pages.get(`${base}/:serviceId`, async (s, req, reply) => {
    const svc = await serviceOf(s, req);
    return sendAdmin(
      reply,
      200,
      await servicePage(s, svc, { top: <DoneNotice done={queryOf(req).done} table={DONE} /> }),
    );
  });

  pages.post(`${base}/:serviceId`, async (s, req, reply) => {
    const svc = await serviceOf(s, req);
    const { csrf_token: _, ...values } = formOf(req);
    const employeeIds = formList(req, 'employeeIds');
    const { input, errors, rowOf } = inputOf(values, employeeIds, s.company.currency);
    if (Object.keys(errors).length)
      return sendAdmin(reply, 400, await servicePage(s, svc, { values, employeeIds, errors }));
    try {
      await updateService(s.db, { companyId: s.company.id, serviceId: svc.id, input });
    } catch (err) {
      const found = detailErrors(err);
      if (found) {
        const mapped: Record<string, string> = {};
        for (const [path, message] of Object.entries(found)) mapped[formField(path, rowOf)] ??= message;
        return sendAdmin(reply, 400, await servicePage(s, svc, { values, employeeIds, errors: mapped }));
      }
      // An employee of another company is not found: said next to the list.
      if (isAppError(err) && err.code === 'NOT_FOUND')
        return sendAdmin(
          reply,
          400,
          await servicePage(s, svc, {
            values,
            employeeIds,
            errors: { employeeIds: 'names an employee that does not exist' },
          }),
        );
      throw err;
    }
    req.log.info({ companyId: s.company.id, serviceId: svc.id }, 'admin changed a service');
    return done(s, svc.id, 'updated', reply);
  });
}
