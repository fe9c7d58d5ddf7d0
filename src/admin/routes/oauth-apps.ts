// OAuth apps (docs/oauth.md, docs/admin.md): the account's registered clients. Registering runs
// createOAuthClient (the same use case as `svc oauth-client create`): exact redirect URIs, the
// scopes it may ask for, public (PKCE, no secret) or confidential (a secret shown once).
// Deleting revokes everything the client holds (deleteOAuthClient). Below them, the apps this
// person authorised for their own companies, each of which they can revoke (revokeAuthorizedApp).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SCOPE_DESCRIPTIONS } from '../../auth/pages/consent-page.js';
import { esc } from '../../auth/pages/html.js';
import { SCOPES } from '../../auth/scopes.js';
import type { OAuthClient } from '../../generated/prisma/client.js';
import {
  createOAuthClient,
  deleteOAuthClient,
  findOAuthClient,
  listAuthorizedApps,
  listOAuthClients,
  revokeAuthorizedApp,
  type AuthorizedApp,
} from '../../schema/credentials/index.js';
import type { Services } from '../../services.js';
import {
  describedBy,
  doneNotice,
  errorText,
  field,
  fieldErrors,
  formError,
  hintText,
  sendAdmin,
  timeTag,
} from '../http.js';
import { accountPath, adminPage, csrfField, type LayoutContext } from '../layout.js';
import { activeSession, formList, formOf, layoutFor, modeOfRequest, paramsOf, queryOf } from '../scope.js';
import { shownOnceBox } from './api-keys.js';

interface FormState {
  values: Record<string, string>;
  scopes: string[];
  errors: Record<string, string> | null;
}

const redirectHint = 'One per line; matched exactly. https, or http on a loopback address.';

function registerForm(ctx: LayoutContext, state: FormState): string {
  const { values, errors } = state;
  // Nothing is ticked on a new form: an app gets the scopes its developer chose, not all of them.
  const checked = (s: string) => (state.scopes.includes(s) ? ' checked' : '');
  const type = values.type === 'public' ? 'public' : 'confidential';
  return `<form method="post" action="${accountPath('/oauth-apps', ctx.mode)}" class="stack panel">
      <h2>Register an app</h2>
      ${formError(errors, ['name', 'redirectUris', 'scopes', 'type'])}
      ${csrfField(ctx.csrfToken)}
      ${field({ name: 'name', label: 'App name', value: values.name, required: true, maxlength: 100, hint: 'Shown to people on the consent page', error: errors?.name })}
      <label for="f-redirect">Redirect URIs</label>
      ${hintText('f-redirect', redirectHint)}
      <textarea id="f-redirect" name="redirect_uris" required${describedBy('f-redirect', { hint: redirectHint, error: errors?.redirectUris })}>${esc(values.redirect_uris ?? '')}</textarea>
      ${errorText('f-redirect', errors?.redirectUris)}
      <fieldset><legend>Client type</legend>
        <label><input type="radio" name="type" value="confidential"${type === 'confidential' ? ' checked' : ''}> Confidential: a server that keeps a client secret</label>
        <label><input type="radio" name="type" value="public"${type === 'public' ? ' checked' : ''}> Public: a mobile, desktop or browser app (PKCE, no secret)</label>
      </fieldset>
      <fieldset${describedBy('f-scopes', { error: errors?.scopes }, { invalid: false })}><legend>Scopes the app may ask for</legend>
        ${SCOPES.map((s) => `<label><input type="checkbox" name="scopes" value="${s}"${checked(s)}${describedBy('f-scopes', { error: errors?.scopes })}> <code>${s}</code> <span class="muted">${esc(SCOPE_DESCRIPTIONS[s])}</span></label>`).join('')}
        ${errorText('f-scopes', errors?.scopes)}
      </fieldset>
      <button type="submit" class="primary">Register app</button>
    </form>`;
}

function clientTable(ctx: LayoutContext, clients: OAuthClient[]): string {
  if (clients.length === 0) return '<p class="empty">No apps registered yet.</p>';
  return `<table><thead><tr><th scope="col">Name</th><th scope="col">Client id</th><th scope="col">Type</th><th scope="col">Redirect URIs</th><th scope="col">Created</th><th scope="col"><span class="muted">Actions</span></th></tr></thead><tbody>
    ${clients
      .map(
        (c) => `<tr><td>${esc(c.name)}</td><td><code>${esc(c.clientId)}</code></td><td>${esc(c.type)}</td>
      <td>${c.redirectUris.map((u) => `<code>${esc(u)}</code>`).join('<br>')}</td><td>${timeTag(c.createdAt)}</td>
      <td class="actions"><a class="danger-text" href="${accountPath(`/oauth-apps/${c.id}/delete`, ctx.mode)}" aria-label="Delete ${esc(c.name)}">Delete</a></td></tr>`,
      )
      .join('')}
    </tbody></table>`;
}

function authorizedTable(ctx: LayoutContext, apps: AuthorizedApp[]): string {
  if (apps.length === 0) return '<p class="empty">You have not authorised any app.</p>';
  return `<table><thead><tr><th scope="col">App</th><th scope="col">Company</th><th scope="col">Permissions</th><th scope="col">Authorised</th><th scope="col"><span class="muted">Actions</span></th></tr></thead><tbody>
    ${apps
      .map(
        (a) => `<tr><td>${esc(a.clientName)}</td><td>${esc(a.companyName)} (${a.mode === 'live' ? 'live' : 'test'})</td>
      <td>${a.scope
        .split(' ')
        .map((s) => `<code>${esc(s)}</code>`)
        .join(' ')}</td><td>${timeTag(a.createdAt)}</td>
      <td class="actions"><form method="post" action="${accountPath(`/authorized-apps/${a.grantId}/revoke`, ctx.mode)}">${csrfField(ctx.csrfToken)}
        <button type="submit" class="danger" aria-label="Revoke ${esc(a.clientName)} for ${esc(a.companyName)}">Revoke</button></form></td></tr>`,
      )
      .join('')}
    </tbody></table>`;
}

