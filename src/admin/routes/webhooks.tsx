// Integrations > Webhooks (docs/webhooks.md, docs/admin.md): the company's endpoints; creating one (the
// signing secret and verification token shown once); revealing them again on request (a
// CSRF-protected POST, so they never sit in a cached or shared page); rotating the secret (the
// old one keeps signing for 24 h); a test event; enabling, disabling, deleting; and the
// deliveries with every attempt (status, duration, response excerpt) and a retry button. All
// of it runs the webhook use cases the API runs.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ComponentChildren } from 'preact';
import { secretBox as sealedSecrets } from '../../crypto/secret-box.js';
import { isAppError } from '../../errors.js';
import type { WebhookEndpoint } from '../../generated/prisma/client.js';
import { EVENT_TYPES } from '../../schema/events/index.js';
import {
  createWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  retryWebhookDelivery,
  rotateWebhookSecret,
  sendTestWebhook,
  deleteWebhookEndpoint,
  findWebhookEndpoint,
  updateWebhookEndpoint,
} from '../../schema/webhooks/index.js';
import type { Services } from '../../services.js';
import { PostButton, PanelForm } from '../components/action-form.js';
import { Breakable, DataTable } from '../components/data-table.js';
import { fieldErrors, sendAdmin, TimeTag } from '../http.js';
import { describedBy, DoneNotice, ErrorText, fieldsOf } from '../components/fields.js';
import { adminPage, companyPath, CsrfField } from '../layout.js';
import { formList, formOf, paramsOf, queryOf, type CompanyScope, companyRoutes } from '../scope.js';
import { ShownOnceBox } from './api-keys.js';

const SUBSCRIBABLE = EVENT_TYPES.filter((t) => t !== 'ping');
const DELIVERIES_SHOWN = 30;
const DONE = {
  created: 'Endpoint created.',
  'test-sent': 'Test event queued: it appears in the deliveries below within seconds.',
  retried: 'Delivery queued for another attempt.',
  'retry-busy': 'This delivery is being attempted right now; its result appears below in a moment.',
  enabled: 'Endpoint enabled.',
  disabled: 'Endpoint disabled: no deliveries are sent to it.',
  deleted: 'Endpoint deleted.',
};

const crumbs = 'Integrations › Webhooks';

function CreateForm({
  s,
  values,
  events,
  errors,
}: {
  s: CompanyScope;
  values: Record<string, string>;
  events: string[];
  errors: Record<string, string> | null;
}) {
  const all = events.length === 0 || events.includes('*');
  const field = fieldsOf(values, errors);
  // An error about the events is the group's: the fieldset and each box point to it.
  const invalid = describedBy('f-events', { error: errors?.events });
  return (
    <PanelForm
      action={companyPath(s.company, '/webhooks')}
      csrf={s.ctx.csrfToken}
      title="Add an endpoint"
      errors={errors}
      known={['url', 'events', 'description']}
      button="Add endpoint"
    >
      {field('url', 'Endpoint URL', {
        type: 'url',
        required: true,
        maxlength: 2048,
        hint: s.mode === 'live' ? 'https, public address' : 'https, or http for local testing',
      })}
      {field('description', 'Description', { maxlength: 500 })}
      <fieldset {...describedBy('f-events', { error: errors?.events }, { invalid: false })}>
        <legend>Events</legend>
        <label>
          <input type="checkbox" name="events" value="*" checked={all} {...invalid} /> All events (<code>*</code>)
        </label>
        {SUBSCRIBABLE.map((e) => (
          <label>
            <input type="checkbox" name="events" value={e} checked={!all && events.includes(e)} {...invalid} />{' '}
            <code>{e}</code>
          </label>
        ))}
        <ErrorText id="f-events" error={errors?.events} />
      </fieldset>
    </PanelForm>
  );
}

function EndpointStatus({ e }: { e: WebhookEndpoint }) {
  return e.enabled ? (
    <span class="badge enabled">Enabled</span>
  ) : (
    <>
      <span class="badge disabled">Disabled</span>
      {e.disabledReason && (
        <>
          {' '}
          <span class="muted">{e.disabledReason}</span>
        </>
      )}
    </>
  );
}

