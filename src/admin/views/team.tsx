// The views of the team (routes/team.tsx holds the handlers): the members with their roles and
// open invitations with the invite form, the audit log with its filter, and the public page an
// invitation link opens.
import type { ComponentChildren } from 'preact';
import type { Employee, Invitation } from '../../generated/prisma/client.js';
import {
  invitationState,
  staffEmployeeOf,
  TEAM_ROLES,
  type auditFacets,
  type InvitationState,
  type listAudit,
  type MemberRow,
} from '../../schema/team/index.js';
import { PanelForm, PostButton } from '../components/action-form.js';
import { DataTable } from '../components/data-table.js';
import { DoneNotice, fieldsOf, Select } from '../components/fields.js';
import { TimeTag } from '../http.js';
import { adminPage, barePage, CsrfField } from '../layout.js';
import type { CompanyScope } from '../scope.js';

export const TEAM_DONE = {
  invited: 'Invitation sent. It is in the e-mail log and works once, for 7 days.',
  withdrawn: 'Invitation withdrawn.',
  changed: 'Role changed. It counts from the member’s next click.',
  removed: 'Member removed: their sessions ended and the apps they approved for this team were revoked.',
};

const ROLE_TEXT: Record<string, string> = {
  admin: 'Admin: everything the owner can do',
  staff: 'Staff: one employee’s bookings, calendar and customers',
  viewer: 'Viewer: reads everything but the integrations, changes nothing',
};

/** The owner's row first, then the members: one shape for the members table. */
type TeamRow = { owner: string } | MemberRow;

export function teamView(
  s: CompanyScope,
  d: {
    base: string;
    done: unknown;
    ownerEmail: string;
    members: MemberRow[];
    invitations: Invitation[];
    employees: Employee[];
    at: Date;
    values: Record<string, string>;
    errors: Record<string, string> | null;
  },
): string {
  const { base, values, errors, employees } = d;
  const employeeName = (id: string | null) => employees.find((e) => e.id === id)?.name;
  const rows: TeamRow[] = [{ owner: d.ownerEmail }, ...d.members];
  const member = (r: TeamRow) => ('owner' in r ? null : r);
  const field = fieldsOf(values, errors);
  const body = (
    <>
      <h1>Team</h1>
      <DoneNotice done={d.done} table={TEAM_DONE} />
      <p class="muted">
        The people who may use this account’s companies, in both modes. Staff see one employee’s bookings, calendar and
        customers; the employee is chosen per mode (this page links the {s.mode === 'test' ? 'test' : 'live'} employee).
      </p>
      <DataTable
        label="Members"
        rows={rows}
        empty=""
        columns={[
          { label: 'E-mail', cell: (r) => ('owner' in r ? r.owner : r.email) },
          { label: 'Role', cell: (r) => member(r)?.membership.role ?? 'owner' },
          {
            label: 'Employee here',
            cell: (r) => {
              const m = member(r)?.membership;
              if (m?.role !== 'staff') return '—';
              return employeeName(staffEmployeeOf(m, s.mode)) ?? 'none in this mode';
            },
          },
          {
            label: 'Change',
            cell: (r) => {
              const m = member(r);
              if (!m) return <span class="muted">The owning account</span>;
              return <MemberForms s={s} base={base} row={m} employees={employees} />;
            },
          },
        ]}
      />
      <h2>Open invitations</h2>
      <DataTable
        label="Invitations"
        rows={d.invitations}
        empty="No open invitations."
        columns={[
          { label: 'E-mail', cell: (i) => i.email },
          { label: 'Role', cell: (i) => i.role },
          {
            label: 'Expires',
            cell: (i) => (
              <>
                <TimeTag at={i.expiresAt} zone={s.company.timezone} />
                {invitationState(i, d.at) === 'expired' && ' (expired)'}
              </>
            ),
          },
          {
            label: 'Withdraw',
            cell: (i) => (
              <PostButton
                action={`${base}/invitations/${i.id}/withdraw`}
                csrf={s.ctx.csrfToken}
                class="inline"
                label="Withdraw"
                name={`Withdraw the invitation of ${i.email}`}
              />
            ),
          },
        ]}
      />
      <PanelForm
        action={`${base}/invitations`}
        csrf={s.ctx.csrfToken}
        title="Invite someone"
        errors={errors}
        known={['email', 'role', 'employeeId']}
        button="Send invitation"
      >
        {field('email', 'E-mail', { type: 'email', required: true, maxlength: 254 })}
        <Select
          id="f-role"
          name="role"
          label="Role"
          value={values.role ?? 'viewer'}
          options={TEAM_ROLES.map((r) => [r, ROLE_TEXT[r]!])}
          error={errors?.role}
        />
        <Select
          id="f-employeeId"
          name="employeeId"
          label="Employee (for staff)"
          value={values.employeeId ?? ''}
          options={[['', 'None'], ...employees.map((e): [string, string] => [e.id, e.name])]}
          error={errors?.employeeId}
        />
      </PanelForm>
    </>
  );
  return adminPage(s.ctx, 'Team', body, { crumbs: 'Team' });
}

