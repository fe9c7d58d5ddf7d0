// The team of a company's owning account (docs/admin.md, Team and roles): its members with their
// roles, open invitations, inviting by e-mail, changing a role, removing a member; the audit log
// of the team's admin actions; and the public page an invitation link opens. Owners and admins
// only (the guard, src/admin/roles.ts); the invitation page needs no session.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { checkLoginCsrf, loginCsrfToken, nowOf, readSession, sameSecret, startSession } from '../../auth/sessions.js';
import type { Employee } from '../../generated/prisma/client.js';
import { isAppError } from '../../errors.js';
import {
  acceptInvitation,
  auditFacets,
  changeMemberRole,
  createInvitation,
  findInvitation,
  invitationState,
  listAudit,
  listMembers,
  listOpenInvitations,
  logInvitationEmail,
  removeMember,
  staffEmployeeOf,
  TEAM_ROLES,
  teamOwnerEmail,
  withdrawInvitation,
  type InvitationState,
} from '../../schema/team/index.js';
import { listEmployeesByName } from '../../schema/staff/index.js';
import type { Services } from '../../services.js';
import {
  describedBy,
  DoneNotice,
  ErrorText,
  Field,
  fieldErrors,
  FormError,
  ScrollTable,
  sendAdmin,
  TimeTag,
} from '../http.js';
import { adminPage, barePage, companyPath, CsrfField } from '../layout.js';
import { companyScope, formOf, paramsOf, queryOf, type CompanyScope } from '../scope.js';

