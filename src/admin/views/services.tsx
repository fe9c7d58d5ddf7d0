// The views of Company > Services (routes/services.tsx holds the handlers and the form's
// parsing): the list with its add form, and one service's page with every field of
// updateService, its questions and its staff, each refusal next to its field.
import type { ComponentChildren } from 'preact';
import type { Company } from '../../generated/prisma/client.js';
import { findService } from '../../schema/find-records.js';
import {
  listServicesByName,
  MAX_QUESTIONS,
  QUESTION_TYPES,
  storedCancellationPolicy,
  storedQuestions,
} from '../../schema/services/index.js';
import { listEmployeesByName } from '../../schema/staff/index.js';
import { PanelForm } from '../components/action-form.js';
import { DataTable } from '../components/data-table.js';
import { money } from '../http.js';
import { describedBy, ErrorText, Field, fieldsOf, FormError, HintText, TextArea } from '../components/fields.js';
import { amountValue, Check, Select } from '../forms.js';
import { adminPage, companyPath, CsrfField, mayWrite } from '../layout.js';
import { type CompanyScope } from '../scope.js';

export const SERVICES_DONE = {
  created: 'Service added. Set its staff, policy and questions below.',
  updated: 'Service saved.',
};
const crumbs = 'Services';
const KINDS: Array<[string, string]> = [
  ['appointment', 'Appointment (one customer with one staff member)'],
  ['class', 'Class (a session with several places)'],
];
const TYPE_LABELS: Record<string, string> = {
  text: 'Text',
  long_text: 'Long text',
  choice: 'One of the options',
  multi_choice: 'Several of the options',
  boolean: 'Yes or no',
  phone: 'Phone number',
};

const ActiveBadge = ({ active }: { active: boolean }) =>
  active ? <span class="badge enabled">Active</span> : <span class="badge disabled">Inactive</span>;

export type Service = Awaited<ReturnType<typeof findService>>;
type Errors = Record<string, string> | null;

export async function listPage(
  s: CompanyScope,
  top: ComponentChildren,
  create: { values?: Record<string, string>; errors?: Errors } = {},
): Promise<string> {
  const list = await listServicesByName(s.db, s.company.id);
  const errors = create.errors ?? null;
  const v = create.values ?? { kind: 'appointment', durationMinutes: '60', price: '' };
  const field = fieldsOf(v, errors);
  const body = (
    <>
      <h1>Services</h1>
      {top}
      <DataTable
        label="Services"
        rows={list}
        empty="No services yet."
        columns={[
          { label: 'Name', cell: (svc) => <a href={companyPath(s.company, `/services/${svc.id}`)}>{svc.name}</a> },
          { label: 'Kind', cell: (svc) => (svc.kind === 'class' ? 'Class' : 'Appointment') },
          { label: 'Duration', cell: (svc) => `${svc.durationMinutes} min` },
          { label: 'Price', cell: (svc) => money(svc.price, s.company.currency) },
          { label: 'Staff', cell: (svc) => svc.employees.length },
          { label: 'Status', cell: (svc) => <ActiveBadge active={svc.active} /> },
        ]}
      />
      {mayWrite(s.ctx) && (
        <PanelForm
          action={companyPath(s.company, '/services')}
          csrf={s.ctx.csrfToken}
          title="Add a service"
          errors={errors}
          known={['name', 'kind', 'durationMinutes', 'price']}
          button="Add service"
        >
          {field('name', 'Name', { required: true, maxlength: 200 })}
          <Select
            id="f-kind"
            name="kind"
            label="Kind"
            value={v.kind ?? 'appointment'}
            options={KINDS}
            hint="Fixed once the service exists"
            error={errors?.kind}
          />
          {field('durationMinutes', 'Duration (minutes)', { type: 'number', required: true })}
          {field('price', `Price (${s.company.currency})`, { hint: 'e.g. 45.00; empty: free' })}
        </PanelForm>
      )}
    </>
  );
  return adminPage(s.ctx, 'Services', body);
}

