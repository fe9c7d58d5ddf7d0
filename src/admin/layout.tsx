// The admin area's page shell (docs/admin.md): a top bar with the live/test switch (Stripe's
// toggle: the same pages, over the other database), the company picker and sign-out; a side
// navigation; and the content. Plain server-rendered HTML: every page works without scripts,
// is keyboard-navigable (skip link, native controls, visible focus) and loads only the
// stylesheet and the small script this app serves.
import type { ComponentChildren } from 'preact';
import { renderDocument, renderFragment } from '../auth/pages/html.js';
import type { Company } from '../generated/prisma/client.js';
import type { Mode } from '../generated/prisma/enums.js';
import type { Role } from '../schema/team/index.js';
import { ASSET_PATHS } from './assets.js';
import { MANAGER_SECTIONS, STAFF_SECTIONS } from './roles.js';
import { CsrfField } from './components/fields.js';
export { CsrfField };

export interface LayoutContext {
  accountEmail: string;
  csrfToken: string;
  mode: Mode;
  companies: Company[];
  company?: Company | null;
  /** The side-navigation item this page belongs to. */
  section?: string;
  /** Where the live/test switch leads; by default the other mode's home. */
  switchHref?: string;
  /** What the search box in the top bar shows (the search page keeps what was typed). */
  search?: string;
  /** The person's role in the company's team (company pages only; docs/admin.md, Team and roles). */
  role?: Role;
  /** A staff member's employee in this company and mode. */
  staffEmployeeId?: string | null;
}

/**
 * Whether the page's person may open a section of the company (the side navigation shows only
 * those); the guard in index.ts enforces the same rules (src/admin/roles.ts).
 */
export function maySee(ctx: Pick<LayoutContext, 'role' | 'staffEmployeeId'>, section: string): boolean {
  const role = ctx.role ?? 'owner';
  if (role === 'owner' || role === 'admin') return true;
  if (MANAGER_SECTIONS.has(section)) return false;
  return role === 'viewer' || STAFF_SECTIONS.has(section);
}

/** Whether the page's person may post forms (everyone but viewers; staff within their sections). */
export const mayWrite = (ctx: Pick<LayoutContext, 'role'>): boolean => ctx.role !== 'viewer';

export const modePath = (mode: Mode) => `/admin/${mode}`;
export const companyPath = (c: { mode: Mode; id: string }, rest = '') => `/admin/${c.mode}/companies/${c.id}${rest}`;
/**
 * Pages of the whole account (OAuth apps) are the same in both modes, so their URL carries the
 * mode the person is in as `?mode=test` (live needs nothing): the switch, the side navigation
 * and any error page stay in that mode. Every other page has the mode in its path.
 */
export const accountPath = (path: string, mode: Mode, query = '') => {
  const q = [query, mode === 'test' ? 'mode=test' : ''].filter(Boolean).join('&');
  return `/admin${path}${q ? `?${q}` : ''}`;
};

/** An integration's metadata, key by key (a booking's, a customer's). */
export function MetadataFields({ entries }: { entries: Array<[string, unknown]> }) {
  return (
    <div class="panel">
      <dl class="fields">
        {entries.map(([k, v]) => (
          <>
            <dt>
              <code>{k}</code>
            </dt>
            <dd>{String(v)}</dd>
          </>
        ))}
      </dl>
    </div>
  );
}

/** A record's fields as label and value, in a panel; a null row is left out (a field that does not apply). */
export function FieldRows({ rows }: { rows: Array<[string, ComponentChildren] | null> }) {
  return (
    <div class="panel">
      <dl class="fields">
        {rows.map(
          (r) =>
            r && (
              <>
                <dt>{r[0]}</dt>
                <dd>{r[1]}</dd>
              </>
            ),
        )}
      </dl>
    </div>
  );
}

function Head({ title }: { title: string }) {
  return (
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="referrer" content="no-referrer" />
      <link rel="icon" href="data:," />
      <title>{`${title} · Admin`}</title>
      <link rel="stylesheet" href={ASSET_PATHS.css} />
      <script src={ASSET_PATHS.js} defer />
    </head>
  );
}

