// Request logs in the admin area (docs/admin.md, Request logs): the company's /api/v1 and
// /graphql requests of the last 30 days in this mode, filtered by status class, path, API key
// and request id, and one request in full with its (redacted) bodies. Read through the same
// use cases as GET /api/v1/request-logs.
import type { FastifyInstance } from 'fastify';
import type { ComponentChildren } from 'preact';
import { listApiKeys } from '../../schema/credentials/index.js';
import { findRequestLog, listRequestLogs, STATUS_CLASSES } from '../../schema/request-logs/index.js';
import type { Services } from '../../services.js';
import { sendAdmin, TimeTag } from '../http.js';
import { adminPage, companyPath } from '../layout.js';
import { Breakable, DataTable } from '../components/data-table.js';
import { paramsOf, queryOf, companyRoutes } from '../scope.js';

const PAGE_SIZE = 50;
const FILTERS = ['status', 'path', 'credentialId', 'requestId'] as const;

const StatusBadge = ({ status }: { status: number }) => (
  <span class={`badge ${status >= 500 ? 'failed' : status >= 400 ? 'pending' : 'succeeded'}`}>{status}</span>
);

/** A stored body, indented when it is JSON (bodies are stored as text, redacted). */
function BodyBlock({ id, label, body }: { id: string; label: string; body: string | null }) {
  if (body === null)
    return (
      <p class="muted" id={id}>
        No {label.toLowerCase()} kept (only 4xx and 5xx answers keep theirs).
      </p>
    );
  let shown = body;
  try {
    shown = JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    // Not JSON (or cut at 16 KiB): shown as stored.
  }
  return (
    <pre class="text-body" id={id} aria-label={label}>
      {shown}
    </pre>
  );
}

export function registerRequestLogRoutes(app: FastifyInstance, services: Services): void {
  const pages = companyRoutes(app, services, 'request-logs');
  pages.get('/:mode/companies/:companyId/request-logs', async (s, req, reply) => {
    const q = queryOf(req);
    // Empty fields of the form are no filter.
    const filter = Object.fromEntries(FILTERS.filter((k) => q[k]).map((k) => [k, q[k]]));
    const [{ requestLogs: page, hasMore }, keys] = await Promise.all([
      listRequestLogs(s.db, { companyId: s.company.id, filter, before: q.before, limit: PAGE_SIZE }),
      listApiKeys(s.db, s.company.id),
    ]);
    const base = companyPath(s.company, '/request-logs');
    const keep = FILTERS.filter((k) => q[k])
      .map((k) => `&${k}=${encodeURIComponent(q[k]!)}`)
      .join('');
    const body = (
      <>
        <h1>Request logs</h1>
        <p class="muted">
          Every API and GraphQL request made with this company's keys and tokens in the last 30 days, newest first.
          Failed requests (4xx, 5xx) keep their request and response bodies, with secrets, card numbers and security
          codes removed.
        </p>
        <form method="get" action={base} class="inline" aria-label="Filter requests">
          <div>
            <label for="f-status">Status</label>
            <br />
            <select id="f-status" name="status">
              <option value="">Any</option>
              {STATUS_CLASSES.map((c) => (
                <option value={c} selected={c === q.status}>
                  {c}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="f-path">Path</label>
            <br />
            <input
              type="text"
              id="f-path"
              name="path"
              value={q.path ?? ''}
              placeholder="/api/v1/bookings"
              maxlength={500}
            />
          </div>
          <div>
            <label for="f-key">API key</label>
            <br />
            <select id="f-key" name="credentialId">
              <option value="">Any</option>
              {keys.map((k) => (
                <option value={k.id} selected={k.id === q.credentialId}>
                  {k.name} ({k.prefix}…{k.last4})
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="f-request">Request id</label>
            <br />
            <input type="text" id="f-request" name="requestId" value={q.requestId ?? ''} maxlength={128} />
          </div>
          <button type="submit">Filter</button>
        </form>
        <DataTable
          label="Requests"
          rows={page}
          empty="No requests match."
          columns={[
            {
              label: `Time (${s.company.timezone})`,
              sorted: 'descending',
              cell: (r) => <TimeTag at={r.createdAt} zone={s.company.timezone} seconds />,
            },
            { label: 'Method', cell: (r) => <code>{r.method}</code> },
            {
              label: 'Path',
              cell: (r) => (
                <>
                  <a href={`${base}/${r.id}`}>
                    <Breakable text={r.path} />
                  </a>
                  {r.operationName && (
                    <>
                      {' '}
                      <span class="muted">{r.operationName}</span>
                    </>
                  )}
                </>
              ),
            },
            { label: 'Status', cell: (r) => <StatusBadge status={r.status} /> },
            { label: 'Duration', cell: (r) => `${r.durationMs.toFixed(1)} ms` },
            {
              label: 'Credential',
              cell: (r) => (
                <>
                  {r.credentialName}{' '}
                  <span class="muted">
                    <code>{r.credentialPrefix}</code>
                  </span>
                </>
              ),
            },
          ]}
        />
        {hasMore && (
          <p>
            <a class="button" href={`${base}?before=${page.at(-1)!.id}${keep}`}>
              Older requests
            </a>
          </p>
        )}
      </>
    );
    return sendAdmin(reply, 200, adminPage(s.ctx, 'Request logs', body));
  });

  pages.get('/:mode/companies/:companyId/request-logs/:logId', async (s, req, reply) => {
    const r = await findRequestLog(s.db, s.company.id, paramsOf(req).logId);
    const code = (v: string | null) => (v ? <code>{v}</code> : '—');
    const title = `${r.method} ${r.path}`;
    const rows: Array<[string, ComponentChildren] | null> = [
      ['Time', <TimeTag at={r.createdAt} zone={s.company.timezone} seconds />],
      ['Route', code(r.route)],
      r.operationName ? ['GraphQL operation', code(r.operationName)] : null,
      ['Status', String(r.status)],
      ['Duration', `${r.durationMs.toFixed(1)} ms`],
      ['Request id', code(r.requestId)],
      [
        'Credential',
        <>
          {r.credentialName} {code(r.credentialPrefix)}
        </>,
      ],
      ['IP address', code(r.ip)],
      ['Idempotency key', code(r.idempotencyKey)],
    ];
    const body = (
      <>
        <p>
          <a href={companyPath(s.company, '/request-logs')}>← Request logs</a>
        </p>
        <h1>
          <code>
            {r.method} {r.path}
          </code>{' '}
          <StatusBadge status={r.status} />
        </h1>
        <div class="panel">
          <dl class="fields">
            {rows.map(
              (row) =>
                row && (
                  <>
                    <dt>{row[0]}</dt>
                    <dd>{row[1]}</dd>
                  </>
                ),
            )}
          </dl>
        </div>
        <h2>Request body</h2>
        <BodyBlock id="request-body" label="Request body" body={r.requestBody} />
        <h2>Response body</h2>
        <BodyBlock id="response-body" label="Response body" body={r.responseBody} />
      </>
    );
    return sendAdmin(reply, 200, adminPage(s.ctx, title, body, { crumbs: 'Request logs' }));
  });
}
