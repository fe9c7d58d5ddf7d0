// The admin area's page shell (docs/admin.md): a top bar with the live/test switch (Stripe's
// toggle: the same pages, over the other database), the company picker and sign-out; a side
// navigation; and the content. Plain server-rendered HTML: every page works without scripts,
// is keyboard-navigable (skip link, native controls, visible focus) and loads only the
// stylesheet and the small script this app serves.
import { esc } from '../auth/pages/html.js';
import type { Company } from '../generated/prisma/client.js';
import type { Mode } from '../generated/prisma/enums.js';
import { ASSET_PATHS } from './assets.js';

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
}

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

export function csrfField(token: string): string {
  return `<input type="hidden" name="csrf_token" value="${esc(token)}">`;
}

function head(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="no-referrer">
  <link rel="icon" href="data:,">
  <title>${esc(title)} · Admin</title>
  <link rel="stylesheet" href="${ASSET_PATHS.css}">
  <script src="${ASSET_PATHS.js}" defer></script>
</head>`;
}

function navLink(href: string, label: string, current: boolean): string {
  return `<li><a href="${esc(href)}"${current ? ' aria-current="page"' : ''}>${esc(label)}</a></li>`;
}

function sideNav(ctx: LayoutContext): string {
  const c = ctx.company;
  const s = ctx.section;
  const companyLinks = c
    ? `<h2>${esc(c.name)}</h2><ul>
        ${navLink(companyPath(c), 'Company profile', s === 'profile')}
        ${navLink(companyPath(c, '/bookings'), 'Bookings', s === 'bookings')}
        ${navLink(companyPath(c, '/staff'), 'Staff', s === 'staff')}
        ${navLink(companyPath(c, '/emails'), ctx.mode === 'test' ? 'E-mail log' : 'E-mails', s === 'emails')}
      </ul>
      <h2>Integrations</h2><ul>
        ${navLink(companyPath(c, '/api-keys'), 'API Keys', s === 'api-keys')}
        ${navLink(companyPath(c, '/webhooks'), 'Webhooks', s === 'webhooks')}
        ${navLink(companyPath(c, '/request-logs'), 'Request logs', s === 'request-logs')}
      </ul>`
    : '';
  return `<nav class="side" aria-label="Admin sections">
      ${companyLinks}
      <h2>Account</h2><ul>
        ${navLink(modePath(ctx.mode), ctx.mode === 'test' ? 'Test companies' : 'Companies', s === 'companies')}
        ${ctx.mode === 'test' ? navLink('/admin/test/sandbox', 'Sandbox', s === 'sandbox') : ''}
        ${navLink(accountPath('/oauth-apps', ctx.mode), 'OAuth apps', s === 'oauth-apps')}
      </ul>
    </nav>`;
}

function companyPicker(ctx: LayoutContext): string {
  if (ctx.companies.length < 2) return '';
  const options = ctx.companies
    .map((c) => `<option value="${esc(c.id)}"${c.id === ctx.company?.id ? ' selected' : ''}>${esc(c.name)}</option>`)
    .join('');
  return `<form method="get" action="${modePath(ctx.mode)}/open" class="picker">
      <label for="company-picker">Company</label>
      <select id="company-picker" name="company">${ctx.company ? '' : '<option value="">Choose…</option>'}${options}</select>
      <button type="submit">Open</button>
    </form>`;
}

function modeSwitch(ctx: LayoutContext): string {
  const test = ctx.mode === 'test';
  // A link, not a form: switching only changes which pages are shown.
  return `<a class="mode-switch" role="switch" aria-checked="${test}" href="${esc(ctx.switchHref ?? modePath(test ? 'live' : 'test'))}">
      <span class="track" aria-hidden="true"></span><span>Test mode</span></a>`;
}

/** In test mode, on every page: the sandbox, and which company of it the page shows. */
function testBanner(ctx: LayoutContext): string {
  if (ctx.mode !== 'test') return '';
  const which = ctx.company ? ` of <strong>${esc(ctx.company.name)}</strong>` : '';
  return `<div class="test-banner">Test mode: you are viewing sandbox data${which}</div>`;
}

/** A page of the signed-in admin area. */
export function adminPage(ctx: LayoutContext, title: string, body: string, opts: { crumbs?: string } = {}): string {
  return `${head(title)}
<body>
  <a class="skip" href="#content">Skip to content</a>
  <header class="top">
    <a class="brand" href="/admin">Booking Service</a>
    ${companyPicker(ctx)}
    ${modeSwitch(ctx)}
    <span class="who">${esc(ctx.accountEmail)}</span>
    <form method="post" action="/admin/logout">${csrfField(ctx.csrfToken)}<button type="submit">Sign out</button></form>
  </header>
  ${testBanner(ctx)}
  <div class="shell">
    ${sideNav(ctx)}
    <main id="content" tabindex="-1">
      ${opts.crumbs ? `<div class="crumbs">${opts.crumbs}</div>` : ''}
      ${body}
    </main>
  </div>
</body>
</html>
`;
}

/** A page outside the signed-in shell (errors before a session exists). */
export function barePage(title: string, body: string): string {
  return `${head(title)}
<body><main id="content" class="login-wrap"><div class="panel">${body}</div></main></body>
</html>
`;
}
