// Integrations > API Keys (docs/admin.md: created by name in the admin area, test keys under
// the Test Keys section, shown for copying at creation, revoked/deleted there; "keys are rotated
// regularly"). A new or rolled key is rendered in the answer to the POST that made it and never
// again: only its SHA-256 is stored. Revoke, delete and roll go through a confirmation page.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ComponentChildren } from 'preact';
import type { ApiKey } from '../../generated/prisma/client.js';
import {
  createApiKey,
  deleteApiKey,
  listApiKeys,
  revokeApiKey,
  MAX_ROLL_GRACE_SECONDS,
  rollApiKey,
} from '../../schema/credentials/index.js';
import { findApiKey } from '../../schema/find-records.js';
import type { Services } from '../../services.js';
import { ConfirmForm } from '../components/action-form.js';
import { fieldErrors, sendAdmin, TimeTag } from '../http.js';
import { DoneNotice, Field, FormError } from '../components/fields.js';
import { DataTable } from '../components/data-table.js';
import { adminPage, companyPath, CsrfField } from '../layout.js';
import { formOf, paramsOf, queryOf, type CompanyScope, companyRoutes } from '../scope.js';

const GRACE_CHOICES: Array<[number, string]> = [
  [0, 'Stop the old key now'],
  [60 * 60, '1 hour'],
  [24 * 60 * 60, '24 hours'],
  [3 * 24 * 60 * 60, '3 days'],
  [MAX_ROLL_GRACE_SECONDS, '7 days'],
];

const DONE = {
  revoked: 'The key was revoked. Requests with it are refused from now on.',
  deleted: 'The key was deleted.',
};

function KeyStatus({ k, now, zone }: { k: ApiKey; now: number; zone: string }) {
  if (k.revokedAt) return <span class="badge revoked">Revoked</span>;
  if (k.expiresAt && k.expiresAt.getTime() <= now) return <span class="badge expired">Expired</span>;
  if (k.expiresAt)
    return (
      <>
        <span class="badge expiring">Expires</span> <TimeTag at={k.expiresAt} zone={zone} />
      </>
    );
  return <span class="badge active">Active</span>;
}

/**
 * Roll is offered for an active key with no end date only. A key in its grace period has been
 * rolled already (its successor is in the list): rolling it again would make a third key, so it
 * offers Revoke (stop it now) and Delete instead. Revoked or expired keys only Delete.
 */
function rollable(k: ApiKey): boolean {
  return !k.revokedAt && !k.expiresAt;
}

function KeyTable({ s, keys }: { s: CompanyScope; keys: ApiKey[] }) {
  const now = Date.now();
  const zone = s.company.timezone;
  return (
    <DataTable
      label="Keys"
      rows={keys}
      empty="No keys yet. Create one below."
      caption={<span class="muted">Only the prefix and the last four characters are kept. Times in {zone}.</span>}
      columns={[
        { label: 'Name', cell: (k) => k.name },
        {
          label: 'Key',
          cell: (k) => (
            <code>
              {k.prefix}…{k.last4}
            </code>
          ),
        },
        { label: 'Created', cell: (k) => <TimeTag at={k.createdAt} zone={zone} /> },
        { label: 'Last used', cell: (k) => <TimeTag at={k.lastUsedAt} zone={zone} /> },
        { label: 'Status', cell: (k) => <KeyStatus k={k} now={now} zone={zone} /> },
      ]}
      actions={(k) => {
        const usable = !k.revokedAt && !(k.expiresAt && k.expiresAt.getTime() <= now);
        const base = companyPath(s.company, `/api-keys/${k.id}`);
        // A rolled key and its successor share a name: the last four tell their links apart.
        const label = `${k.name} (…${k.last4})`;
        return (
          <>
            {rollable(k) && (
              <>
                <a href={`${base}/roll`} aria-label={`Roll ${label}`}>
                  Roll
                </a>{' '}
              </>
            )}
            {usable && (
              <a href={`${base}/revoke`} aria-label={`Revoke ${label}`}>
                Revoke
              </a>
            )}{' '}
            <a href={`${base}/delete`} class="danger-text" aria-label={`Delete ${label}`}>
              Delete
            </a>
          </>
        );
      }}
    />
  );
}

/** The one time a key is shown: a copy button (script) and a warning. */
export function ShownOnceBox({
  title,
  value,
  id,
  warning,
}: {
  title: string;
  value: string;
  id: string;
  warning: string;
}) {
  return (
    <section class="secret-box" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{title}</h2>
      <p class="notice warn" role="alert">
        <strong>{warning}</strong>
      </p>
      <div class="secret-row">
        <code id={id}>{value}</code>
        <button type="button" data-copy={id} hidden>
          Copy
        </button>
      </div>
    </section>
  );
}

