// Validation of an authorization request, in OAuth 2.1's order (§4.1.2.1): first what decides
// whether the user may be sent back at all — the client and the redirect URI; any problem
// there is an error page (400), never a redirect, so the endpoint cannot be used as an open
// redirector. Only then the rest, whose errors go back to the client's redirect URI with
// `state` and `iss` (RFC 9207).
import type { OAuthClient } from '../../generated/prisma/client.js';
import type { Services } from '../../services.js';
import { parseScopes, type Scope } from '../scopes.js';
import { redirectUriMatches } from './redirect-uri.js';

export const AUTHORIZE_PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
] as const;

export type AuthorizeParams = Partial<Record<(typeof AUTHORIZE_PARAMS)[number], string>>;

export type AuthorizeCheck =
  | { kind: 'page'; title: string; message: string }
  | { kind: 'redirect'; redirectUri: string; error: string; description: string; state?: string }
  | {
      kind: 'ok';
      client: OAuthClient;
      redirectUri: string;
      redirectUriGiven: boolean;
      scopes: Scope[];
      state?: string;
      codeChallenge?: string;
      codeChallengeMethod?: string;
      /** The request's own parameters, to carry through the login and consent forms. */
      params: AuthorizeParams;
    };

// RFC 7636 §4.2: an S256 challenge is the base64url SHA-256 of the verifier, 43 characters.
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

// eslint-disable-next-line no-control-regex
export const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

/** The first parameter with a control character in any of its values (none belongs in them). */
export function paramWithControlChar(raw: Record<string, unknown>, names: readonly string[]): string | undefined {
  return names.find((name) => {
    const v = raw[name];
    return (Array.isArray(v) ? v : [v]).some((x) => typeof x === 'string' && CONTROL_CHARS.test(x));
  });
}

const one = (v: unknown): string | undefined | null =>
  v === undefined || v === '' ? undefined : typeof v === 'string' ? v : null;

export async function checkAuthorizeRequest(services: Services, raw: Record<string, unknown>): Promise<AuthorizeCheck> {
  // Before anything is looked up: no parameter of this request may carry NUL (PostgreSQL
  // refuses it in text) or another control character (none of their grammars allows one),
  // and as the client is not known yet the answer is the error page.
  const bad = paramWithControlChar(raw, AUTHORIZE_PARAMS);
  if (bad) return { kind: 'page', title: 'Invalid request', message: `${bad} contains a control character.` };
  const clientId = one(raw.client_id);
  if (clientId === null) return { kind: 'page', title: 'Invalid request', message: 'client_id is repeated.' };
  if (clientId === undefined)
    return { kind: 'page', title: 'Invalid request', message: 'The request names no client (client_id is missing).' };
  const client =
    clientId.length <= 100 ? await services.dbs.live.prisma.oAuthClient.findUnique({ where: { clientId } }) : null;
  if (!client)
    return { kind: 'page', title: 'Unknown application', message: 'No application is registered with this client_id.' };

  const requested = one(raw.redirect_uri);
  if (requested === null) return { kind: 'page', title: 'Invalid request', message: 'redirect_uri is repeated.' };
  let redirectUri: string;
  if (requested === undefined) {
    // The library would silently take the first registered URI; OAuth 2.1 §2.3.2 requires the
    // parameter whenever the client registered several.
    if (client.redirectUris.length !== 1) {
      return {
        kind: 'page',
        title: 'Invalid request',
        message: 'This application registered several redirect URIs; the request must name one (redirect_uri).',
      };
    }
    redirectUri = client.redirectUris[0]!;
  } else {
    if (!client.redirectUris.some((r) => redirectUriMatches(r, requested))) {
      return {
        kind: 'page',
        title: 'Invalid redirect URI',
        message: 'The redirect_uri is not one this application registered.',
      };
    }
    redirectUri = requested;
  }

  // From here on errors are redirected to the client.
  const stateValue = one(raw.state);
  const state = stateValue ?? undefined;
  const fail = (error: string, description: string): AuthorizeCheck => ({
    kind: 'redirect',
    redirectUri,
    error,
    description,
    state,
  });
  if (stateValue === null)
    return { kind: 'redirect', redirectUri, error: 'invalid_request', description: 'state is repeated' };
  for (const name of AUTHORIZE_PARAMS)
    if (one(raw[name]) === null) return fail('invalid_request', `${name} is repeated`);

  const params: AuthorizeParams = {};
  for (const name of AUTHORIZE_PARAMS) {
    const v = one(raw[name]);
    if (v !== undefined && v !== null) params[name] = v;
  }
  params.client_id = clientId;

  if (params.response_type === undefined) return fail('invalid_request', 'response_type is missing');
  if (params.response_type !== 'code') return fail('unsupported_response_type', 'Only response_type=code is supported');

  const method = params.code_challenge_method;
  const challenge = params.code_challenge;
  if (method !== undefined && method !== 'S256')
    return fail('invalid_request', 'code_challenge_method must be S256 (plain is not supported)');
  if (challenge !== undefined) {
    // RFC 7636 §4.3: no method means plain, which is not supported.
    if (method === undefined)
      return fail('invalid_request', 'code_challenge_method=S256 is required with code_challenge');
    if (!S256_CHALLENGE.test(challenge))
      return fail('invalid_request', 'code_challenge must be 43 base64url characters (S256)');
  } else if (method !== undefined) {
    return fail('invalid_request', 'code_challenge_method was sent without code_challenge');
  } else if (client.type === 'public') {
    return fail(
      'invalid_request',
      'PKCE is required for public clients: send code_challenge with code_challenge_method=S256',
    );
  }

  if (params.scope === undefined) return fail('invalid_scope', 'scope is required, e.g. scope=bookings:read');
  const { scopes, unknown } = parseScopes(params.scope);
  if (unknown.length) return fail('invalid_scope', `Unknown scope: ${unknown[0]!.slice(0, 64)}`);
  if (scopes.length === 0) return fail('invalid_scope', 'scope is required, e.g. scope=bookings:read');
  const notAllowed = scopes.filter((s) => !client.scopes.includes(s));
  if (notAllowed.length) return fail('invalid_scope', `This application may not ask for ${notAllowed.join(' ')}`);

  return {
    kind: 'ok',
    client,
    redirectUri,
    redirectUriGiven: requested !== undefined,
    scopes,
    state,
    codeChallenge: challenge,
    codeChallengeMethod: challenge ? 'S256' : undefined,
    params,
  };
}
