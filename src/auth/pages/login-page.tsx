// The one login form (docs/oauth.md: inputs labelled Email and Password, a button Sign in; "the
// admin area's login is the same form"). It posts to `action` with the CSRF token of the
// pre-session cookie and `next`, the local path to return to.
import { HiddenInputs, Page, renderDocument } from './html.js';

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
  return renderDocument(
    <Page title="Sign in">
      <h1>Sign in</h1>
      {o.intro && <p>{o.intro}</p>}
      {o.error && (
        <p class="error" role="alert">
          {o.error}
        </p>
      )}
      <form method="post" action={o.action}>
        <HiddenInputs fields={{ csrf_token: o.csrfToken, next: o.next }} />
        <label for="email">Email</label>
        <input
          id="email"
          name="email"
          type="email"
          autocomplete="username"
          required
          maxlength={254}
          value={o.email ?? ''}
          autofocus={!o.email}
        />
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
          maxlength={256}
          autofocus={!!o.email}
        />
        <button type="submit" class="primary">
          Sign in
        </button>
      </form>
    </Page>,
  );
}
