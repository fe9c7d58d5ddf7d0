// The template layer of every page (the OAuth pages, the admin area, the manage links, the site
// root): JSX rendered to a string by preact-render-to-string. Text and attribute values are
// escaped by the renderer, so a page cannot forget to; raw HTML needs preact's explicit
// `dangerouslySetInnerHTML`, used only for this app's own constant style sheets and scripts.
// Also the page shell shared by the login, consent and error pages: plain, accessible HTML with
// no scripts and no external assets (docs/oauth.md), served with headers that keep it out of
// frames and caches.
import type { FastifyReply } from 'fastify';
import type { ComponentChildren, VNode } from 'preact';
import { render } from 'preact-render-to-string';

/** A whole HTML document: the doctype and the rendered page. */
export function renderDocument(page: VNode): string {
  return `<!doctype html>\n${render(page)}\n`;
}

/** A part of a page rendered to HTML on its own (to be kept, and placed in a page as it is). */
export function renderFragment(node: ComponentChildren): string {
  return render(<>{node}</>);
}

/** Hidden form fields; an undefined value is left out. */
export function HiddenInputs({ fields }: { fields: Record<string, string | undefined> }) {
  return (
    <>
      {Object.entries(fields)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => (
          <input type="hidden" name={k} value={v} />
        ))}
    </>
  );
}

const STYLE = `
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f6f7f9; color: #1a1d21; }
  main { max-width: 28rem; margin: 4rem auto; padding: 2rem; background: #fff; border-radius: 8px; box-shadow: 0 1px 3px #0002; }
  @media (max-width: 32rem) { main { margin: 0; padding: 1.25rem; border-radius: 0; box-shadow: none; min-height: 100vh; } }
  *, *::before, *::after { box-sizing: border-box; }
  h1 { font-size: 1.4rem; margin-top: 0; overflow-wrap: anywhere; }
  p, li { overflow-wrap: anywhere; }
  label { display: block; font-weight: 600; margin-top: 1rem; }
  input, select { width: 100%; box-sizing: border-box; padding: .5rem; font: inherit; margin-top: .25rem; }
  input[type="checkbox"] { width: auto; }
  button { font: inherit; padding: .6rem 1.2rem; margin-top: 1.5rem; margin-right: .5rem; cursor: pointer; }
  button[value="approve"], button.primary { background: #1f5fd6; color: #fff; border: 0; border-radius: 4px; }
  a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible { outline: 3px solid #1f5fd6; outline-offset: 2px; }
  .error { color: #a61b1b; background: #fdecec; padding: .75rem; border-radius: 4px; }
  ul.scopes li { margin: .25rem 0; }
  code { font-size: .9em; }
`;

/** The shell of the sign-in pages: one centred panel. */
export function Page({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>{title}</title>
        <style dangerouslySetInnerHTML={{ __html: STYLE }} />
      </head>
      <body>
        <main>{children}</main>
      </body>
    </html>
  );
}

/**
 * Sends a page. No framing (clickjacking of the consent buttons), no caching (it may carry a
 * CSRF token), no referrer (the URL carries OAuth parameters). No form-action directive:
 * Chromium applies it to the redirect that follows a form post, which here leaves for the
 * client's redirect URI.
 */
export function sendPage(
  reply: FastifyReply,
  status: number,
  html: string,
  opts: { csp?: string; referrerPolicy?: string } = {},
): FastifyReply {
  return reply
    .status(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', opts.referrerPolicy ?? 'no-referrer')
    .header(
      'content-security-policy',
      opts.csp ?? "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
    )
    .send(html);
}

/** A dead end the user cannot be sent back from (unknown client, bad redirect URI; RFC 6749 §4.1.2.1). */
export function errorPage(title: string, message: string): string {
  return renderDocument(
    <Page title={title}>
      <h1>{title}</h1>
      <p class="error" role="alert">
        {message}
      </p>
      <p>If you followed a link from an application, tell its developers; nothing was shared with it.</p>
    </Page>,
  );
}
