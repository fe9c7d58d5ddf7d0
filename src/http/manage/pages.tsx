// The HTML of the customer's manage pages (docs/manage-links.md): the booking, the cancel
// confirmation with its fee, and the reschedule slot picker. Plain server-rendered forms that
// work without the one small script, which only adds the booking's time in the browser's own
// zone (Intl) and moves focus to a message. Readable at 390 px, keyboard first, AA contrast.
import { createHash } from 'node:crypto';
import { DateTime } from 'luxon';
import type { ComponentChildren } from 'preact';
import { renderDocument } from '../../auth/pages/html.js';

// Colours: text #1a1d21 on #fff (16:1), links and the primary button #1f4fb8 (7:1 on white),
// the danger button #a11a1a (7.6:1), muted text #4a5260 (7.9:1).
const STYLE = `
  *, *::before, *::after { box-sizing: border-box; }
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f3f4f6; color: #1a1d21; }
  main { max-width: 36rem; margin: 0 auto; padding: 1.25rem; background: #fff; min-height: 100vh; }
  @media (min-width: 40rem) { main { margin: 2rem auto; min-height: 0; border-radius: 8px; box-shadow: 0 1px 3px #0002; padding: 2rem; } }
  h1 { font-size: 1.5rem; margin: 0 0 1rem; }
  h2 { font-size: 1.15rem; margin: 1.5rem 0 .5rem; }
  dl { display: grid; grid-template-columns: minmax(6rem, max-content) 1fr; gap: .35rem 1rem; margin: 0; }
  dt { font-weight: 600; }
  dd { margin: 0; overflow-wrap: anywhere; }
  p.muted, .muted { color: #4a5260; }
  a { color: #1f4fb8; }
  a:focus-visible, button:focus-visible, input:focus-visible, textarea:focus-visible, [tabindex]:focus-visible {
    outline: 3px solid #1f4fb8; outline-offset: 2px; }
  .actions { display: flex; flex-wrap: wrap; gap: .75rem; margin-top: 1.5rem; align-items: center; }
  .button, button { display: inline-block; font: inherit; font-weight: 600; padding: .65rem 1.1rem; border-radius: 6px;
    border: 2px solid #1f4fb8; background: #fff; color: #1f4fb8; text-decoration: none; cursor: pointer; min-height: 44px; }
  .button.primary, button.primary { background: #1f4fb8; color: #fff; }
  button.danger { background: #a11a1a; border-color: #a11a1a; color: #fff; }
  .notice { padding: .75rem 1rem; border-radius: 6px; margin: 0 0 1rem; }
  .notice.error { background: #fdecec; color: #7a1212; border: 1px solid #e6a3a3; }
  .notice.ok { background: #e7f5ea; color: #14521f; border: 1px solid #9ccaa6; }
  .notice.info { background: #eef2fb; color: #1a2f66; border: 1px solid #b3c3ea; }
  label { display: block; font-weight: 600; margin-top: 1rem; }
  textarea { width: 100%; font: inherit; padding: .5rem; border: 1px solid #6b7280; border-radius: 4px; }
  fieldset { border: 1px solid #c5cad3; border-radius: 6px; margin: 1rem 0; padding: .5rem .75rem .75rem; min-width: 0; }
  legend { font-weight: 600; padding: 0 .25rem; }
  .slots { display: flex; flex-wrap: wrap; gap: .5rem; }
  .slot { position: relative; }
  .slot input { position: absolute; opacity: 0; width: 1px; height: 1px; }
  .slot label { margin: 0; font-weight: 500; padding: .45rem .7rem; border: 1px solid #6b7280; border-radius: 4px;
    min-width: 4.5rem; text-align: center; cursor: pointer; }
  .slot input:checked + label { background: #1f4fb8; color: #fff; border-color: #1f4fb8; }
  .slot input:focus-visible + label { outline: 3px solid #1f4fb8; outline-offset: 2px; }
  .pager { display: flex; justify-content: space-between; gap: .75rem; flex-wrap: wrap; margin-top: 1rem; }
  table.money { border-collapse: collapse; margin: .5rem 0; }
  table.money th, table.money td { text-align: left; padding: .25rem 1rem .25rem 0; }
`;

