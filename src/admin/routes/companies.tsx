// Companies: the list of one mode (the company picker's page), creating one, and a company's
// profile with its edit form (docs/admin.md). Editing runs updateCompany, the
// use case behind PATCH /api/v1/me, and drops the company's cached credentials as the API does.
import type { FastifyInstance } from 'fastify';
import type { Company } from '../../generated/prisma/client.js';
import type { Mode } from '../../generated/prisma/enums.js';
import { isId } from '../../ids.js';
import { SAMPLE_ORDER, SAMPLE_TEMPLATES } from '../../schema/sandbox/index.js';
import { API_VERSIONS, createCompany, LATEST_API_VERSION, updateCompany } from '../../schema/companies/index.js';
import type { Services } from '../../services.js';
import { fieldErrors, sendAdmin, TimeTag } from '../http.js';
import { DoneNotice, ErrorText, fieldsOf, FormError } from '../components/fields.js';
import { adminPage, companyPath, CsrfField, type LayoutContext } from '../layout.js';
import { activeSession, companiesOf, companyScope, formOf, layoutFor, paramsOf, parseMode, queryOf } from '../scope.js';

const TIMEZONES = Intl.supportedValuesOf('timeZone');
const PROFILE_FIELDS = ['name', 'email', 'phone', 'address', 'timezone', 'currency', 'apiVersion'] as const;

function TimezoneSelect({ value, error, defaultLabel }: { value: string; error?: string; defaultLabel?: string }) {
  return (
    <>
      <label for="f-timezone">Time zone</label>
      <select
        id="f-timezone"
        name="timezone"
        {...(error ? { 'aria-invalid': 'true', 'aria-describedby': 'f-timezone-error' } : {})}
      >
        {defaultLabel && (
          <option value="" selected={!value}>
            {defaultLabel}
          </option>
        )}
        {value && !TIMEZONES.includes(value) && <option selected>{value}</option>}
        {TIMEZONES.map((z) => (
          <option selected={z === value}>{z}</option>
        ))}
      </select>
      <ErrorText id="f-timezone" error={error} />
    </>
  );
}

/** The API version requests without an API-Version header get (docs/api.md, Versions). */
function ApiVersionSelect({ value, error }: { value: string; error?: string }) {
  return (
    <>
      <label for="f-apiVersion">API version</label>
      <select
        id="f-apiVersion"
        name="apiVersion"
        aria-describedby={`f-apiVersion-hint${error ? ' f-apiVersion-error' : ''}`}
        aria-invalid={error ? 'true' : undefined}
      >
        {[...API_VERSIONS].reverse().map((v) => (
          <option value={v} selected={v === value}>
            {v}
            {v === LATEST_API_VERSION ? ' (latest)' : ''}
          </option>
        ))}
      </select>
      <span class="hint" id="f-apiVersion-hint">
        What API requests without an API-Version header get; docs/changelog.md lists what each version changed.
      </span>
      <ErrorText id="f-apiVersion" error={error} />
    </>
  );
}

export const TEMPLATE_LABELS: Record<string, string> = {
  hair_salon: 'Hair salon',
  clinic: 'Medical clinic',
  fitness: 'Fitness center',
};

/** The create-company form; in test mode it offers the sample templates. */
export function CreateCompanyForm({
  ctx,
  values = {},
  errors = null,
}: {
  ctx: LayoutContext;
  values?: Record<string, string>;
  errors?: Record<string, string> | null;
}) {
  const test = ctx.mode === 'test';
  const field = fieldsOf(values, errors);
  return (
    <form method="post" action={`/admin/${ctx.mode}/companies`} class="stack panel" id="create">
      <h2>Create a {test ? 'test ' : ''}company</h2>
      <FormError errors={errors} known={['name', 'timezone', 'currency', 'template']} />
      <CsrfField token={ctx.csrfToken} />
      {test && (
        <>
          <label for="f-template">Start from</label>
          <select id="f-template" name="template">
            <option value="">Blank company</option>
            {SAMPLE_ORDER.map((t) => (
              <option value={t} selected={values.template === t}>
                {TEMPLATE_LABELS[t]} template ({SAMPLE_TEMPLATES[t].name})
              </option>
            ))}
          </select>
        </>
      )}
      {field('name', 'Name', { hint: test ? 'Optional with a template' : undefined, maxlength: 200 })}
      <TimezoneSelect
        value={values.timezone ?? ''}
        error={errors?.timezone}
        defaultLabel={test ? 'The template’s, or UTC' : 'UTC (default)'}
      />
      {field('currency', 'Currency', {
        hint: test ? 'ISO 4217 code; empty: the template’s, or USD' : 'ISO 4217 code; empty: USD',
        maxlength: 3,
      })}
      <button type="submit" class="primary">
        Create company
      </button>
    </form>
  );
}

function CompanyList({ companies, mode }: { companies: Company[]; mode: Mode }) {
  if (companies.length === 0) return <p class="empty">No {mode === 'test' ? 'test ' : ''}companies yet.</p>;
  return (
    <div class="cards">
      {companies.map((c) => (
        <div class="panel">
          <h3>
            <a href={companyPath(c)}>{c.name}</a>
          </h3>
          <p class="muted">
            {c.timezone} · {c.currency}
            {c.template && (
              <>
                {' · '}
                <span class="badge test">{TEMPLATE_LABELS[c.template] ?? c.template} sample</span>
              </>
            )}
          </p>
        </div>
      ))}
    </div>
  );
}

