// The e-mail log (docs/sandbox.md: sandbox e-mail is "logged, not sent; viewable in
// an email log in the admin area (full body, headers, recipient)"). The list shows recipient,
// subject and time; one e-mail shows every header, the text body and the HTML body rendered in
// a sandboxed frame: an opaque origin with no scripts, forms or navigation, under its own CSP
// that loads nothing (no remote images, so no tracking pixel fires from the admin area).
import type { FastifyInstance } from 'fastify';
import { findEmail } from '../../schema/find-records.js';
import { listEmails } from '../../schema/emails/index.js';
import type { Services } from '../../services.js';
import { DataTable } from '../components/data-table.js';
import { ADMIN_CSP, AdminNotFound, ScrollTable, sendAdmin, TimeTag } from '../http.js';
import { adminPage, companyPath } from '../layout.js';
import { companyScope, paramsOf, queryOf, companyRoutes } from '../scope.js';

const PAGE_SIZE = 50;
// The frame's document inherits this page's policy, so inline styles (e-mail HTML is styled
// inline) are allowed on this page only; everything else stays as on every admin page.
const EMAIL_PAGE_CSP = ADMIN_CSP.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'");
const FRAME_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'";

/**
 * The status badge, with the reason when the e-mail failed or is being retried: "failed" alone
 * leaves the owner guessing whether the relay, the address or the configuration is at fault.
 * The reason comes from the SMTP server or our own sender, so it is escaped like any input.
 */
function StatusOf({ e }: { e: { status: string; lastError: string | null } }) {
  const badge = <span class={`badge ${e.status}`}>{e.status}</span>;
  return e.lastError && e.status !== 'sent' ? (
    <>
      {badge} <span class="muted email-error">{e.lastError}</span>
    </>
  ) : (
    badge
  );
}

function HeaderRows({ headers }: { headers: unknown }) {
  const entries = headers && typeof headers === 'object' ? Object.entries(headers as Record<string, unknown>) : [];
  if (entries.length === 0)
    return (
      <tr>
        <td colSpan={2} class="muted">
          No headers recorded.
        </td>
      </tr>
    );
  return (
    <>
      {entries.map(([k, v]) => (
        <tr>
          <th scope="row">
            <code>{k}</code>
          </th>
          <td>
            <code>{typeof v === 'string' ? v : JSON.stringify(v)}</code>
          </td>
        </tr>
      ))}
    </>
  );
}

interface StoredAttachment {
  filename: string;
  contentType: string;
  content: string;
}

const attachmentsOf = (e: { attachments: unknown }) =>
  (Array.isArray(e.attachments) ? e.attachments : []) as StoredAttachment[];

/** The e-mail's files (its calendar invitation), each with a download link and its text. */
function AttachmentsSection({
  company,
  emailId,
  files,
}: {
  company: { mode: 'live' | 'test'; id: string };
  emailId: string;
  files: StoredAttachment[];
}) {
  if (!files.length) return null;
  return (
    <>
      <h2>Attachments</h2>
      <ul class="attachments">
        {files.map((a, i) => (
          <li>
            <a href={companyPath(company, `/emails/${emailId}/attachments/${i}`)} download={a.filename}>
              {a.filename}
            </a>{' '}
            <span class="muted">
              {a.contentType}, {Buffer.byteLength(a.content, 'utf8')} bytes
            </span>
            <pre class="text-body attachment-body">{a.content}</pre>
          </li>
        ))}
      </ul>
    </>
  );
}