/** A member's role form and remove button (the members table's last cell). */
function MemberForms({
  s,
  base,
  row,
  employees,
}: {
  s: CompanyScope;
  base: string;
  row: MemberRow;
  employees: Employee[];
}) {
  const { membership: m, email } = row;
  return (
    <>
      <form method="post" action={`${base}/members/${m.id}`} class="inline">
        <CsrfField token={s.ctx.csrfToken} />
        <label for={`role-${m.id}`} class="sr-only">
          Role of {email}
        </label>
        <select id={`role-${m.id}`} name="role">
          {TEAM_ROLES.map((r) => (
            <option value={r} selected={r === m.role}>
              {r}
            </option>
          ))}
        </select>
        <label for={`emp-${m.id}`} class="sr-only">
          Employee of {email} (for staff)
        </label>
        <select id={`emp-${m.id}`} name="employeeId">
          <option value="">No employee</option>
          {employees.map((e) => (
            <option value={e.id} selected={e.id === staffEmployeeOf(m, s.mode)}>
              {e.name}
            </option>
          ))}
        </select>
        <button type="submit">Save role</button>
      </form>
      <PostButton
        action={`${base}/members/${m.id}/remove`}
        csrf={s.ctx.csrfToken}
        class="inline"
        kind="danger"
        label="Remove"
        name={`Remove ${email}`}
      />
    </>
  );
}