const Codes = ({ list }: { list: string[] }) => (
  <>
    {list.map((x, i) => (
      <>
        {i > 0 && ' '}
        <code>{x}</code>
      </>
    ))}
  </>
);

async function listPage(
  s: CompanyScope,
  extra: {
    top?: ComponentChildren;
    values?: Record<string, string>;
    events?: string[];
    errors?: Record<string, string> | null;
  } = {},
) {
  const endpoints = await listWebhookEndpoints(s.db, s.company.id);
  const body = (
    <>
      <h1>Webhooks</h1>
      {extra.top}
      <p class="muted">
        Each event is POSTed to your endpoints as JSON, signed with the endpoint's secret (<code>X-Signature</code>,
        Standard Webhooks headers too).
        {s.mode === 'test' && ' Test events are sent in real time as bookings are made with test keys.'}
      </p>
      <DataTable
        label="Endpoints"
        rows={endpoints}
        empty="No endpoints yet. Add one below to be told of bookings as they happen."
        columns={[
          {
            label: 'URL',
            cell: (e) => (
              <>
                <a href={companyPath(s.company, `/webhooks/${e.id}`)}>
                  <Breakable text={e.url} />
                </a>
                {e.description && (
                  <>
                    <br />
                    <span class="muted">{e.description}</span>
                  </>
                )}
              </>
            ),
          },
          { label: 'Events', cell: (e) => <Codes list={e.events} /> },
          { label: 'Status', cell: (e) => <EndpointStatus e={e} /> },
          { label: 'Created', cell: (e) => <TimeTag at={e.createdAt} zone={s.company.timezone} /> },
        ]}
      />
      <CreateForm s={s} values={extra.values ?? {}} events={extra.events ?? []} errors={extra.errors ?? null} />
    </>
  );
  return adminPage(s.ctx, 'Webhooks', body, { crumbs: 'Integrations' });
}

