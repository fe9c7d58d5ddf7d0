// OAuth 2.1 for a third-party app (docs/oauth.md): the authorization URL with PKCE (S256) and
// a state, the callback's checks (state, iss, error), the code exchange and refresh at the
// token endpoint, and revocation. The endpoints answer in the RFCs' formats, not the API's
// envelope; their errors are OAuthError.
import { OAuthError } from './errors.js';

export interface OAuthOptions {
  /** The authorization server's origin (the server's AUTH_URL, by default its BASE_URL). */
  authUrl: string;
  clientId: string;
  /** A confidential client's secret (sent with HTTP Basic); leave out for a public client. */
  clientSecret?: string;
  /** The redirect URI registered for the client. */
  redirectUri?: string;
  fetch?: typeof fetch;
}

export interface TokenSet {
  accessToken: string;
  tokenType: string;
  /** Seconds the access token lives, as the server said. */
  expiresIn: number;
  /** When the access token expires, in milliseconds since the epoch. */
  expiresAt: number;
  /** Spent by the next refresh, which answers a new one. */
  refreshToken: string | undefined;
  scope: string;
}

export interface Pkce {
  codeVerifier: string;
  codeChallenge: string;
  codeChallengeMethod: 'S256';
}

function base64url(bytes: Uint8Array): string {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function randomString(bytes = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** A PKCE pair: a random 43-character verifier and its S256 challenge. */
export async function createPkce(codeVerifier = randomString(32)): Promise<Pkce> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(codeVerifier));
  return { codeVerifier, codeChallenge: base64url(new Uint8Array(digest)), codeChallengeMethod: 'S256' };
}

export class OAuth {
  readonly authUrl: string;
  readonly #o: OAuthOptions;
  readonly #fetch: typeof fetch;

  constructor(options: OAuthOptions) {
    this.authUrl = options.authUrl.replace(/\/+$/, '');
    this.#o = options;
    this.#fetch = options.fetch ?? ((...args) => globalThis.fetch(...args));
  }

  /**
   * The URL to send the user to, with a new state and PKCE verifier (keep both in the user's
   * session: the callback's state must match, and the exchange needs the verifier).
   */
  async authorizationUrl(params: {
    scope: string | string[];
    state?: string;
    codeVerifier?: string;
    redirectUri?: string;
  }): Promise<{ url: string; state: string; codeVerifier: string }> {
    const state = params.state ?? randomString(16);
    const pkce = await createPkce(params.codeVerifier);
    const url = new URL(`${this.authUrl}/oauth/authorize`);
    const redirectUri = params.redirectUri ?? this.#o.redirectUri;
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', this.#o.clientId);
    if (redirectUri) url.searchParams.set('redirect_uri', redirectUri);
    url.searchParams.set('scope', Array.isArray(params.scope) ? params.scope.join(' ') : params.scope);
    url.searchParams.set('state', state);
    url.searchParams.set('code_challenge', pkce.codeChallenge);
    url.searchParams.set('code_challenge_method', pkce.codeChallengeMethod);
    return { url: url.href, state, codeVerifier: pkce.codeVerifier };
  }

  /**
   * The code from the redirect back to you, after checking that its state is yours and its
   * `iss` is this server; an `error` (the user denied, a bad scope) is thrown as OAuthError.
   */
  parseCallback(callbackUrl: string | URL, expected: { state: string }): { code: string } {
    const q = new URL(callbackUrl).searchParams;
    if (q.get('state') !== expected.state) throw new OAuthError('state_mismatch', 'the state is not the one sent');
    const iss = q.get('iss');
    if (iss !== null && iss !== this.authUrl)
      throw new OAuthError('issuer_mismatch', `the callback is from ${iss}, not ${this.authUrl}`);
    const error = q.get('error');
    if (error) throw new OAuthError(error, q.get('error_description') ?? undefined);
    const code = q.get('code');
    if (!code) throw new OAuthError('invalid_request', 'the callback has no code');
    return { code };
  }

  /** Exchanges an authorization code (with its PKCE verifier) for tokens. */
  exchangeCode(params: { code: string; codeVerifier: string; redirectUri?: string }): Promise<TokenSet> {
    const redirectUri = params.redirectUri ?? this.#o.redirectUri;
    return this.#token({
      grant_type: 'authorization_code',
      code: params.code,
      code_verifier: params.codeVerifier,
      ...(redirectUri ? { redirect_uri: redirectUri } : {}),
    });
  }

  /** A new access token; the refresh token is spent and a new one comes with the answer. */
  refresh(refreshToken: string): Promise<TokenSet> {
    return this.#token({ grant_type: 'refresh_token', refresh_token: refreshToken });
  }

  /** Revokes a token (RFC 7009); a refresh token's whole grant with it. */
  async revoke(token: string): Promise<void> {
    await this.#post('/oauth/revoke', { token });
  }

  async #token(fields: Record<string, string>): Promise<TokenSet> {
    const body = (await this.#post('/oauth/token', fields)) as {
      access_token: string;
      token_type: string;
      expires_in: number;
      refresh_token?: string;
      scope?: string;
    };
    return {
      accessToken: body.access_token,
      tokenType: body.token_type,
      expiresIn: body.expires_in,
      expiresAt: Date.now() + body.expires_in * 1000,
      refreshToken: body.refresh_token,
      scope: body.scope ?? '',
    };
  }

  async #post(path: string, fields: Record<string, string>): Promise<unknown> {
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    const form = new URLSearchParams(fields);
    if (this.#o.clientSecret !== undefined) {
      // client_secret_basic: each part form-encoded first (RFC 6749, 2.3.1).
      const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
      headers.authorization = `Basic ${btoa(`${enc(this.#o.clientId)}:${enc(this.#o.clientSecret)}`)}`;
    } else form.set('client_id', this.#o.clientId);
    const res = await this.#fetch(`${this.authUrl}${path}`, { method: 'POST', headers, body: form.toString() });
    const text = await res.text();
    let json: { error?: string; error_description?: string } | undefined;
    try {
      json = text ? (JSON.parse(text) as typeof json) : {};
    } catch {
      json = undefined;
    }
    if (!res.ok || !json)
      throw new OAuthError(json?.error ?? `http_${res.status}`, json?.error_description, res.status);
    return json;
  }
}