function ProfileView({ c }: { c: Company }) {
  const rows: Array<[string, string | null]> = [
    ['Name', c.name],
    ['E-mail', c.email],
    ['Phone', c.phone],
    ['Address', c.address],
    ['Time zone', c.timezone],
    ['Currency', c.currency],
    ['Mode', c.mode],
    ['API version', c.apiVersion],
  ];
  return (
    <dl class="fields">
      {rows.map(([label, value]) => (
        <>
          <dt>{label}</dt>
          <dd>{value || <span class="muted">—</span>}</dd>
        </>
      ))}
      <dt>Company id</dt>
      <dd>
        <code>{c.id}</code>
      </dd>
      <dt>Created</dt>
      <dd>
        <TimeTag at={c.createdAt} zone={c.timezone} />
      </dd>
    </dl>
  );
}

function EditForm({
  ctx,
  c,
  values,
  errors,
}: {
  ctx: LayoutContext;
  c: Company;
  values: Record<string, string>;
  errors: Record<string, string> | null;
}) {
  const field = fieldsOf(values, errors);
  return (
    <form method="post" action={companyPath(c, '/edit')} class="stack panel">
      <FormError errors={errors} known={[...PROFILE_FIELDS]} />
      <CsrfField token={ctx.csrfToken} />
      {field('name', 'Name', { required: true, maxlength: 200 })}
      {field('email', 'E-mail', { type: 'email', maxlength: 254 })}
      {field('phone', 'Phone', { type: 'tel', hint: 'International format, e.g. +4930123456' })}
      {field('address', 'Address', { maxlength: 500 })}
      <TimezoneSelect value={values.timezone ?? 'UTC'} error={errors?.timezone} />
      {field('currency', 'Currency', { maxlength: 3 })}
      <ApiVersionSelect value={values.apiVersion ?? ''} error={errors?.apiVersion} />
      <button type="submit" class="primary">
        Save
      </button>{' '}
      <a class="button" href={companyPath(c)}>
        Cancel
      </a>
    </form>
  );
}

export function registerCompanyRoutes(app: FastifyInstance, services: Services): void {
  app.get('/:mode', { schema: { hide: true } }, async (req, reply) => {
    const mode = parseMode(paramsOf(req).mode);
    const ctx = await layoutFor(services, req, mode, 'companies');
    const body = (
      <>
        <h1>{mode === 'test' ? 'Test companies' : 'Companies'}</h1>
        {mode === 'test' && (
          <p class="muted">
            Test companies live in the sandbox: use a test key (<code>svc_sk_test_…</code>) with them.{' '}
            <a href="/admin/test/sandbox">Sandbox tools</a>
          </p>
        )}
        <CompanyList companies={ctx.companies} mode={mode} />
        <CreateCompanyForm ctx={ctx} />
      </>
    );
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
      const company = await createCompany(services.dbs, input, { week: services });
      return reply.redirect(companyPath(company, '?done=created'), 303);
    } catch (err) {
      const errors = fieldErrors(err);
      if (!errors) throw err;
      const ctx = await layoutFor(services, req, mode, 'companies');
      return sendAdmin(
        reply,
        400,
        adminPage(
          ctx,
          'Create a company',
          <>
            <h1>Create a company</h1>
            <CreateCompanyForm ctx={ctx} values={form} errors={errors} />
          </>,
        ),
      );
    }
  });

  app.get('/:mode/companies/:companyId', { schema: { hide: true } }, async (req, reply) => {
    const { company, ctx } = await companyScope(services, req, 'profile');
    const body = (
      <>
        <h1>
          {company.name} {company.mode === 'test' && <span class="badge test">Test</span>}
        </h1>
        <DoneNotice done={queryOf(req).done} table={{ created: 'Company created.', saved: 'Profile saved.' }} />
        <div class="panel">
          <ProfileView c={company} />
          <p>
            <a class="button" href={companyPath(company, '/edit')}>
              Edit profile
            </a>
          </p>
        </div>
      </>
    );
    return sendAdmin(reply, 200, adminPage(ctx, company.name, body));
  });

  app.get('/:mode/companies/:companyId/edit', { schema: { hide: true } }, async (req, reply) => {
    const { company, ctx } = await companyScope(services, req, 'profile');
    const values = Object.fromEntries(PROFILE_FIELDS.map((k) => [k, company[k] ?? '']));
    return sendAdmin(
      reply,
      200,
      adminPage(
        ctx,
        'Edit profile',
        <>
          <h1>Edit profile</h1>
          <EditForm ctx={ctx} c={company} values={values} errors={null} />
        </>,
      ),
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
        adminPage(
          ctx,
          'Edit profile',
          <>
            <h1>Edit profile</h1>
            <EditForm ctx={ctx} c={company} values={form} errors={errors} />
          </>,
        ),
      );
    }
    await services.credentials.invalidateCompany(company.id);
    return reply.redirect(companyPath(company, '?done=saved'), 303);
  });
}