function NavLink({
  href,
  label,
  current,
  show = true,
}: {
  href: string;
  label: string;
  current: boolean;
  show?: boolean;
}) {
  if (!show) return null;
  return (
    <li>
      <a href={href} aria-current={current ? 'page' : undefined}>
        {label}
      </a>
    </li>
  );
}

function SideNav({ ctx }: { ctx: LayoutContext }) {
  const c = ctx.company;
  const s = ctx.section;
  const see = (section: string) => maySee(ctx, section);
  const manager = see('team');
  return (
    <nav class="side" aria-label="Admin sections">
      {c && (
        <>
          <h2>{c.name}</h2>
          <ul>
            <NavLink
              href={companyPath(c, '/overview')}
              label="Overview"
              current={s === 'overview'}
              show={see('overview')}
            />
            <NavLink href={companyPath(c)} label="Company profile" current={s === 'profile'} show={see('')} />
            <NavLink
              href={companyPath(c, '/calendar')}
              label="Calendar"
              current={s === 'calendar' || s === 'bookings'}
              show={see('calendar')}
            />
            <NavLink
              href={companyPath(c, '/bookings/new')}
              label="New booking"
              current={s === 'new-booking'}
              show={mayWrite(ctx)}
            />
            <NavLink href={companyPath(c, '/customers')} label="Customers" current={s === 'customers'} />
            <NavLink href={companyPath(c, '/staff')} label="Staff" current={s === 'staff'} show={see('staff')} />
            {ctx.role === 'staff' && ctx.staffEmployeeId && (
              <NavLink
                href={companyPath(c, `/staff/${ctx.staffEmployeeId}`)}
                label="My profile"
                current={s === 'staff'}
              />
            )}
            <NavLink
              href={companyPath(c, '/services')}
              label="Services"
              current={s === 'services'}
              show={see('services')}
            />
            <NavLink
              href={companyPath(c, '/classes')}
              label="Classes"
              current={s === 'classes'}
              show={see('classes')}
            />
            <NavLink
              href={companyPath(c, '/payments')}
              label="Payments"
              current={s === 'payments'}
              show={see('payments')}
            />
            <NavLink
              href={companyPath(c, '/emails')}
              label={ctx.mode === 'test' ? 'E-mail log' : 'E-mails'}
              current={s === 'emails'}
              show={see('emails')}
            />
          </ul>
          {manager && (
            <>
              <h2>Integrations</h2>
              <ul>
                <NavLink href={companyPath(c, '/api-keys')} label="API Keys" current={s === 'api-keys'} />
                <NavLink href={companyPath(c, '/webhooks')} label="Webhooks" current={s === 'webhooks'} />
                <NavLink href={companyPath(c, '/request-logs')} label="Request logs" current={s === 'request-logs'} />
              </ul>
              <h2>Team</h2>
              <ul>
                <NavLink href={companyPath(c, '/team')} label="Team" current={s === 'team'} />
                <NavLink href={companyPath(c, '/audit')} label="Audit log" current={s === 'audit'} />
              </ul>
            </>
          )}
        </>
      )}
      <h2>Account</h2>
      <ul>
        <NavLink
          href={modePath(ctx.mode)}
          label={ctx.mode === 'test' ? 'Test companies' : 'Companies'}
          current={s === 'companies'}
        />
        {ctx.mode === 'test' && <NavLink href="/admin/test/sandbox" label="Sandbox" current={s === 'sandbox'} />}
        <NavLink href={accountPath('/oauth-apps', ctx.mode)} label="OAuth apps" current={s === 'oauth-apps'} />
      </ul>
    </nav>
  );
}

/**
 * The side navigation in a <details>: open beside the content on a wide screen (the stylesheet
 * shows a closed one's content there), folded behind "Menu" on a phone so that the first screen
 * shows the page, not twenty links.
 */
function Menu({ ctx }: { ctx: LayoutContext }) {
  return (
    <details class="menu">
      <summary>
        Menu<span class="muted">{ctx.company ? ` · ${ctx.company.name}` : ''}</span>
      </summary>
      <SideNav ctx={ctx} />
    </details>
  );
}

