// Companies: the list of one mode (the company picker's page), creating one, and a company's
// profile with its edit form (docs/admin.md). Editing runs updateCompany, the
// use case behind PATCH /api/v1/me, and drops the company's cached credentials as the API does.
import type { FastifyInstance } from 'fastify';
import { esc } from '../../auth/pages/html.js';
import type { Company } from '../../generated/prisma/client.js';
import type { Mode } from '../../generated/prisma/enums.js';
import { isId } from '../../ids.js';
import { SAMPLE_ORDER, SAMPLE_TEMPLATES } from '../../schema/sandbox/index.js';
import { API_VERSIONS, createCompany, LATEST_API_VERSION, updateCompany } from '../../schema/companies/index.js';
import type { Services } from '../../services.js';
import { doneNotice, field, fieldErrors, formError, sendAdmin, timeTag } from '../http.js';
import { adminPage, companyPath, csrfField, type LayoutContext } from '../layout.js';
import { activeSession, companiesOf, companyScope, formOf, layoutFor, paramsOf, parseMode, queryOf } from '../scope.js';

const TIMEZONES = Intl.supportedValuesOf('timeZone');
const PROFILE_FIELDS = ['name', 'email', 'phone', 'address', 'timezone', 'currency', 'apiVersion'] as const;

function timezoneSelect(value: string, error?: string, defaultLabel?: string): string {
  const options = TIMEZONES.map((z) => `<option${z === value ? ' selected' : ''}>${esc(z)}</option>`).join('');
  const first = defaultLabel ? `<option value=""${value ? '' : ' selected'}>${esc(defaultLabel)}</option>` : '';
  const unknown = value && !TIMEZONES.includes(value) ? `<option selected>${esc(value)}</option>` : '';
  return `<label for="f-timezone">Time zone</label>
      <select id="f-timezone" name="timezone"${error ? ' aria-invalid="true" aria-describedby="f-timezone-error"' : ''}>${first}${unknown}${options}</select>
      ${error ? `<p class="field-error" id="f-timezone-error">${esc(error)}</p>` : ''}`;
}

/** The API version requests without an API-Version header get (docs/api.md, Versions). */
function apiVersionSelect(value: string, error?: string): string {
  const options = [...API_VERSIONS]
    .reverse()
    .map(
      (v) =>
        `<option value="${esc(v)}"${v === value ? ' selected' : ''}>${esc(v)}${v === LATEST_API_VERSION ? ' (latest)' : ''}</option>`,
    )
    .join('');
  return `<label for="f-apiVersion">API version</label>
      <select id="f-apiVersion" name="apiVersion" aria-describedby="f-apiVersion-hint${error ? ' f-apiVersion-error' : ''}"${error ? ' aria-invalid="true"' : ''}>${options}</select>
      <span class="hint" id="f-apiVersion-hint">What API requests without an API-Version header get; docs/changelog.md lists what each version changed.</span>
      ${error ? `<p class="field-error" id="f-apiVersion-error">${esc(error)}</p>` : ''}`;
}

export const TEMPLATE_LABELS: Record<string, string> = {
  hair_salon: 'Hair salon',
  clinic: 'Medical clinic',
  fitness: 'Fitness center',
};