/** The form's raw fields for a service as stored (question rows `q.<i>.<field>`). */
function valuesOf(svc: Service, company: Company): Record<string, string> {
  const policy = storedCancellationPolicy(svc.cancellationPolicy);
  const v: Record<string, string> = {
    name: svc.name,
    description: svc.description ?? '',
    durationMinutes: String(svc.durationMinutes),
    price: amountValue(svc.price, company.currency),
    bufferBeforeMinutes: String(svc.bufferBeforeMinutes),
    bufferAfterMinutes: String(svc.bufferAfterMinutes),
    requiresPayment: svc.requiresPayment ? 'on' : '',
    depositAmount: svc.depositAmount === null ? '' : amountValue(svc.depositAmount, company.currency),
    freeUntilMinutesBefore: policy ? String(policy.freeUntilMinutesBefore) : '',
    lateFeeKind: policy && 'amount' in policy.lateFee ? 'amount' : 'percent',
    lateFee: policy
      ? 'amount' in policy.lateFee
        ? amountValue(policy.lateFee.amount, company.currency)
        : String(policy.lateFee.percent)
      : '',
    active: svc.active ? 'on' : '',
  };
  storedQuestions(svc.questions).forEach((q, i) => {
    v[`q.${i}.id`] = q.id;
    v[`q.${i}.label`] = q.label;
    v[`q.${i}.type`] = q.type;
    v[`q.${i}.required`] = q.required ? 'on' : '';
    v[`q.${i}.options`] = (q.options ?? []).join(', ');
  });
  return v;
}

export const rowCount = (v: Record<string, string>) => {
  let n = 0;
  while (n < MAX_QUESTIONS && (`q.${n}.id` in v || `q.${n}.label` in v)) n++;
  return n;
};

function QuestionRow({ i, v, errors }: { i: number; v: Record<string, string>; errors: Errors }) {
  const at = (f: string) => errors?.[`q.${i}.${f}`];
  const idOf = (f: string) => `q-${i}-${f}`;
  const optionsHint = 'For the choice types: options separated by commas';
  const rowError = errors?.[`q.${i}`];
  return (
    <fieldset>
      <legend>{v[`q.${i}.label`] ? `Question ${i + 1}: ${v[`q.${i}.label`]}` : `Question ${i + 1} (new)`}</legend>
      {rowError && <p class="field-error">{rowError}</p>}
      <Field
        id={idOf('label')}
        name={`q.${i}.label`}
        label="Question"
        value={v[`q.${i}.label`]}
        maxlength={200}
        error={at('label')}
      />
      <Field
        id={idOf('id')}
        name={`q.${i}.id`}
        label="Id"
        value={v[`q.${i}.id`]}
        maxlength={40}
        hint="The answer's key: letters, digits, _ or -"
        error={at('id')}
      />
      <Select
        id={idOf('type')}
        name={`q.${i}.type`}
        label="Answer"
        value={v[`q.${i}.type`] || 'text'}
        options={QUESTION_TYPES.map((t) => [t, TYPE_LABELS[t] ?? t])}
        error={at('type')}
      />
      <label for={idOf('options')}>Options</label>
      <HintText id={idOf('options')} hint={optionsHint} />
      <input
        id={idOf('options')}
        name={`q.${i}.options`}
        value={v[`q.${i}.options`] ?? ''}
        maxlength={5000}
        {...describedBy(idOf('options'), { hint: optionsHint, error: at('options') })}
      />
      <ErrorText id={idOf('options')} error={at('options')} />
      <Check id={idOf('required')} name={`q.${i}.required`} label="Required" checked={v[`q.${i}.required`] === 'on'} />
      {(v[`q.${i}.id`] || v[`q.${i}.label`]) && (
        <Check id={idOf('remove')} name={`q.${i}.remove`} label="Remove this question" checked={false} />
      )}
    </fieldset>
  );
}