// Adds the booking's time in the browser's zone to every [data-local] element, and moves focus
// to a page's message so a screen reader reads it first.
const SCRIPT = `(function () {
  var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  document.querySelectorAll('[data-local]').forEach(function (el) {
    var s = new Date(el.getAttribute('data-start')), e = new Date(el.getAttribute('data-end'));
    var day = new Intl.DateTimeFormat(undefined, { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', hour: '2-digit', minute: '2-digit' });
    var end = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', timeZoneName: 'short' });
    el.querySelector('[data-out]').textContent = day.format(s) + '\\u2013' + end.format(e) + ' (' + zone + ')';
    el.hidden = false;
  });
  var msg = document.querySelector('.notice[tabindex]');
  if (msg) msg.focus();
})();`;

const SCRIPT_HASH = createHash('sha256').update(SCRIPT).digest('base64');

/** The pages' policy: nothing from elsewhere, our one inline script by its hash, forms to us. */
export const MANAGE_CSP = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  `script-src 'sha256-${SCRIPT_HASH}'`,
  "img-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export function managePage(title: string, body: ComponentChildren): string {
  return renderDocument(
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <meta name="robots" content="noindex, nofollow" />
        <link rel="icon" href="data:," />
        <title>{title}</title>
        <style dangerouslySetInnerHTML={{ __html: STYLE }} />
      </head>
      <body>
        <main id="content">{body}</main>
        {/* The one inline script, allowed by its hash in MANAGE_CSP: a constant, never data. */}
        <script dangerouslySetInnerHTML={{ __html: SCRIPT }} />
      </body>
    </html>,
  );
}

export type NoticeKind = 'error' | 'ok' | 'info';
export interface Notice {
  kind: NoticeKind;
  text: string;
}

export function NoticeText({ notice: n }: { notice: Notice | null | undefined }) {
  if (!n) return null;
  return (
    <p class={`notice ${n.kind}`} role={n.kind === 'error' ? 'alert' : 'status'} tabindex={-1}>
      {n.text}
    </p>
  );
}

/** "Monday 30 March 2026, 10:00–11:00 CET" in `zone`, named. */
export function formatSlot(start: Date, end: Date, zone: string): string {
  const s = DateTime.fromJSDate(start, { zone });
  const e = DateTime.fromJSDate(end, { zone });
  return `${s.toFormat('cccc d LLLL yyyy, HH:mm')}–${e.toFormat('HH:mm')} ${s.toFormat('ZZZZ')} (${zone})`;
}

export const formatInstant = (d: Date, zone: string) =>
  DateTime.fromJSDate(d, { zone }).toFormat("cccc d LLLL yyyy 'at' HH:mm ZZZZ");

export function formatMoney(amount: number, currency: string): string {
  const fmt = new Intl.NumberFormat('en', { style: 'currency', currency });
  return fmt.format(amount / 10 ** (fmt.resolvedOptions().maximumFractionDigits ?? 2));
}

/** The 404 of every link that opens nothing: the same words whatever the reason. */
export function notFoundPage(): string {
  return managePage(
    'Link not found',
    <>
      <h1>Link not found</h1>
      <p>
        This booking link does not work. It may have been mistyped, replaced by a newer link, or it may have expired.
      </p>
      <p class="muted">
        If you need to change a booking, use the latest e-mail from the business or contact them directly.
      </p>
    </>,
  );
}

/** Any other page that ends a request (too many requests, a refused form, an error of ours). */
export function messagePage(title: string, text: string): string {
  return managePage(
    title,
    <>
      <h1>{title}</h1>
      <NoticeText notice={{ kind: 'error', text }} />
    </>,
  );
}
