// GET/POST /oauth/authorize and the login form behind it (docs/oauth.md). GET validates the
// request, then shows the login page (no session) or the consent page; the consent form posts
// back here, is validated again (it may have been tampered with), checked against the
// session's CSRF token, and answered with a 303 to the client's redirect URI carrying `code`,
// `state` and `iss` — or `error=access_denied`, `state` and `iss` when the user says no.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isManager, listAccessibleCompanies } from '../../schema/team/index.js';
import { fieldsOf } from '../pages/request-fields.js';
import type { Services } from '../../services.js';
import { consentPage, OPT_IN_FIELD, type CompanyChoice } from '../pages/consent-page.js';
import { errorPage, sendPage } from '../pages/html.js';
import { loginPage } from '../pages/login-page.js';
import {
  checkLoginCsrf,
  isSafeNext,
  LoginChecker,
  loginCsrfToken,
  readSession,
  sameSecret,
  startSession,
  endSession,
  type ActiveSession,
} from '../sessions.js';
import { AUTHORIZE_PARAMS, checkAuthorizeRequest, CONTROL_CHARS, type AuthorizeCheck } from './authorize-request.js';
import { issueCode } from './grants.js';
import { issuerOf } from './metadata.js';
import { OPT_IN_SCOPES } from '../scopes.js';
import { buildRedirect } from './redirect-uri.js';

type Form = Record<string, unknown>;
type Company = { id: string; mode: 'live' | 'test'; name: string };

/**
 * The companies the person may let an app act for: only those they own or are an admin of
 * (docs/oauth.md, Who may consent). A staff member or viewer could otherwise mint a credential
 * with every scope. The consent post re-reads this list, so any other company is refused there.
 */
async function companiesOf(
  services: Services,
  accountId: string,
  opts: { all?: boolean } = {},
): Promise<Array<CompanyChoice & { company: Company }>> {
  const [live, test] = await Promise.all([
    listAccessibleCompanies(services.dbs, { accountId, mode: 'live' }),
    listAccessibleCompanies(services.dbs, { accountId, mode: 'test' }),
  ]);
  // A token's mode is its company's: test companies give svc_at_test_ tokens (docs/oauth.md).
  return [...live, ...test]
    .filter((a) => opts.all || isManager(a.role))
    .map(({ company: c }) => ({
      value: `${c.mode}:${c.id}`,
      label: `${c.name} (${c.mode === 'live' ? 'live' : 'test'})`,
      company: c,
    }));
}

function authorizePath(params: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, v);
  return `/oauth/authorize?${q.toString()}`;
}

function pickParams(form: Form): Form {
  const out: Form = {};
  for (const k of AUTHORIZE_PARAMS) if (form[k] !== undefined) out[k] = form[k];
  return out;
}