/** The create-company form; in test mode it offers the sample templates. */
export function createCompanyForm(
  ctx: LayoutContext,
  values: Record<string, string> = {},
  errors: Record<string, string> | null = null,
): string {
  const templates =
    ctx.mode === 'test'
      ? `<label for="f-template">Start from</label>
      <select id="f-template" name="template">
        <option value="">Blank company</option>
        ${SAMPLE_ORDER.map((t) => `<option value="${t}"${values.template === t ? ' selected' : ''}>${esc(TEMPLATE_LABELS[t])} template (${esc(SAMPLE_TEMPLATES[t].name)})</option>`).join('')}
      </select>`
      : '';
  return `<form method="post" action="/admin/${ctx.mode}/companies" class="stack panel" id="create">
      <h2>Create a ${ctx.mode === 'test' ? 'test ' : ''}company</h2>
      ${formError(errors, ['name', 'timezone', 'currency', 'template'])}
      ${csrfField(ctx.csrfToken)}
      ${templates}
      ${field({ name: 'name', label: 'Name', value: values.name, hint: ctx.mode === 'test' ? 'Optional with a template' : undefined, maxlength: 200, error: errors?.name })}
      ${timezoneSelect(values.timezone ?? '', errors?.timezone, ctx.mode === 'test' ? 'The template’s, or UTC' : 'UTC (default)')}
      ${field({ name: 'currency', label: 'Currency', value: values.currency, hint: ctx.mode === 'test' ? 'ISO 4217 code; empty: the template’s, or USD' : 'ISO 4217 code; empty: USD', maxlength: 3, error: errors?.currency })}
      <button type="submit" class="primary">Create company</button>
    </form>`;
}

function companyList(companies: Company[], mode: Mode): string {
  if (companies.length === 0) return `<p class="empty">No ${mode === 'test' ? 'test ' : ''}companies yet.</p>`;
  return `<div class="cards">${companies
    .map(
      (c) => `<div class="panel"><h3><a href="${companyPath(c)}">${esc(c.name)}</a></h3>
        <p class="muted">${esc(c.timezone)} · ${esc(c.currency)}${c.template ? ` · <span class="badge test">${esc(TEMPLATE_LABELS[c.template] ?? c.template)} sample</span>` : ''}</p></div>`,
    )
    .join('')}</div>`;
}

function profileView(c: Company): string {
  const row = (label: string, value: string | null) =>
    `<dt>${esc(label)}</dt><dd>${value ? esc(value) : '<span class="muted">—</span>'}</dd>`;
  return `<dl class="fields">
      ${row('Name', c.name)}${row('E-mail', c.email)}${row('Phone', c.phone)}${row('Address', c.address)}
      ${row('Time zone', c.timezone)}${row('Currency', c.currency)}${row('Mode', c.mode)}${row('API version', c.apiVersion)}
      <dt>Company id</dt><dd><code>${esc(c.id)}</code></dd>
      <dt>Created</dt><dd>${timeTag(c.createdAt)}</dd>
    </dl>`;
}

function editForm(
  ctx: LayoutContext,
  c: Company,
  values: Record<string, string>,
  errors: Record<string, string> | null,
): string {
  return `<form method="post" action="${companyPath(c, '/edit')}" class="stack panel">
      ${formError(errors, [...PROFILE_FIELDS])}
      ${csrfField(ctx.csrfToken)}
      ${field({ name: 'name', label: 'Name', value: values.name, required: true, maxlength: 200, error: errors?.name })}
      ${field({ name: 'email', label: 'E-mail', type: 'email', value: values.email, maxlength: 254, error: errors?.email })}
      ${field({ name: 'phone', label: 'Phone', type: 'tel', value: values.phone, hint: 'International format, e.g. +4930123456', error: errors?.phone })}
      ${field({ name: 'address', label: 'Address', value: values.address, maxlength: 500, error: errors?.address })}
      ${timezoneSelect(values.timezone ?? 'UTC', errors?.timezone)}
      ${field({ name: 'currency', label: 'Currency', value: values.currency, maxlength: 3, error: errors?.currency })}
      ${apiVersionSelect(values.apiVersion ?? '', errors?.apiVersion)}
      <button type="submit" class="primary">Save</button> <a class="button" href="${companyPath(c)}">Cancel</a>
    </form>`;
}

