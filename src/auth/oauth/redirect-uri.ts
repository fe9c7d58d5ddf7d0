// Redirect URI rules (OAuth 2.1 §2.3.1, §8.4; RFC 8252 §7.3): registered URIs are absolute,
// without fragment, https — or http on a loopback IP literal — or a native app's private-use
// scheme (reverse domain name). The URI of an authorization request must equal a registered
// one character for character (no normalisation: a trailing slash, another case or an extra
// query parameter is another URI), except that on a loopback IP literal any port matches,
// because native apps listen on an ephemeral port.

const LOOPBACK = /^http:\/\/(127\.0\.0\.1|\[::1\])(?::([1-9]\d{0,4}))?([/?].*)?$/;
// RFC 8252 §7.1: a private-use scheme is a reverse domain name, e.g. com.example.app:/cb
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:/;
// eslint-disable-next-line no-control-regex
const FORBIDDEN_CHARS = /[\u0000-\u0020\u007f<>"`\\{}|^]/;

/** Why a URI cannot be registered, or null when it can. */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length > 2000) return 'must be at most 2000 characters';
  if (FORBIDDEN_CHARS.test(uri)) return 'must not contain spaces, control characters or unsafe characters';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'must be an absolute URI';
  }
  if (uri.includes('#')) return 'must not contain a fragment';
  if (url.username || url.password) return 'must not contain user information';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:') {
    return LOOPBACK.test(uri) || url.hostname === 'localhost'
      ? null
      : 'must use https (http is allowed only for 127.0.0.1, [::1] and localhost)';
  }
  if (PRIVATE_USE_SCHEME.test(uri) && !/^(javascript|data|vbscript|file):/i.test(uri)) return null;
  return 'must use https, http on a loopback address, or a reverse-domain private-use scheme';
}

/** A loopback redirect URI without its port; null for anything else, or a port outside 1–65535. */
function withoutLoopbackPort(uri: string): string | null {
  const m = LOOPBACK.exec(uri);
  if (!m || (m[2] !== undefined && Number(m[2]) > 65535)) return null;
  // What cannot be parsed cannot be redirected to (buildRedirect would throw).
  if (!URL.canParse(uri)) return null;
  return `http://${m[1]}${m[3] ?? ''}`;
}

/** Whether a requested redirect URI matches a registered one (exact; loopback: any port). */
export function redirectUriMatches(registered: string, requested: string): boolean {
  if (registered === requested) return true;
  const a = withoutLoopbackPort(registered);
  const b = withoutLoopbackPort(requested);
  return a !== null && a === b;
}

/** The redirect URI with the response parameters added (its own query kept, RFC 6749 §3.1.2). */
export function buildRedirect(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.append(k, v);
  return url.toString();
}