const DONE = {
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

const now = (services: Services) => new Date(nowOf(services));

function EmployeeSelect({
  id,
  employees,
  selected,
  error,
  label = 'Employee (for staff)',
}: {
  id: string;
  employees: Employee[];
  selected?: string | null;
  error?: string;
  label?: string;
}) {
  return (
    <>
      <label for={id}>{label}</label>
      <select id={id} name="employeeId" {...describedBy(id, { error })}>
        <option value="">None</option>
        {employees.map((e) => (
          <option value={e.id} selected={e.id === selected}>
            {e.name}
          </option>
        ))}
      </select>
      <ErrorText id={id} error={error} />
    </>
  );
}

async function teamPage(
  services: Services,
  req: FastifyRequest,
  reply: FastifyReply,
  s: CompanyScope,
  extra: { values?: Record<string, string>; errors?: Record<string, string> | null; status?: number } = {},
) {
  const team = s.company.accountId;
  const [ownerEmail, members, invitations, employees] = await Promise.all([
    teamOwnerEmail(services.dbs, team),
    listMembers(services.dbs, team),
    listOpenInvitations(services.dbs, team),
    listEmployeesByName(s.db, s.company.id),
  ]);
  const at = now(services);
  const employeeName = (id: string | null) => employees.find((e) => e.id === id)?.name;
  const base = companyPath(s.company, '/team');
  const values = extra.values ?? {};
  const errors = extra.errors ?? null;
  const body = (
    <>
      <h1>Team</h1>
      <DoneNotice done={queryOf(req).done} table={DONE} />
      <p class="muted">
        The people who may use this account’s companies, in both modes. Staff see one employee’s bookings, calendar and
        customers; the employee is chosen per mode (this page links the {s.mode === 'test' ? 'test' : 'live'} employee).
      </p>
      <ScrollTable label="Members table">
        <table aria-label="Members">
          <thead>
            <tr>
              <th scope="col">E-mail</th>
              <th scope="col">Role</th>
              <th scope="col">Employee here</th>
              <th scope="col">Change</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <td>{ownerEmail}</td>
              <td>owner</td>
              <td>—</td>
              <td class="muted">The owning account</td>
            </tr>
            {members.map(({ membership: m, email }) => (
              <tr>
                <td>{email}</td>
                <td>{m.role}</td>
                <td>{m.role === 'staff' ? (employeeName(staffEmployeeOf(m, s.mode)) ?? 'none in this mode') : '—'}</td>
                <td>
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
                  <form method="post" action={`${base}/members/${m.id}/remove`} class="inline">
                    <CsrfField token={s.ctx.csrfToken} />
                    <button type="submit" class="danger" aria-label={`Remove ${email}`}>
                      Remove
                    </button>
                  </form>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollTable>
      <h2>Open invitations</h2>
      {invitations.length === 0 ? (
        <p class="empty">No open invitations.</p>
      ) : (
        <ScrollTable label="Invitations table">
          <table aria-label="Invitations">
            <thead>
              <tr>
                <th scope="col">E-mail</th>
                <th scope="col">Role</th>
                <th scope="col">Expires</th>
                <th scope="col">Withdraw</th>
              </tr>
            </thead>
            <tbody>
              {invitations.map((i) => (
                <tr>
                  <td>{i.email}</td>
                  <td>{i.role}</td>
                  <td>
                    <TimeTag at={i.expiresAt} zone={s.company.timezone} />
                    {invitationState(i, at) === 'expired' && ' (expired)'}
                  </td>
                  <td>
                    <form method="post" action={`${base}/invitations/${i.id}/withdraw`} class="inline">
                      <CsrfField token={s.ctx.csrfToken} />
                      <button type="submit" aria-label={`Withdraw the invitation of ${i.email}`}>
                        Withdraw
                      </button>
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      )}
      <form method="post" action={`${base}/invitations`} class="stack panel">
        <h2>Invite someone</h2>
        <FormError errors={errors} known={['email', 'role', 'employeeId']} />
        <CsrfField token={s.ctx.csrfToken} />
        <Field
          name="email"
          label="E-mail"
          type="email"
          value={values.email}
          required
          maxlength={254}
          error={errors?.email}
        />
        <label for="f-role">Role</label>
        <select id="f-role" name="role" {...describedBy('f-role', { error: errors?.role })}>
          {TEAM_ROLES.map((r) => (
            <option value={r} selected={r === (values.role ?? 'viewer')}>
              {ROLE_TEXT[r]}
            </option>
          ))}
        </select>
        <ErrorText id="f-role" error={errors?.role} />
        <EmployeeSelect
          id="f-employeeId"
          employees={employees}
          selected={values.employeeId}
          error={errors?.employeeId}
        />
        <button type="submit" class="primary">
          Send invitation
        </button>
      </form>
    </>
  );
  return sendAdmin(reply, extra.status ?? 200, adminPage(s.ctx, 'Team', body, { crumbs: 'Team' }));
}

/** A validation error's or a CONFLICT's words by field, for the re-shown form. */
function formErrors(err: unknown): Record<string, string> | null {
  const found = fieldErrors(err);
  if (found) return found;
  if (isAppError(err) && err.code === 'CONFLICT') {
    const field = (err.details as { field?: string } | undefined)?.field ?? '_';
    return { [field]: err.message };
  }
  return null;
}

const AUDIT_PAGE = 50;

function JsonCell({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <>—</>;
  return <pre class="text-body">{JSON.stringify(value, null, 2)}</pre>;
}

export function registerTeamRoutes(app: FastifyInstance, services: Services): void {
  const base = '/:mode/companies/:companyId/team';

  app.get(base, { schema: { hide: true } }, async (req, reply) =>
    teamPage(services, req, reply, await companyScope(services, req, 'team')),
  );

  app.post(`${base}/invitations`, { schema: { hide: true } }, async (req, reply) => {
    const s = await companyScope(services, req, 'team');
    const form = formOf(req);
    const at = now(services);
    try {
      const { invitation, token } = await createInvitation(services.dbs, {
        teamAccountId: s.company.accountId,
        invitedById: s.accountId,
        mode: s.mode,
        companyId: s.company.id,
        input: { email: form.email?.trim(), role: form.role, employeeId: form.employeeId || undefined },
        now: at,
      });
      await logInvitationEmail(s.db, services.config, {
        mode: s.mode,
        companyId: s.company.id,
        companyName: s.company.name,
        invitation,
        token,
        now: at,
      });
      req.audit({
        targetType: 'invitation',
        targetId: invitation.id,
        after: { email: invitation.email, role: invitation.role, employeeId: invitation.employeeId },
      });
      return reply.redirect(companyPath(s.company, '/team?done=invited'), 303);
    } catch (err) {
      const errors = formErrors(err);
      if (!errors) throw err;
      return teamPage(services, req, reply, s, {
        values: form,
        errors,
        status: isAppError(err) ? err.status : 400,
      });
    }
  });

  app.post(`${base}/invitations/:invitationId/withdraw`, { schema: { hide: true } }, async (req, reply) => {
    const s = await companyScope(services, req, 'team');
    const i = await withdrawInvitation(services.dbs, {
      teamAccountId: s.company.accountId,
      invitationId: paramsOf(req).invitationId ?? '',
      now: now(services),
    });
    req.audit({ before: { email: i.email, role: i.role } });
    return reply.redirect(companyPath(s.company, '/team?done=withdrawn'), 303);
  });

  app.post(`${base}/members/:membershipId`, { schema: { hide: true } }, async (req, reply) => {
    const s = await companyScope(services, req, 'team');
    const form = formOf(req);
    try {
      const { before, after } = await changeMemberRole(services.dbs, services.credentials, {
        teamAccountId: s.company.accountId,
        membershipId: paramsOf(req).membershipId ?? '',
        mode: s.mode,
        companyId: s.company.id,
        input: { role: form.role, employeeId: form.employeeId || undefined },
        now: now(services),
      });
      const shown = (m: typeof before) => ({
        role: m.role,
        liveEmployeeId: m.liveEmployeeId,
        testEmployeeId: m.testEmployeeId,
      });
      req.audit({ action: 'team.change-role', before: shown(before), after: shown(after) });
      return reply.redirect(companyPath(s.company, '/team?done=changed'), 303);
    } catch (err) {
      const errors = formErrors(err);
      if (!errors) throw err;
      return teamPage(services, req, reply, s, { errors, status: 400 });
    }
  });

  app.post(`${base}/members/:membershipId/remove`, { schema: { hide: true } }, async (req, reply) => {
    const s = await companyScope(services, req, 'team');
    const removed = await removeMember(services.dbs, services.credentials, {
      teamAccountId: s.company.accountId,
      membershipId: paramsOf(req).membershipId ?? '',
      now: now(services),
    });
    req.audit({
      before: { email: removed.email, role: removed.membership.role },
      after: { sessionsEnded: removed.sessionsEnded, grantsRevoked: removed.grantsRevoked },
    });
    return reply.redirect(companyPath(s.company, '/team?done=removed'), 303);
  });

  app.get('/:mode/companies/:companyId/audit', { schema: { hide: true } }, async (req, reply) => {
    const s = await companyScope(services, req, 'audit');
    const q = queryOf(req);
    const day = (v: string | undefined) =>
      v && /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`))
        ? new Date(`${v}T00:00:00Z`)
        : undefined;
    const from = day(q.from);
    const toDay = day(q.to);
    const to = toDay ? new Date(toDay.getTime() + 86_400_000) : undefined;
    const [{ entries, next }, facets] = await Promise.all([
      listAudit(services.dbs, {
        teamAccountId: s.company.accountId,
        actorAccountId: q.actor || undefined,
        action: q.action || undefined,
        from,
        to,
        before: q.before,
        limit: AUDIT_PAGE,
      }),
      auditFacets(services.dbs, s.company.accountId),
    ]);
    const path = companyPath(s.company, '/audit');
    const keep = (['actor', 'action', 'from', 'to'] as const)
      .filter((k) => q[k])
      .map((k) => `&${k}=${encodeURIComponent(q[k]!)}`)
      .join('');
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
            <input type="date" id="f-from" name="from" value={from ? q.from : ''} />
          </div>
          <div>
            <label for="f-to">To (UTC day)</label>
            <br />
            <input type="date" id="f-to" name="to" value={toDay ? q.to : ''} />
          </div>
          <button type="submit">Filter</button>
        </form>
        {entries.length === 0 ? (
          <p class="empty">No actions match.</p>
        ) : (
          <ScrollTable label="Audit log table">
            <table aria-label="Audit log">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Who</th>
                  <th scope="col">Action</th>
                  <th scope="col">Where</th>
                  <th scope="col">Record</th>
                  <th scope="col">Before</th>
                  <th scope="col">After</th>
                </tr>
              </thead>
              <tbody>
                {entries.map((e) => (
                  <tr>
                    <td>
                      <TimeTag at={e.at} seconds />
                    </td>
                    <td>{e.actorEmail}</td>
                    <td>
                      <code>{e.action}</code>
                    </td>
                    <td>
                      {e.mode ?? '—'}
                      {e.companyId && (
                        <>
                          {' '}
                          <code>{e.companyId}</code>
                        </>
                      )}
                    </td>
                    <td>
                      {e.targetType ?? '—'} {e.targetId && <code>{e.targetId}</code>}
                    </td>
                    <td>
                      <JsonCell value={e.before} />
                    </td>
                    <td>
                      <JsonCell value={e.after} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollTable>
        )}
        {next && (
          <p>
            <a class="button" href={`${path}?before=${next}${keep}`}>
              Older actions
            </a>
          </p>
        )}
      </>
    );
    return sendAdmin(reply, 200, adminPage(s.ctx, 'Audit log', body, { crumbs: 'Team' }));
  });

  // The invitation link: no session needed. Signed in with the invited e-mail → Accept; no
  // account with it → choose a password; an account exists → sign in first.
  const invitationPage = async (req: FastifyRequest, reply: FastifyReply, error?: string, status = 200) => {
    const token = paramsOf(req).token ?? '';
    let found;
    try {
      found = await findInvitation(services.dbs, token);
    } catch {
      return sendAdmin(reply, 404, gonePage('Invitation not found', 'This invitation link is not valid.'));
    }
    const state = invitationState(found.invitation, now(services));
    if (state !== 'open') return sendAdmin(reply, 410, gonePage(...stateText(state)));
    const active = await readSession(services, req);
    const i = found.invitation;
    const action = `/admin/invitations/${token}`;
    const next = encodeURIComponent(action);
    const intro = (
      <p>
        {found.teamEmail} invites <strong>{i.email}</strong> to their team as <strong>{i.role}</strong>.
      </p>
    );
    let form;
    if (active && active.account.email === i.email)
      form = (
        <form method="post" action={action} class="stack">
          <input type="hidden" name="csrf_token" value={active.session.csrfToken} />
          <button type="submit" class="primary">
            Accept the invitation
          </button>
        </form>
      );
    else if (active)
      form = (
        <p class="notice error" role="alert">
          You are signed in as {active.account.email}. Sign out, then open this link again to accept it as {i.email}.
        </p>
      );
    else if (found.account)
      form = (
        <p>
          <a class="button primary" href={`/admin/login?next=${next}`}>
            Sign in as {i.email} to accept
          </a>
        </p>
      );
    else
      form = (
        <form method="post" action={action} class="stack">
          <input type="hidden" name="csrf_token" value={loginCsrfToken(req, reply)} />
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
            aria-describedby={error ? 'f-password-hint f-password-error' : 'f-password-hint'}
            aria-invalid={error ? 'true' : undefined}
          />
          {error && (
            <p class="field-error" id="f-password-error">
              {error}
            </p>
          )}
          <button type="submit" class="primary">
            Create my account and accept
          </button>
        </form>
      );
    return sendAdmin(
      reply,
      status,
      barePage(
        'Invitation',
        <>
          <h1>Invitation</h1>
          {intro}
          {form}
        </>,
      ),
    );
  };

  app.get('/invitations/:token', { schema: { hide: true } }, async (req, reply) => invitationPage(req, reply));

  app.post('/invitations/:token', { schema: { hide: true } }, async (req, reply) => {
    const token = paramsOf(req).token ?? '';
    const form = formOf(req);
    const active = await readSession(services, req);
    const csrfOk = active
      ? sameSecret(active.session.csrfToken, form.csrf_token)
      : checkLoginCsrf(req, form.csrf_token);
    if (!csrfOk)
      return sendAdmin(
        reply,
        403,
        gonePage('Form expired', 'This form is no longer valid. Open the invitation link again.'),
      );
    const at = now(services);
    try {
      const { account } = await acceptInvitation(services.dbs, {
        token,
        now: at,
        ...(active ? { accountId: active.account.id } : { password: form.password ?? '' }),
      });
      if (!active) await startSession(services, req, reply, account.id);
      req.log.info({ accountId: account.id }, 'team invitation accepted');
      return reply.redirect('/admin', 303);
    } catch (err) {
      const errors = fieldErrors(err);
      if (errors?.password) return invitationPage(req, reply, `Password ${errors.password}`, 400);
      if (isAppError(err) && err.code === 'NOT_FOUND')
        return sendAdmin(reply, 404, gonePage('Invitation not found', 'This invitation link is not valid.'));
      if (isAppError(err) && (err.code === 'CONFLICT' || err.code === 'FORBIDDEN'))
        return sendAdmin(
          reply,
          err.status === 409 ? 410 : err.status,
          gonePage('Invitation not accepted', err.message),
        );
      throw err;
    }
  });
}

function stateText(state: InvitationState): [string, string] {
  if (state === 'used') return ['Invitation already used', 'This invitation has been accepted already; it works once.'];
  if (state === 'withdrawn') return ['Invitation withdrawn', 'This invitation was withdrawn by the team.'];
  return ['Invitation expired', 'This invitation has expired (they last 7 days). Ask the team for a new one.'];
}

function gonePage(title: string, message: string): string {
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