export function registerCompanyRoutes(app: FastifyInstance, services: Services): void {
  app.get('/:mode', { schema: { hide: true } }, async (req, reply) => {
    const mode = parseMode(paramsOf(req).mode);
    const ctx = await layoutFor(services, req, mode, 'companies');
    const body = `<h1>${mode === 'test' ? 'Test companies' : 'Companies'}</h1>
      ${mode === 'test' ? '<p class="muted">Test companies live in the sandbox: use a test key (<code>svc_sk_test_…</code>) with them. <a href="/admin/test/sandbox">Sandbox tools</a></p>' : ''}
      ${companyList(ctx.companies, mode)}
      ${createCompanyForm(ctx)}`;
    return sendAdmin(reply, 200, adminPage(ctx, mode === 'test' ? 'Test companies' : 'Companies', body));
  });

  // The company picker's target (a GET form, so it works without scripts).
  app.get('/:mode/open', { schema: { hide: true } }, async (req, reply) => {
    const mode = parseMode(paramsOf(req).mode);
    const id = queryOf(req).company;
    const mine =
      isId(id) && (await companiesOf(services, activeSession(req).account.id, mode)).some((c) => c.id === id);
    return reply.redirect(mine ? `/admin/${mode}/companies/${id}` : `/admin/${mode}`, 303);
  });

  app.post('/:mode/companies', { schema: { hide: true } }, async (req, reply) => {
    const mode = parseMode(paramsOf(req).mode);
    const form = formOf(req);
    const input = {
      accountId: activeSession(req).account.id,
      mode,
      name: form.name?.trim() || undefined,
      timezone: form.timezone || undefined,
      currency: form.currency?.trim().toUpperCase() || undefined,
      ...(mode === 'test' && form.template ? { template: form.template as never } : {}),
    };
    try {
      const company = await createCompany(services.dbs, input);
      return reply.redirect(companyPath(company, '?done=created'), 303);
    } catch (err) {
      const errors = fieldErrors(err);
      if (!errors) throw err;
      const ctx = await layoutFor(services, req, mode, 'companies');
      return sendAdmin(
        reply,
        400,
        adminPage(ctx, 'Create a company', `<h1>Create a company</h1>${createCompanyForm(ctx, form, errors)}`),
      );
    }
  });

  app.get('/:mode/companies/:companyId', { schema: { hide: true } }, async (req, reply) => {
    const { company, ctx } = await companyScope(services, req, 'profile');
    const done = doneNotice(queryOf(req).done, { created: 'Company created.', saved: 'Profile saved.' });
    const body = `<h1>${esc(company.name)} ${company.mode === 'test' ? '<span class="badge test">Test</span>' : ''}</h1>${done}
      <div class="panel">${profileView(company)}<p><a class="button" href="${companyPath(company, '/edit')}">Edit profile</a></p></div>`;
    return sendAdmin(reply, 200, adminPage(ctx, company.name, body));
  });

  app.get('/:mode/companies/:companyId/edit', { schema: { hide: true } }, async (req, reply) => {
    const { company, ctx } = await companyScope(services, req, 'profile');
    const values = Object.fromEntries(PROFILE_FIELDS.map((k) => [k, company[k] ?? '']));
    return sendAdmin(
      reply,
      200,
      adminPage(ctx, 'Edit profile', `<h1>Edit profile</h1>${editForm(ctx, company, values, null)}`),
    );
  });

  app.post('/:mode/companies/:companyId/edit', { schema: { hide: true } }, async (req, reply) => {
    const { company, db, ctx } = await companyScope(services, req, 'profile');
    const form = formOf(req);
    // An emptied optional field clears it, as null does in PATCH /me.
    const input: Record<string, string | null> = {};
    for (const k of PROFILE_FIELDS) {
      if (form[k] === undefined) continue;
      const v = form[k].trim();
      input[k] = v === '' && k !== 'name' ? null : k === 'currency' ? v.toUpperCase() : v;
    }
    try {
      await updateCompany(db, { companyId: company.id, input });
    } catch (err) {
      const errors = fieldErrors(err);
      if (!errors) throw err;
      return sendAdmin(
        reply,
        400,
        adminPage(ctx, 'Edit profile', `<h1>Edit profile</h1>${editForm(ctx, company, form, errors)}`),
      );
    }
    await services.credentials.invalidateCompany(company.id);
    return reply.redirect(companyPath(company, '?done=saved'), 303);
  });
}
