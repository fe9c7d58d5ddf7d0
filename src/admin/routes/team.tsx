// The team of a company's owning account (docs/admin.md, Team and roles): its members with their
// roles, open invitations, inviting by e-mail, changing a role, removing a member; the audit log
// of the team's admin actions; and the public page an invitation link opens. Owners and admins
// only (the guard, src/admin/roles.ts); the invitation page needs no session. The pages are views/team.tsx.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { checkLoginCsrf, loginCsrfToken, nowOf, readSession, sameSecret, startSession } from '../../auth/sessions.js';
import { isAppError } from '../../errors.js';
import { listEmployeesByName } from '../../schema/staff/index.js';
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
  teamOwnerEmail,
  withdrawInvitation,
} from '../../schema/team/index.js';
import type { Services } from '../../services.js';
import { fieldErrors, sendAdmin } from '../http.js';
import { companyPath } from '../layout.js';
import { companyScope, formOf, paramsOf, queryOf, type CompanyScope, companyRoutes } from '../scope.js';
import {
  auditView,
  gonePage,
  invitationStateText,
  invitationView,
  teamView,
  type InvitationOffer,
} from '../views/team.js';

const now = (services: Services) => new Date(nowOf(services));

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
  const html = teamView(s, {
    base: companyPath(s.company, '/team'),
    done: queryOf(req).done,
    ownerEmail,
    members,
    invitations,
    employees,
    at: now(services),
    values: extra.values ?? {},
    errors: extra.errors ?? null,
  });
  return sendAdmin(reply, extra.status ?? 200, html);
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

export function registerTeamRoutes(app: FastifyInstance, services: Services): void {
  const pages = companyRoutes(app, services, 'team');
  const base = '/:mode/companies/:companyId/team';

  pages.get(base, async (s, req, reply) => teamPage(services, req, reply, s));

  pages.post(`${base}/invitations`, async (s, req, reply) => {
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

  pages.post(`${base}/invitations/:invitationId/withdraw`, async (s, req, reply) => {
    const i = await withdrawInvitation(services.dbs, {
      teamAccountId: s.company.accountId,
      invitationId: paramsOf(req).invitationId ?? '',
      now: now(services),
    });
    req.audit({ before: { email: i.email, role: i.role } });
    return reply.redirect(companyPath(s.company, '/team?done=withdrawn'), 303);
  });

  pages.post(`${base}/members/:membershipId`, async (s, req, reply) => {
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

  pages.post(`${base}/members/:membershipId/remove`, async (s, req, reply) => {
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
    const [page, facets] = await Promise.all([
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
    return sendAdmin(reply, 200, auditView(s, { path, q, from, toDay, facets, page, keep }));
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
    if (state !== 'open') return sendAdmin(reply, 410, gonePage(...invitationStateText(state)));
    const active = await readSession(services, req);
    const i = found.invitation;
    let offer: InvitationOffer;
    if (active && active.account.email === i.email) offer = { kind: 'accept', csrf: active.session.csrfToken };
    else if (active) offer = { kind: 'other-account', signedInAs: active.account.email };
    else if (found.account) offer = { kind: 'sign-in' };
    else offer = { kind: 'password', csrf: loginCsrfToken(req, reply), error };
    const action = `/admin/invitations/${token}`;
    return sendAdmin(
      reply,
      status,
      invitationView({ teamEmail: found.teamEmail, email: i.email, role: i.role, action }, offer),
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