async function listPage(
  services: Services,
  reply: FastifyReply,
  s: CompanyScope,
  extra: { top?: ComponentChildren; name?: string; errors?: Record<string, string> | null; status?: number } = {},
) {
  const keys = await listApiKeys(s.db, s.company.id);
  const test = s.mode === 'test';
  const body = (
    <>
      <h1>API Keys</h1>
      {extra.top}
      <section aria-labelledby="keys-title">
        <h2 id="keys-title">{test ? 'Test Keys' : 'Live Keys'}</h2>
        <p class="muted">
          {test ? (
            <>
              Test keys (<code>svc_sk_test_…</code>) work against this sandbox company only: no real e-mails, simulated
              payments.
            </>
          ) : (
            <>
              Live keys (<code>svc_sk_live_…</code>) act on real data. Keep them on your server; never put them in a
              browser or an app.
            </>
          )}
        </p>
        <KeyTable s={s} keys={keys} />
      </section>
      <form method="post" action={companyPath(s.company, '/api-keys')} class="stack panel">
        <h2>Create a {test ? 'test' : 'live'} key</h2>
        <FormError errors={extra.errors ?? null} known={['name']} />
        <CsrfField token={s.ctx.csrfToken} />
        <Field
          name="name"
          label="Key name"
          value={extra.name}
          required
          maxlength={100}
          hint='What uses it, e.g. "Website booking widget"'
          error={extra.errors?.name}
        />
        <button type="submit" class="primary">
          Create key
        </button>
      </form>
    </>
  );
  return sendAdmin(reply, extra.status ?? 200, adminPage(s.ctx, 'API Keys', body, { crumbs: 'Integrations' }));
}

/** The key of the URL, if it is this company's (NOT_FOUND is the admin area's 404). */
async function findKey(s: CompanyScope, req: FastifyRequest): Promise<ApiKey> {
  return findApiKey(s.db, s.company.id, paramsOf(req).keyId);
}

function confirmPage(s: CompanyScope, key: ApiKey, action: 'revoke' | 'delete'): string {
  const inGrace = key.expiresAt && !key.revokedAt && key.expiresAt.getTime() > Date.now();
  const verb = action === 'revoke' ? 'Revoke' : 'Delete';
  return adminPage(
    s.ctx,
    `${verb} key`,
    <>
      <h1>
        {verb} the key “{key.name}”?
      </h1>
      <div class="panel">
        <p>
          <code>
            {key.prefix}…{key.last4}
          </code>
        </p>
        <p>
          {action === 'revoke' ? (
            <>
              {inGrace && (
                <>
                  This key was rolled and keeps working until <TimeTag at={key.expiresAt} zone={s.company.timezone} />;
                  revoking it stops it now.{' '}
                </>
              )}
              Requests with this key will be refused at once, on every server. The key stays in the list as revoked.
            </>
          ) : (
            'The key is removed from the list and requests with it are refused at once. This cannot be undone.'
          )}
        </p>
        <ConfirmForm
          class=""
          action={companyPath(s.company, `/api-keys/${key.id}/${action}`)}
          csrf={s.ctx.csrfToken}
          button={`${verb} key`}
          danger
          back={companyPath(s.company, '/api-keys')}
        />
      </div>
    </>,
    { crumbs: 'Integrations › API Keys' },
  );
}