async function endpointPage(s: CompanyScope, e: WebhookEndpoint, top?: ComponentChildren): Promise<string> {
  const deliveries = await listWebhookDeliveries(s.db, {
    companyId: s.company.id,
    endpointId: e.id,
    limit: DELIVERIES_SHOWN,
  });
  const base = companyPath(s.company, `/webhooks/${e.id}`);
  const zone = s.company.timezone;
  const Post = ({ path, label, cls }: { path: string; label: string; cls?: string }) => (
    <form method="post" action={`${base}${path}`} class="inline-form">
      <CsrfField token={s.ctx.csrfToken} />
      <button type="submit" class={cls}>
        {label}
      </button>
    </form>
  );
  const body = (
    <>
      <h1>Webhook endpoint</h1>
      {top}
      <div class="panel">
        <dl class="fields">
          <dt>URL</dt>
          <dd>
            <code>{e.url}</code>
          </dd>
          <dt>Events</dt>
          <dd>
            <Codes list={e.events} />
          </dd>
          <dt>Description</dt>
          <dd>{e.description || <span class="muted">—</span>}</dd>
          <dt>Status</dt>
          <dd>
            <EndpointStatus e={e} />
          </dd>
          <dt>Signing secret</dt>
          <dd>
            <span class="muted">whsec_•••••• (encrypted at rest)</span>
            {e.previousSecretExpiresAt && e.previousSecretExpiresAt > new Date() && (
              <>
                {' '}
                <span class="muted">
                  · previous secret also signs until{' '}
                  <TimeTag at={e.previousSecretExpiresAt} zone={s.company.timezone} />
                </span>
              </>
            )}
          </dd>
          <dt>Endpoint id</dt>
          <dd>
            <code>{e.id}</code>
          </dd>
        </dl>
        <div class="toolbar">
          <Post path="/reveal" label="Reveal secret and token" />
          <Post path="/test" label="Send test event" cls="primary" />
          <Post path="/rotate" label="Rotate secret" />
          <Post path={e.enabled ? '/disable' : '/enable'} label={e.enabled ? 'Disable' : 'Enable'} />
          <a class="button danger" href={`${base}/delete`}>
            Delete…
          </a>
        </div>
      </div>
      <h2>Deliveries</h2>
      <DataTable
        label="Deliveries"
        rows={deliveries}
        empty={`No deliveries yet. Send a test event, or make a booking with a ${s.mode} key.`}
        caption={
          <span class="muted">
            The latest {DELIVERIES_SHOWN} deliveries, times in {zone}. <a href={base}>Refresh</a>
          </span>
        }
        columns={[
          {
            label: 'Event',
            cell: (d) => (
              <>
                <code>{d.event.type}</code>
                <br />
                <span class="muted">
                  <code>{d.event.id}</code>
                </span>
              </>
            ),
          },
          {
            label: 'Status',
            cell: (d) => (
              <>
                <span class={`badge ${d.status}`}>{d.status}</span>
                {d.status === 'pending' && d.nextAttemptAt && (
                  <>
                    <br />
                    <span class="muted">
                      next <TimeTag at={d.nextAttemptAt} zone={zone} seconds />
                    </span>
                  </>
                )}
              </>
            ),
          },
          {
            label: 'Attempts',
            cell: (d) =>
              d.attempts.length ? (
                <ol class="attempts">
                  {d.attempts.map((a) => (
                    <li>
                      <TimeTag at={a.createdAt} zone={zone} seconds /> ·{' '}
                      {a.statusCode ? `HTTP ${a.statusCode}` : (a.error ?? 'no response')} · {a.durationMs} ms
                      {a.responseExcerpt && (
                        <>
                          <br />
                          <code class="excerpt">{a.responseExcerpt.slice(0, 300)}</code>
                        </>
                      )}
                    </li>
                  ))}
                </ol>
              ) : (
                <span class="muted">No attempt yet</span>
              ),
          },
        ]}
        actions={(d) => (
          <PostButton
            action={`${base}/deliveries/${d.id}/retry`}
            csrf={s.ctx.csrfToken}
            label="Retry"
            name={`Retry delivery of ${d.event.type} ${d.event.id}`}
          />
        )}
      />
    </>
  );
  return adminPage(s.ctx, 'Webhook endpoint', body, { crumbs });
}

/** The endpoint of the URL, if it is this company's (NOT_FOUND is the admin area's 404). */
async function endpointOf(s: CompanyScope, req: FastifyRequest): Promise<WebhookEndpoint> {
  return findWebhookEndpoint(s.db, s.company.id, paramsOf(req).endpointId ?? '');
}