function CompanyPicker({ ctx }: { ctx: LayoutContext }) {
  if (ctx.companies.length < 2) return null;
  return (
    <form method="get" action={`${modePath(ctx.mode)}/open`} class="picker">
      <label for="company-picker">Company</label>
      <select id="company-picker" name="company">
        {!ctx.company && <option value="">Choose…</option>}
        {ctx.companies.map((c) => (
          <option value={c.id} selected={c.id === ctx.company?.id}>
            {c.name}
          </option>
        ))}
      </select>
      <button type="submit">Open</button>
    </form>
  );
}

/** On every page of a company: one box finding a booking, payment or customer (routes/search.tsx). */
function SearchBox({ ctx }: { ctx: LayoutContext }) {
  // Staff have no search (it would reach other employees' records): src/admin/roles.ts.
  if (!ctx.company || !maySee(ctx, 'search')) return null;
  return (
    <form method="get" action={companyPath(ctx.company, '/search')} role="search" class="search">
      <label for="top-search" class="sr-only">
        Search bookings, payments and customers
      </label>
      <input
        id="top-search"
        name="q"
        type="search"
        value={ctx.search ?? ''}
        maxlength={200}
        placeholder="Id, name, e-mail or phone"
        autocomplete="off"
      />
      <button type="submit">Search</button>
    </form>
  );
}

function ModeSwitch({ ctx }: { ctx: LayoutContext }) {
  const test = ctx.mode === 'test';
  // A link, not a form: switching only changes which pages are shown.
  return (
    <a
      class="mode-switch"
      role="switch"
      aria-checked={test ? 'true' : 'false'}
      href={ctx.switchHref ?? modePath(test ? 'live' : 'test')}
    >
      <span class="track" aria-hidden="true" />
      <span>Test mode</span>
    </a>
  );
}

/** In test mode, on every page: the sandbox, and which company of it the page shows. */
function TestBanner({ ctx }: { ctx: LayoutContext }) {
  if (ctx.mode !== 'test') return null;
  return (
    <div class="test-banner">
      Test mode: you are viewing sandbox data
      {ctx.company && (
        <>
          {' of '}
          <strong>{ctx.company.name}</strong>
        </>
      )}
    </div>
  );
}

/** A page's body already rendered (renderFragment), such as a kept calendar. */
export interface RenderedBody {
  html: string;
}
const isRendered = (body: ComponentChildren | RenderedBody): body is RenderedBody =>
  typeof body === 'object' && body !== null && !Array.isArray(body) && 'html' in body && !('type' in body);

/** A page of the signed-in admin area. */
export function adminPage(
  ctx: LayoutContext,
  title: string,
  body: ComponentChildren | RenderedBody,
  opts: { crumbs?: string } = {},
): string {
  const crumbs = opts.crumbs && <div class="crumbs">{opts.crumbs}</div>;
  return renderDocument(
    <html lang="en">
      <Head title={title} />
      <body>
        <a class="skip" href="#content">
          Skip to content
        </a>
        <header class="top">
          <a class="brand" href="/admin">
            Booking Service
          </a>
          <SearchBox ctx={ctx} />
          <CompanyPicker ctx={ctx} />
          <ModeSwitch ctx={ctx} />
          <span class="who">{ctx.accountEmail}</span>
          <form method="post" action="/admin/logout">
            <CsrfField token={ctx.csrfToken} />
            <button type="submit">Sign out</button>
          </form>
        </header>
        <TestBanner ctx={ctx} />
        <div class="shell">
          <Menu ctx={ctx} />
          {isRendered(body) ? (
            <main
              id="content"
              tabindex={-1}
              dangerouslySetInnerHTML={{ __html: (crumbs ? renderFragment(crumbs) : '') + body.html }}
            />
          ) : (
            <main id="content" tabindex={-1}>
              {crumbs}
              {body}
            </main>
          )}
        </div>
      </body>
    </html>,
  );
}

/** A page outside the signed-in shell (errors before a session exists). */
export function barePage(title: string, body: ComponentChildren): string {
  return renderDocument(
    <html lang="en">
      <Head title={title} />
      <body>
        <main id="content" class="login-wrap">
          <div class="panel">{body}</div>
        </main>
      </body>
    </html>,
  );
}