/** OAuth apps belong to the account, not to a mode: the page keeps the mode it was opened in. */
async function oauthLayout(services: Services, req: FastifyRequest): Promise<LayoutContext> {
  const mode = modeOfRequest(req);
  const ctx = await layoutFor(services, req, mode, 'oauth-apps');
  return { ...ctx, switchHref: accountPath('/oauth-apps', mode === 'test' ? 'live' : 'test') };
}

async function listPage(
  services: Services,
  req: FastifyRequest,
  reply: FastifyReply,
  extra: { top?: string; state?: FormState; status?: number } = {},
) {
  const ctx = await oauthLayout(services, req);
  const accountId = activeSession(req).account.id;
  const [clients, authorized] = await Promise.all([
    listOAuthClients(services.dbs, accountId),
    listAuthorizedApps(services.dbs, accountId),
  ]);
  const body = `<h1>OAuth apps</h1>${extra.top ?? ''}
    <p class="muted">Apps that act for other businesses' companies with their consent (OAuth 2.1, authorization code with PKCE). An app is registered once for the account and is the same in live and test mode.</p>
    ${clientTable(ctx, clients)}
    ${registerForm(ctx, extra.state ?? { values: {}, scopes: [], errors: null })}
    <h2 id="authorized">Apps you authorised</h2>
    <p class="muted">Apps you approved on a consent page, for your own companies. Revoking one ends its access and refresh tokens at once; it has to ask you again.</p>
    ${authorizedTable(ctx, authorized)}`;
  return sendAdmin(reply, extra.status ?? 200, adminPage(ctx, 'OAuth apps', body));
}

async function findClient(services: Services, req: FastifyRequest): Promise<OAuthClient> {
  return findOAuthClient(services.dbs, { accountId: activeSession(req).account.id, id: paramsOf(req).id });
}

export function registerOAuthAppRoutes(app: FastifyInstance, services: Services): void {
  app.get('/oauth-apps', { schema: { hide: true } }, async (req, reply) =>
    listPage(services, req, reply, {
      top: doneNotice(queryOf(req).done, {
        deleted: 'The app was deleted and all its tokens revoked.',
        revoked: 'The app’s access was revoked.',
      }),
    }),
  );

  app.post('/oauth-apps', { schema: { hide: true } }, async (req, reply) => {
    const form = formOf(req);
    const scopes = formList(req, 'scopes');
    const redirectUris = (form.redirect_uris ?? '')
      .split(/\r?\n/)
      .map((u) => u.trim())
      .filter(Boolean);
    try {
      const { client, clientSecret } = await createOAuthClient(services.dbs, {
        accountId: activeSession(req).account.id,
        name: form.name ?? '',
        redirectUris,
        scopes,
        type: form.type === 'public' ? 'public' : 'confidential',
      });
      const top =
        `<p class="notice ok" role="status">Registered “${esc(client.name)}”. Client id: <code id="client-id">${esc(client.clientId)}</code></p>` +
        (clientSecret
          ? shownOnceBox(
              'Client secret',
              clientSecret,
              'client-secret',
              'Copy the client secret now and store it on your server. It will not be shown again.',
            )
          : '');
      return listPage(services, req, reply, { top });
    } catch (err) {
      const errors = fieldErrors(err);
      if (!errors) throw err;
      return listPage(services, req, reply, { state: { values: form, scopes, errors }, status: 400 });
    }
  });

  app.post('/authorized-apps/:id/revoke', { schema: { hide: true } }, async (req, reply) => {
    // Only a grant this person approved: another's, or an unknown id, is the admin area's 404.
    await revokeAuthorizedApp(services.dbs, services.credentials, {
      accountId: activeSession(req).account.id,
      grantId: paramsOf(req).id ?? '',
    });
    return reply.redirect(`${accountPath('/oauth-apps', modeOfRequest(req), 'done=revoked')}#authorized`, 303);
  });

  app.get('/oauth-apps/:id/delete', { schema: { hide: true } }, async (req, reply) => {
    const client = await findClient(services, req);
    const ctx = await oauthLayout(services, req);
    const body = `<h1>Delete the app “${esc(client.name)}”?</h1><div class="panel">
      <p>Client id <code>${esc(client.clientId)}</code>. Every access and refresh token it holds is revoked at once, and people will have to approve it again if it is registered anew. This cannot be undone.</p>
      <form method="post" action="${accountPath(`/oauth-apps/${client.id}/delete`, ctx.mode)}">${csrfField(ctx.csrfToken)}
        <button type="submit" class="danger">Delete app</button> <a class="button" href="${accountPath('/oauth-apps', ctx.mode)}">Cancel</a></form></div>`;
    return sendAdmin(reply, 200, adminPage(ctx, 'Delete app', body));
  });

  app.post('/oauth-apps/:id/delete', { schema: { hide: true } }, async (req, reply) => {
    const client = await findClient(services, req);
    await deleteOAuthClient(services.dbs, services.credentials, {
      accountId: activeSession(req).account.id,
      id: client.id,
    });
    return reply.redirect(accountPath('/oauth-apps', modeOfRequest(req), 'done=deleted'), 303);
  });
}
