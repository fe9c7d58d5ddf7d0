// OAuth apps (docs/oauth.md, docs/admin.md): the account's registered clients. Registering runs
// createOAuthClient (the same use case as `svc oauth-client create`): exact redirect URIs, the
// scopes it may ask for, public (PKCE, no secret) or confidential (a secret shown once).
// Deleting revokes everything the client holds (deleteOAuthClient). Below them, the apps this
// person authorised for their own companies, each of which they can revoke (revokeAuthorizedApp).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ComponentChildren } from 'preact';
import { SCOPE_DESCRIPTIONS } from '../../auth/pages/consent-page.js';
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
import { ConfirmForm, PanelForm, PostButton } from '../components/action-form.js';
import { DataTable } from '../components/data-table.js';
import { fieldErrors, sendAdmin, TimeTag } from '../http.js';
import { describedBy, DoneNotice, ErrorText, fieldsOf, TextArea } from '../components/fields.js';
import { accountPath, adminPage, type LayoutContext } from '../layout.js';
import { activeSession, formList, formOf, layoutFor, modeOfRequest, paramsOf, queryOf } from '../scope.js';
import { ShownOnceBox } from './api-keys.js';

interface FormState {
  values: Record<string, string>;
  scopes: string[];
  errors: Record<string, string> | null;
}

const redirectHint = 'One per line; matched exactly. https, or http on a loopback address.';

function RegisterForm({ ctx, state }: { ctx: LayoutContext; state: FormState }) {
  const { values, errors } = state;
  const field = fieldsOf(values, errors);
  // Nothing is ticked on a new form: an app gets the scopes its developer chose, not all of them.
  const type = values.type === 'public' ? 'public' : 'confidential';
  return (
    <PanelForm
      action={accountPath('/oauth-apps', ctx.mode)}
      csrf={ctx.csrfToken}
      title="Register an app"
      errors={errors}
      known={['name', 'redirectUris', 'scopes', 'type']}
      button="Register app"
    >
      {field('name', 'App name', { required: true, maxlength: 100, hint: 'Shown to people on the consent page' })}
      <TextArea
        name="redirect_uris"
        id="f-redirect"
        label="Redirect URIs"
        value={values.redirect_uris}
        hint={redirectHint}
        error={errors?.redirectUris}
        required
      />
      <fieldset>
        <legend>Client type</legend>
        <label>
          <input type="radio" name="type" value="confidential" checked={type === 'confidential'} /> Confidential: a
          server that keeps a client secret
        </label>
        <label>
          <input type="radio" name="type" value="public" checked={type === 'public'} /> Public: a mobile, desktop or
          browser app (PKCE, no secret)
        </label>
      </fieldset>
      <fieldset {...describedBy('f-scopes', { error: errors?.scopes }, { invalid: false })}>
        <legend>Scopes the app may ask for</legend>
        {SCOPES.map((s) => (
          <label>
            <input
              type="checkbox"
              name="scopes"
              value={s}
              checked={state.scopes.includes(s)}
              {...describedBy('f-scopes', { error: errors?.scopes })}
            />{' '}
            <code>{s}</code> <span class="muted">{SCOPE_DESCRIPTIONS[s]}</span>
          </label>
        ))}
        <ErrorText id="f-scopes" error={errors?.scopes} />
      </fieldset>
    </PanelForm>
  );
}

function ClientTable({ ctx, clients }: { ctx: LayoutContext; clients: OAuthClient[] }) {
  return (
    <DataTable
      label="Registered apps"
      rows={clients}
      empty="No apps registered yet."
      columns={[
        { label: 'Name', cell: (c) => c.name },
        { label: 'Client id', cell: (c) => <code>{c.clientId}</code> },
        { label: 'Type', cell: (c) => c.type },
        {
          label: 'Redirect URIs',
          cell: (c) =>
            c.redirectUris.map((u, i) => (
              <>
                {i > 0 && <br />}
                <code>{u}</code>
              </>
            )),
        },
        { label: 'Created', cell: (c) => <TimeTag at={c.createdAt} /> },
      ]}
      actions={(c) => (
        <a
          class="danger-text"
          href={accountPath(`/oauth-apps/${c.id}/delete`, ctx.mode)}
          aria-label={`Delete ${c.name}`}
        >
          Delete
        </a>
      )}
    />
  );
}