export async function servicePage(
  s: CompanyScope,
  svc: Service,
  extra: { top?: ComponentChildren; values?: Record<string, string>; employeeIds?: string[]; errors?: Errors } = {},
): Promise<string> {
  const employees = await listEmployeesByName(s.db, s.company.id);
  const v = extra.values ?? valuesOf(svc, s.company);
  const errors = extra.errors ?? null;
  const field = fieldsOf(v, errors);
  const ticked = extra.employeeIds ?? svc.employees.map((e) => e.employeeId);
  const rows = rowCount(v);
  const write = mayWrite(s.ctx);
  const cur = s.company.currency;
  const descriptionHint = 'Shown to customers; optional';
  const known = [
    'name',
    'description',
    'durationMinutes',
    'price',
    'bufferBeforeMinutes',
    'bufferAfterMinutes',
    'requiresPayment',
    'depositAmount',
    'freeUntilMinutesBefore',
    'lateFee',
    'employeeIds',
    'active',
    ...Array.from({ length: rows + 1 }, (_, i) =>
      ['id', 'label', 'type', 'options', 'required'].map((f) => `q.${i}.${f}`),
    ).flat(),
    ...Array.from({ length: rows + 1 }, (_, i) => `q.${i}`),
  ];
  const body = (
    <>
      <h1>
        {svc.name} <ActiveBadge active={svc.active} />
      </h1>
      <p>
        <a href={companyPath(s.company, '/services')}>← All services</a>
      </p>
      {extra.top}
      <form method="post" action={companyPath(s.company, `/services/${svc.id}`)} class="stack panel">
        <FormError errors={errors} known={known} />
        <CsrfField token={s.ctx.csrfToken} />
        {/* Viewers read: every control disabled, no button. */}
        <fieldset class="plain" disabled={!write}>
          {!write && <legend class="sr-only">Read only</legend>}
          <h2>The service</h2>
          <p class="muted">
            Kind: <strong>{svc.kind === 'class' ? 'Class' : 'Appointment'}</strong> (fixed).{' '}
            {svc.kind === 'class' && (
              <a href={companyPath(s.company, '/classes')}>Its sessions are on the timetable.</a>
            )}
          </p>
          {field('name', 'Name', { required: true, maxlength: 200 })}
          <TextArea
            name="description"
            label="Description"
            value={v.description}
            hint={descriptionHint}
            error={errors?.description}
            maxlength={5000}
          />
          {field('durationMinutes', 'Duration (minutes)', { type: 'number', required: true })}
          {field('bufferBeforeMinutes', 'Buffer before (minutes)', {
            type: 'number',
            hint: 'Time kept free before each booking',
          })}
          {field('bufferAfterMinutes', 'Buffer after (minutes)', {
            type: 'number',
            hint: 'Time kept free after each booking',
          })}
          <Check
            id="f-active"
            name="active"
            label="Active (can be booked)"
            checked={v.active === 'on'}
            error={errors?.active}
          />

          <h2>Price and payment</h2>
          {field('price', `Price (${cur})`, { hint: 'e.g. 45.00; empty: free' })}
          <Check
            id="f-requiresPayment"
            name="requiresPayment"
            label="Paid when booked (the booking waits for the payment)"
            checked={v.requiresPayment === 'on'}
            error={errors?.requiresPayment}
          />
          {field('depositAmount', `Deposit (${cur})`, {
            hint: 'Paid first instead of the whole price; at most the price; empty: none',
          })}

          <h2>Cancellation policy</h2>
          {field('freeUntilMinutesBefore', 'Free cancellation until (minutes before the start)', {
            type: 'number',
            hint: 'Empty: no policy, cancelling is always free',
          })}
          <Select
            id="f-lateFeeKind"
            name="lateFeeKind"
            label="Late fee is"
            value={v.lateFeeKind ?? 'percent'}
            options={[
              ['percent', 'a percentage of the price'],
              ['amount', `an amount (${cur})`],
            ]}
          />
          {field('lateFee', 'Late fee', { hint: '0 to 100 for a percentage; at most the price for an amount' })}

          <h2>Staff who perform it</h2>
          {employees.length ? (
            <fieldset>
              <legend>Staff</legend>
              {employees.map((e) => (
                <label>
                  <input
                    type="checkbox"
                    name="employeeIds"
                    value={e.id}
                    checked={ticked.includes(e.id)}
                    aria-describedby={errors?.employeeIds ? 'f-employeeIds-error' : undefined}
                  />{' '}
                  {e.name}
                  {!e.active && <span class="muted"> (inactive)</span>}
                </label>
              ))}
              <ErrorText id="f-employeeIds" error={errors?.employeeIds} />
            </fieldset>
          ) : (
            <p class="empty">
              No staff yet: <a href={companyPath(s.company, '/staff')}>add someone</a>.
            </p>
          )}

          <h2>Questions asked at booking</h2>
          <p class="muted">
            Up to {MAX_QUESTIONS}. Fill in the empty one to add a question; save to get another empty one.
          </p>
          {Array.from({ length: Math.min(rows + 1, MAX_QUESTIONS) }, (_, i) => (
            <QuestionRow i={i} v={v} errors={errors} />
          ))}
        </fieldset>
        {write && (
          <button type="submit" class="primary">
            Save service
          </button>
        )}
      </form>
    </>
  );
  return adminPage(s.ctx, svc.name, body, { crumbs });
}