export function registerEmailRoutes(app: FastifyInstance, services: Services): void {
  const pages = companyRoutes(app, services, 'emails');
  pages.get('/:mode/companies/:companyId/emails', async (s, req, reply) => {
    const before = queryOf(req).before;
    const { emails: page, hasMore: more } = await listEmails(s.db, {
      companyId: s.company.id,
      before,
      limit: PAGE_SIZE,
    });
    const title = s.mode === 'test' ? 'E-mail log' : 'E-mails';
    const body = (
      <>
        <h1>{title}</h1>
        <p class="muted">
          {s.mode === 'test'
            ? 'E-mails this test company would have sent to customers. They are logged here and never delivered.'
            : 'E-mails sent to this company’s customers.'}
        </p>
        <DataTable
          label="E-mails"
          rows={page}
          empty="No e-mails yet. They appear when bookings are made, changed or cancelled."
          columns={[
            { label: 'Recipient', cell: (e) => e.to },
            { label: 'Subject', cell: (e) => <a href={companyPath(s.company, `/emails/${e.id}`)}>{e.subject}</a> },
            {
              label: `Time (${s.company.timezone})`,
              cell: (e) => <TimeTag at={e.createdAt} zone={s.company.timezone} />,
            },
            { label: 'Status', cell: (e) => <StatusOf e={e} /> },
          ]}
        />
        {more && (
          <p>
            <a class="button" href={companyPath(s.company, `/emails?before=${page.at(-1)!.id}`)}>
              Older e-mails
            </a>
          </p>
        )}
      </>
    );
    return sendAdmin(reply, 200, adminPage(s.ctx, title, body));
  });

  pages.get('/:mode/companies/:companyId/emails/:emailId', async (s, req, reply) => {
    const id = paramsOf(req).emailId;
    const email = await findEmail(s.db, s.company.id, id);
    // The one place a page carries HTML it did not build: the e-mail's own body, as the text of
    // the frame's srcdoc attribute (escaped as any attribute), shown in a sandboxed frame.
    const frameDoc = `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${FRAME_CSP}"><base target="_blank"></head><body>${email.html}</body></html>`;
    const body = (
      <>
        <p>
          <a href={companyPath(s.company, '/emails')}>← {s.mode === 'test' ? 'E-mail log' : 'E-mails'}</a>
        </p>
        <h1>{email.subject}</h1>
        <div class="panel">
          <dl class="fields">
            <dt>To</dt>
            <dd id="email-to">{email.to}</dd>
            <dt>From</dt>
            <dd>{email.from}</dd>
            <dt>Time</dt>
            <dd>
              <TimeTag at={email.createdAt} zone={s.company.timezone} />
            </dd>
            <dt>Status</dt>
            <dd id="email-status">
              <StatusOf e={email} />
              {email.sentAt && (
                <>
                  {' sent '}
                  <TimeTag at={email.sentAt} zone={s.company.timezone} />
                </>
              )}
            </dd>
          </dl>
        </div>
        <AttachmentsSection company={s.company} emailId={email.id} files={attachmentsOf(email)} />
        <h2>Headers</h2>
        <ScrollTable label="Headers table">
          <table aria-label="Headers">
            <tbody>
              <HeaderRows headers={email.headers} />
            </tbody>
          </table>
        </ScrollTable>
        <h2>HTML body</h2>
        <iframe
          class="email-frame"
          title="HTML body of the e-mail"
          sandbox=""
          referrerpolicy="no-referrer"
          srcdoc={frameDoc}
        />
        <h2>Text body</h2>
        <pre class="text-body" id="email-text">
          {email.text}
        </pre>
      </>
    );
    return sendAdmin(reply, 200, adminPage(s.ctx, email.subject, body, { crumbs: 'E-mail log' }), {
      csp: EMAIL_PAGE_CSP,
    });
  });

  // One attachment as a file (the .ics a calendar app opens), never rendered by the browser.
  app.get(
    '/:mode/companies/:companyId/emails/:emailId/attachments/:index',
    { schema: { hide: true } },
    async (req, reply) => {
      const s = await companyScope(services, req, 'emails');
      const params = paramsOf(req);
      const email = await findEmail(s.db, s.company.id, params.emailId);
      const index = /^\d{1,3}$/.test(params.index ?? '') ? Number(params.index) : -1;
      const file = attachmentsOf(email)[index];
      if (!file) throw new AdminNotFound('attachment');
      const safeName = file.filename.replace(/[^A-Za-z0-9._-]/g, '_') || 'attachment';
      return reply
        .header('Content-Type', file.contentType)
        .header('Content-Disposition', `attachment; filename="${safeName}"`)
        .header('X-Content-Type-Options', 'nosniff')
        .header('Cache-Control', 'no-store')
        .send(file.content);
    },
  );
}