function JsonCell({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <>—</>;
  return <pre class="text-body">{JSON.stringify(value, null, 2)}</pre>;
}

export function auditView(
  s: CompanyScope,
  d: {
    path: string;
    q: Record<string, string>;
    from?: Date;
    toDay?: Date;
    facets: Awaited<ReturnType<typeof auditFacets>>;
    page: Awaited<ReturnType<typeof listAudit>>;
    keep: string;
  },
): string {
  const { path, q, facets } = d;
  const { entries, next } = d.page;
  const body = (
    <>
      <h1>Audit log</h1>
      <p class="muted">
        Every change made in the admin area by this team, in both modes, newest first: who, what, when, and the record
        before and after where the page recorded them. Keys, tokens and secrets are never shown.
      </p>
      <form method="get" action={path} class="inline" aria-label="Filter the audit log">
        <div>
          <label for="f-actor">Who</label>
          <br />
          <select id="f-actor" name="actor">
            <option value="">Anyone</option>
            {facets.actors.map((a) => (
              <option value={a.id} selected={a.id === q.actor}>
                {a.email}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="f-action">Action</label>
          <br />
          <select id="f-action" name="action">
            <option value="">Any</option>
            {facets.actions.map((a) => (
              <option value={a} selected={a === q.action}>
                {a}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="f-from">From (UTC day)</label>
          <br />
          <input type="date" id="f-from" name="from" value={d.from ? q.from : ''} />
        </div>
        <div>
          <label for="f-to">To (UTC day)</label>
          <br />
          <input type="date" id="f-to" name="to" value={d.toDay ? q.to : ''} />
        </div>
        <button type="submit">Filter</button>
      </form>
      <DataTable
        label="Audit log"
        rows={entries}
        empty="No actions match."
        phone="scroll"
        columns={[
          { label: 'When', cell: (e) => <TimeTag at={e.at} seconds /> },
          { label: 'Who', cell: (e) => e.actorEmail },
          { label: 'Action', cell: (e) => <code>{e.action}</code> },
          {
            label: 'Where',
            cell: (e) => (
              <>
                {e.mode ?? '—'}
                {e.companyId && (
                  <>
                    {' '}
                    <code>{e.companyId}</code>
                  </>
                )}
              </>
            ),
          },
          {
            label: 'Record',
            cell: (e) => (
              <>
                {e.targetType ?? '—'} {e.targetId && <code>{e.targetId}</code>}
              </>
            ),
          },
          { label: 'Before', cell: (e) => <JsonCell value={e.before} /> },
          { label: 'After', cell: (e) => <JsonCell value={e.after} /> },
        ]}
      />
      {next && (
        <p>
          <a class="button" href={`${path}?before=${next}${d.keep}`}>
            Older actions
          </a>
        </p>
      )}
    </>
  );
  return adminPage(s.ctx, 'Audit log', body, { crumbs: 'Team' });
}

/** What the invitation page offers: accept, a wrong account's note, sign in, or choose a password. */
export type InvitationOffer =
  | { kind: 'accept'; csrf: string }
  | { kind: 'other-account'; signedInAs: string }
  | { kind: 'sign-in' }
  | { kind: 'password'; csrf: string; error?: string };

export function invitationView(
  d: { teamEmail: string; email: string; role: string; action: string },
  offer: InvitationOffer,
): string {
  const { email, action } = d;
  let form: ComponentChildren;
  if (offer.kind === 'accept')
    form = (
      <form method="post" action={action} class="stack">
        <CsrfField token={offer.csrf} />
        <button type="submit" class="primary">
          Accept the invitation
        </button>
      </form>
    );
  else if (offer.kind === 'other-account')
    form = (
      <p class="notice error" role="alert">
        You are signed in as {offer.signedInAs}. Sign out, then open this link again to accept it as {email}.
      </p>
    );
  else if (offer.kind === 'sign-in')
    form = (
      <p>
        <a class="button primary" href={`/admin/login?next=${encodeURIComponent(action)}`}>
          Sign in as {email} to accept
        </a>
      </p>
    );
  else
    form = (
      <form method="post" action={action} class="stack">
        <CsrfField token={offer.csrf} />
        <label for="f-password">Choose a password</label>
        <span class="hint" id="f-password-hint">
          At least 10 characters
        </span>
        <input
          id="f-password"
          name="password"
          type="password"
          autocomplete="new-password"
          required
          minlength={10}
          maxlength={256}
          aria-describedby={offer.error ? 'f-password-hint f-password-error' : 'f-password-hint'}
          aria-invalid={offer.error ? 'true' : undefined}
        />
        {offer.error && (
          <p class="field-error" id="f-password-error">
            {offer.error}
          </p>
        )}
        <button type="submit" class="primary">
          Create my account and accept
        </button>
      </form>
    );
  return barePage(
    'Invitation',
    <>
      <h1>Invitation</h1>
      <p>
        {d.teamEmail} invites <strong>{email}</strong> to their team as <strong>{d.role}</strong>.
      </p>
      {form}
    </>,
  );
}

export function invitationStateText(state: InvitationState): [string, string] {
  if (state === 'used') return ['Invitation already used', 'This invitation has been accepted already; it works once.'];
  if (state === 'withdrawn') return ['Invitation withdrawn', 'This invitation was withdrawn by the team.'];
  return ['Invitation expired', 'This invitation has expired (they last 7 days). Ask the team for a new one.'];
}

export function gonePage(title: string, message: string): string {
  return barePage(
    title,
    <>
      <h1>{title}</h1>
      <p class="notice error" role="alert">
        {message}
      </p>
      <p>
        <a href="/admin">Go to the admin area</a>
      </p>
    </>,
  );
}