function AuthorizedTable({ ctx, apps }: { ctx: LayoutContext; apps: AuthorizedApp[] }) {
  return (
    <DataTable
      label="Authorised apps"
      rows={apps}
      empty="You have not authorised any app."
      columns={[
        { label: 'App', cell: (a) => a.clientName },
        { label: 'Company', cell: (a) => `${a.companyName} (${a.mode === 'live' ? 'live' : 'test'})` },
        {
          label: 'Permissions',
          cell: (a) =>
            a.scope.split(' ').map((s, i) => (
              <>
                {i > 0 && ' '}
                <code>{s}</code>
              </>
            )),
        },
        { label: 'Authorised', cell: (a) => <TimeTag at={a.createdAt} /> },
      ]}
      actions={(a) => (
        <PostButton
          action={accountPath(`/authorized-apps/${a.grantId}/revoke`, ctx.mode)}
          csrf={ctx.csrfToken}
          kind="danger"
          label="Revoke"
          name={`Revoke ${a.clientName} for ${a.companyName}`}
        />
      )}
    />
  );
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
  extra: { top?: ComponentChildren; state?: FormState; status?: number } = {},
) {
  const ctx = await oauthLayout(services, req);
  const accountId = activeSession(req).account.id;
  const [clients, authorized] = await Promise.all([
    listOAuthClients(services.dbs, accountId),
    listAuthorizedApps(services.dbs, accountId),
  ]);
  const body = (
    <>
      <h1>OAuth apps</h1>
      {extra.top}
      <p class="muted">
        Apps that act for other businesses' companies with their consent (OAuth 2.1, authorization code with PKCE). An
        app is registered once for the account and is the same in live and test mode.
      </p>
      <ClientTable ctx={ctx} clients={clients} />
      <RegisterForm ctx={ctx} state={extra.state ?? { values: {}, scopes: [], errors: null }} />
      <h2 id="authorized">Apps you authorised</h2>
      <p class="muted">
        Apps you approved on a consent page, for your own companies. Revoking one ends its access and refresh tokens at
        once; it has to ask you again.
      </p>
      <AuthorizedTable ctx={ctx} apps={authorized} />
    </>
  );
  return sendAdmin(reply, extra.status ?? 200, adminPage(ctx, 'OAuth apps', body));
}

async function findClient(services: Services, req: FastifyRequest): Promise<OAuthClient> {
  return findOAuthClient(services.dbs, { accountId: activeSession(req).account.id, id: paramsOf(req).id });
}

export function registerOAuthAppRoutes(app: FastifyInstance, services: Services): void {
  app.get('/oauth-apps', { schema: { hide: true } }, async (req, reply) =>
    listPage(services, req, reply, {
      top: (
        <DoneNotice
          done={queryOf(req).done}
          table={{
            deleted: 'The app was deleted and all its tokens revoked.',
            revoked: 'The app’s access was revoked.',
          }}
        />
      ),
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
      const top = (
        <>
          <p class="notice ok" role="status">
            Registered “{client.name}”. Client id: <code id="client-id">{client.clientId}</code>
          </p>
          {clientSecret && (
            <ShownOnceBox
              title="Client secret"
              value={clientSecret}
              id="client-secret"
              warning="Copy the client secret now and store it on your server. It will not be shown again."
            />
          )}
        </>
      );
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
    const body = (
      <>
        <h1>Delete the app “{client.name}”?</h1>
        <div class="panel">
          <ConfirmForm
            action={accountPath(`/oauth-apps/${client.id}/delete`, ctx.mode)}
            csrf={ctx.csrfToken}
            button="Delete app"
            danger
            back={accountPath('/oauth-apps', ctx.mode)}
            what={
              <>
                Client id <code>{client.clientId}</code>. Every access and refresh token it holds is revoked at once,
                and people will have to approve it again if it is registered anew. This cannot be undone.
              </>
            }
          />
        </div>
      </>
    );
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