export function registerAuthorizeRoutes(app: FastifyInstance, services: Services): void {
  const logins = new LoginChecker(services);

  const showLogin = (
    req: FastifyRequest,
    reply: FastifyReply,
    next: string,
    extra: { status?: number; error?: string; email?: string; intro?: string } = {},
  ) =>
    sendPage(
      reply,
      extra.status ?? 200,
      loginPage({ action: '/oauth/login', csrfToken: loginCsrfToken(req, reply), next, ...extra }),
    );

  /** Answers a checked request: error page, error redirect, login page or consent page. */
  async function answer(
    req: FastifyRequest,
    reply: FastifyReply,
    check: AuthorizeCheck,
    active: ActiveSession | null,
    status: 302 | 303,
  ) {
    if (check.kind === 'page') return sendPage(reply, 400, errorPage(check.title, check.message));
    const iss = issuerOf(services, req);
    if (check.kind === 'redirect') {
      return reply.redirect(
        buildRedirect(check.redirectUri, {
          error: check.error,
          error_description: check.description,
          state: check.state,
          iss,
        }),
        status,
      );
    }
    if (!active)
      return showLogin(req, reply, authorizePath(check.params), {
        intro: `Sign in to continue to ${check.client.name}.`,
      });
    const companies = await companiesOf(services, active.account.id);
    if (companies.length === 0) {
      // Nothing can be granted. The client and redirect URI are valid, so RFC 6749 §4.1.2.1
      // says: tell the client, with access_denied (the server denies), state and iss.
      return reply.redirect(
        buildRedirect(check.redirectUri, {
          error: 'access_denied',
          error_description: 'The account has no company to grant access to',
          state: check.state,
          iss,
        }),
        status,
      );
    }
    return sendPage(
      reply,
      200,
      consentPage({
        action: '/oauth/authorize',
        clientName: check.client.name,
        redirectHost: new URL(check.redirectUri).host || check.redirectUri,
        accountEmail: active.account.email,
        scopes: check.scopes,
        companies,
        csrfToken: active.session.csrfToken,
        params: check.params,
      }),
    );
  }

  app.get('/oauth/authorize', { schema: { hide: true } }, async (req, reply) => {
    const check = await checkAuthorizeRequest(services, fieldsOf(req.query));
    return answer(req, reply, check, check.kind === 'ok' ? await readSession(services, req) : null, 302);
  });

  app.post('/oauth/authorize', { schema: { hide: true } }, async (req, reply) => {
    const form = fieldsOf(req.body);
    const check = await checkAuthorizeRequest(services, pickParams(form));
    if (check.kind !== 'ok') return answer(req, reply, check, null, 303);
    const active = await readSession(services, req);
    if (!active)
      return showLogin(req, reply, authorizePath(check.params), { intro: 'Your session ended; sign in again.' });
    if (!sameSecret(active.session.csrfToken, form.csrf_token)) {
      return sendPage(
        reply,
        403,
        errorPage('Form expired', 'This form is no longer valid. Go back to the application and start again.'),
      );
    }
    const iss = issuerOf(services, req);
    if (form.decision === 'deny') {
      return reply.redirect(
        buildRedirect(check.redirectUri, {
          error: 'access_denied',
          error_description: 'The user denied the request',
          state: check.state,
          iss,
        }),
        303,
      );
    }
    if (form.decision !== 'approve')
      return sendPage(reply, 400, errorPage('Invalid request', 'Choose Approve or Deny.'));
    // Opt-in scopes are granted only when their box was ticked (never preselected, docs/oauth.md).
    const ticked = new Set(([] as unknown[]).concat(form[OPT_IN_FIELD] ?? []));
    const granted = check.scopes.filter((s) => !OPT_IN_SCOPES.has(s) || ticked.has(s));
    if (granted.length === 0)
      return sendPage(reply, 400, errorPage('Invalid request', 'Tick at least one permission, or choose Deny.'));
    const choice = (await companiesOf(services, active.account.id)).find((c) => c.value === form.company);
    if (!choice) {
      // A company of the person's team where their role may not approve: refused in words.
      const seen = (await companiesOf(services, active.account.id, { all: true })).some(
        (c) => c.value === form.company,
      );
      if (seen)
        return sendPage(
          reply,
          403,
          errorPage('Not allowed', 'Only an owner or admin of a company may let an app act for it.'),
        );
      return sendPage(reply, 400, errorPage('Invalid request', 'Choose one of your companies.'));
    }
    const code = await issueCode(services, {
      clientId: check.client.clientId,
      accountId: active.account.id,
      companyId: choice.company.id,
      mode: choice.company.mode,
      scope: granted.join(' '),
      redirectUri: check.redirectUri,
      redirectUriGiven: check.redirectUriGiven,
      codeChallenge: check.codeChallenge,
      codeChallengeMethod: check.codeChallengeMethod,
    });
    req.log.info(
      { clientId: check.client.clientId, accountId: active.account.id, companyId: choice.company.id },
      'oauth consent approved',
    );
    return reply.redirect(buildRedirect(check.redirectUri, { code, state: check.state, iss }), 303);
  });

  app.post('/oauth/login', { schema: { hide: true } }, async (req, reply) => {
    const form = fieldsOf(req.body);
    const next = isSafeNext(form.next) ? form.next : '/oauth/authorize';
    if (!checkLoginCsrf(req, form.csrf_token)) {
      return showLogin(req, reply, next, { status: 403, error: 'The form expired; please sign in again.' });
    }
    const email = typeof form.email === 'string' ? form.email.slice(0, 254) : '';
    const password = typeof form.password === 'string' ? form.password.slice(0, 256) : '';
    if (!email || !password)
      return showLogin(req, reply, next, { status: 400, error: 'Enter your e-mail and password.', email });
    // No e-mail address has a control character (and PostgreSQL refuses NUL); a password may
    // hold any character but NUL, which no keyboard types.
    if (CONTROL_CHARS.test(email) || password.includes('\u0000')) {
      return showLogin(req, reply, next, {
        status: 400,
        error: 'The e-mail or password contains characters that are not allowed.',
      });
    }
    const result = await logins.check(email, password, req.ip);
    if (!result.ok && result.reason === 'rate_limited') {
      reply.header('retry-after', String(result.retryAfter));
      return showLogin(req, reply, next, {
        status: 429,
        error: `Too many failed attempts. Try again in ${Math.ceil(result.retryAfter / 60)} minutes.`,
        email,
      });
    }
    // 200 like any re-shown form (a 401 would need a WWW-Authenticate scheme forms do not have).
    if (!result.ok) return showLogin(req, reply, next, { error: 'The e-mail or password is wrong.', email });
    await startSession(services, req, reply, result.account.id);
    return reply.redirect(next, 303);
  });

  app.post('/oauth/logout', { schema: { hide: true } }, async (req, reply) => {
    const form = fieldsOf(req.body);
    const active = await readSession(services, req);
    if (active && !sameSecret(active.session.csrfToken, form.csrf_token)) {
      return sendPage(reply, 403, errorPage('Form expired', 'This form is no longer valid.'));
    }
    await endSession(services, req, reply);
    return reply.redirect(isSafeNext(form.next) ? form.next : '/oauth/authorize', 303);
  });
}