export function registerWebhookRoutes(app: FastifyInstance, services: Services): void {
  const pages = companyRoutes(app, services, 'webhooks');
  const base = '/:mode/companies/:companyId/webhooks';
  const done = (req: FastifyRequest) => <DoneNotice done={queryOf(req).done} table={DONE} />;

  pages.get(base, async (s, req, reply) => {
    return sendAdmin(reply, 200, await listPage(s, { top: done(req) }));
  });

  pages.post(base, async (s, req, reply) => {
    const form = formOf(req);
    const events = formList(req, 'events');
    try {
      const { endpoint, secret, token } = await createWebhookEndpoint(s.db, {
        companyId: s.company.id,
        mode: s.mode,
        config: services.config,
        input: {
          url: (form.url ?? '').trim(),
          events: events.length ? events : ['*'],
          description: form.description?.trim() || null,
        },
      });
      return sendAdmin(reply, 200, await endpointPage(s, endpoint, secretsShown(secret, token)));
    } catch (err) {
      const errors = fieldErrors(err);
      if (!errors) throw err;
      return sendAdmin(reply, 400, await listPage(s, { values: form, events, errors }));
    }
  });

  pages.get(`${base}/:endpointId`, async (s, req, reply) => {
    return sendAdmin(reply, 200, await endpointPage(s, await endpointOf(s, req), done(req)));
  });

  pages.post(`${base}/:endpointId/reveal`, async (s, req, reply) => {
    const e = await endpointOf(s, req);
    const box = sealedSecrets(services.config);
    req.log.info({ companyId: s.company.id, endpointId: e.id }, 'admin revealed a webhook secret');
    return sendAdmin(
      reply,
      200,
      await endpointPage(s, e, secretsShown(box.open(e.secretEnc), box.open(e.tokenEnc), 'Keep them secret.')),
    );
  });

  pages.post(`${base}/:endpointId/rotate`, async (s, req, reply) => {
    const e = await endpointOf(s, req);
    const { endpoint, secret, token } = await rotateWebhookSecret(s.db, {
      companyId: s.company.id,
      config: services.config,
      id: e.id,
    });
    return sendAdmin(
      reply,
      200,
      await endpointPage(
        s,
        endpoint,
        secretsShown(secret, token, 'The previous secret keeps signing alongside the new one for 24 hours.'),
      ),
    );
  });

  pages.post(`${base}/:endpointId/test`, async (s, req, reply) => {
    const e = await endpointOf(s, req);
    await sendTestWebhook(s.db, { companyId: s.company.id, id: e.id });
    return reply.redirect(companyPath(s.company, `/webhooks/${e.id}?done=test-sent`), 303);
  });

  for (const action of ['enable', 'disable'] as const) {
    pages.post(`${base}/:endpointId/${action}`, async (s, req, reply) => {
      const e = await endpointOf(s, req);
      await updateWebhookEndpoint(s.db, {
        companyId: s.company.id,
        mode: s.mode,
        config: services.config,
        id: e.id,
        input: { enabled: action === 'enable' },
      });
      return reply.redirect(companyPath(s.company, `/webhooks/${e.id}?done=${action}d`), 303);
    });
  }

  pages.post(`${base}/:endpointId/deliveries/:deliveryId/retry`, async (s, req, reply) => {
    const e = await endpointOf(s, req);
    const deliveryId = paramsOf(req).deliveryId ?? '';
    try {
      // Only this endpoint's deliveries: another's is NOT_FOUND, the admin area's 404.
      await retryWebhookDelivery(s.db, { companyId: s.company.id, endpointId: e.id, id: deliveryId });
    } catch (err) {
      // An attempt holds the delivery's lease: nothing to do but wait for its result.
      if (isAppError(err) && err.code === 'CONFLICT')
        return reply.redirect(companyPath(s.company, `/webhooks/${e.id}?done=retry-busy`), 303);
      throw err;
    }
    return reply.redirect(companyPath(s.company, `/webhooks/${e.id}?done=retried`), 303);
  });

  pages.get(`${base}/:endpointId/delete`, async (s, req, reply) => {
    const e = await endpointOf(s, req);
    const body = (
      <>
        <h1>Delete this endpoint?</h1>
        <div class="panel">
          <p>
            <code>{e.url}</code>
          </p>
          <p>No more events are sent to it, and its delivery history is deleted with it. This cannot be undone.</p>
          <form method="post" action={companyPath(s.company, `/webhooks/${e.id}/delete`)}>
            <CsrfField token={s.ctx.csrfToken} />
            <button type="submit" class="danger">
              Delete endpoint
            </button>{' '}
            <a class="button" href={companyPath(s.company, `/webhooks/${e.id}`)}>
              Cancel
            </a>
          </form>
        </div>
      </>
    );
    return sendAdmin(reply, 200, adminPage(s.ctx, 'Delete endpoint', body, { crumbs }));
  });

  pages.post(`${base}/:endpointId/delete`, async (s, req, reply) => {
    const e = await endpointOf(s, req);
    await deleteWebhookEndpoint(s.db, { companyId: s.company.id, id: e.id });
    return reply.redirect(companyPath(s.company, '/webhooks?done=deleted'), 303);
  });
}

function secretsShown(secret: string, token: string, note = 'Copy them now and store them with your receiver.') {
  return (
    <>
      <ShownOnceBox title="Signing secret" value={secret} id="webhook-secret" warning={note} />
      <ShownOnceBox
        title="Verification token"
        value={token}
        id="webhook-token"
        warning="Sent in the X-Webhook-Token header of every delivery."
      />
    </>
  );
}