export function registerApiKeyRoutes(app: FastifyInstance, services: Services): void {
  const pages = companyRoutes(app, services, 'api-keys');
  const base = '/:mode/companies/:companyId/api-keys';

  pages.get(base, async (s, req, reply) => {
    return listPage(services, reply, s, { top: <DoneNotice done={queryOf(req).done} table={DONE} /> });
  });

  pages.post(base, async (s, req, reply) => {
    const form = formOf(req);
    try {
      const { key, apiKey } = await createApiKey(s.db, { companyId: s.company.id, name: (form.name ?? '').trim() });
      // The key itself never goes into the audit log: its name and what the list shows of it.
      req.audit({
        targetType: 'apiKey',
        targetId: apiKey.id,
        after: { name: apiKey.name, prefix: apiKey.prefix, last4: apiKey.last4 },
      });
      req.log.info({ companyId: s.company.id }, 'admin created an API key');
      return listPage(services, reply, s, {
        top: (
          <ShownOnceBox
            title="Your new key"
            value={key}
            id="new-key"
            warning="Copy this key now and store it safely. It will not be shown again."
          />
        ),
      });
    } catch (err) {
      const errors = fieldErrors(err);
      if (!errors) throw err;
      return listPage(services, reply, s, { name: form.name, errors, status: 400 });
    }
  });

  for (const action of ['revoke', 'delete'] as const) {
    pages.get(`${base}/:keyId/${action}`, async (s, req, reply) => {
      return sendAdmin(reply, 200, confirmPage(s, await findKey(s, req), action));
    });
    pages.post(`${base}/:keyId/${action}`, async (s, req, reply) => {
      const key = await findKey(s, req);
      const shown = { name: key.name, prefix: key.prefix, last4: key.last4, revokedAt: key.revokedAt };
      req.audit(action === 'revoke' ? { before: shown } : { before: shown, after: null });
      if (action === 'revoke')
        await revokeApiKey(services.dbs, services.credentials, { keyId: key.id, companyId: s.company.id });
      else await deleteApiKey(s.db, services.credentials, { keyId: key.id, companyId: s.company.id });
      return reply.redirect(companyPath(s.company, `/api-keys?done=${action}d`), 303);
    });
  }

  const notRollable = (s: CompanyScope, reply: FastifyReply, key: ApiKey) =>
    sendAdmin(
      reply,
      409,
      adminPage(
        s.ctx,
        'Roll key',
        <>
          <h1>This key cannot be rolled</h1>
          <p class="notice error" role="alert">
            {key.revokedAt || (key.expiresAt && key.expiresAt.getTime() <= Date.now())
              ? 'It is revoked or expired. Create a new key instead.'
              : 'It has been rolled already and is in its grace period: its successor is in the list. To stop it before then, revoke it.'}
          </p>
          <p>
            <a href={companyPath(s.company, '/api-keys')}>Back to the keys</a>
          </p>
        </>,
        { crumbs: 'Integrations › API Keys' },
      ),
    );

  pages.get(`${base}/:keyId/roll`, async (s, req, reply) => {
    const key = await findKey(s, req);
    if (!rollable(key)) return notRollable(s, reply, key);
    const body = (
      <>
        <h1>Roll the key “{key.name}”</h1>
        <div class="panel">
          <p>
            A new key replaces{' '}
            <code>
              {key.prefix}…{key.last4}
            </code>
            . Deploy the new key, then let the old one stop.
          </p>
          <ConfirmForm
            class=""
            action={companyPath(s.company, `/api-keys/${key.id}/roll`)}
            csrf={s.ctx.csrfToken}
            button="Roll key"
            back={companyPath(s.company, '/api-keys')}
          >
            <fieldset>
              <legend>The old key keeps working for</legend>
              {GRACE_CHOICES.map(([secs, label], i) => (
                <label>
                  <input type="radio" name="grace" value={String(secs)} checked={i === 2} /> {label}
                </label>
              ))}
            </fieldset>
          </ConfirmForm>
        </div>
      </>
    );
    return sendAdmin(reply, 200, adminPage(s.ctx, 'Roll key', body, { crumbs: 'Integrations › API Keys' }));
  });

  pages.post(`${base}/:keyId/roll`, async (s, req, reply) => {
    const key = await findKey(s, req);
    if (!rollable(key)) return notRollable(s, reply, key);
    const grace = Number(formOf(req).grace);
    // Only the offered choices; anything else is refused by rollApiKey's own range check too.
    if (!GRACE_CHOICES.some(([secs]) => secs === grace)) {
      return sendAdmin(
        reply,
        400,
        adminPage(
          s.ctx,
          'Roll key',
          <>
            <h1>Roll key</h1>
            <p class="notice error" role="alert">
              Choose how long the old key keeps working (up to 7 days).
            </p>
            <p>
              <a href={companyPath(s.company, `/api-keys/${key.id}/roll`)}>Back</a>
            </p>
          </>,
        ),
      );
    }
    const rolled = await rollApiKey(s.db, services.credentials, {
      companyId: s.company.id,
      keyId: key.id,
      graceSeconds: grace,
    });
    req.log.info({ companyId: s.company.id, keyId: key.id }, 'admin rolled an API key');
    const until = rolled.previous.expiresAt!;
    const note =
      grace === 0
        ? 'The old key has stopped working.'
        : `The old key keeps working until ${until.toISOString().replace('T', ' ').slice(0, 16)} UTC.`;
    return listPage(services, reply, s, {
      top: (
        <ShownOnceBox
          title="Your new key"
          value={rolled.key}
          id="new-key"
          warning={`Copy this key now and store it safely. It will not be shown again. ${note}`}
        />
      ),
    });
  });
}
