// The one login form (docs/oauth.md: inputs labelled Email and Password, a button Sign in; "the
// admin area's login is the same form"). It posts to `action` with the CSRF token of the
// pre-session cookie and `next`, the local path to return to.
import { esc, hiddenInputs, page } from './html.js';

export interface LoginPageOptions {
  action: string;
  csrfToken: string;
  next: string;
  email?: string;
  error?: string;
  /** Shown above the form, e.g. which application asks. */
  intro?: string;
}

export function loginPage(o: LoginPageOptions): string {
  return page(
    'Sign in',
    `<h1>Sign in</h1>
    ${o.intro ? `<p>${esc(o.intro)}</p>` : ''}
    ${o.error ? `<p class="error" role="alert">${esc(o.error)}</p>` : ''}
    <form method="post" action="${esc(o.action)}">
      ${hiddenInputs({ csrf_token: o.csrfToken, next: o.next })}
      <label for="email">Email</label>
      <input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value="${esc(o.email ?? '')}"${o.email ? '' : ' autofocus'}>
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required maxlength="256"${o.email ? ' autofocus' : ''}>
      <button type="submit" class="primary">Sign in</button>
    </form>`,
  );
}
