// Drives the authorization server over HTTP the way a browser and a client backend would:
// the login form, the consent form (cookies and CSRF tokens carried along), and the token
// endpoint. Nothing of ours is bypassed; records are only read to assert on them.
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { Databases } from '../../../src/db/databases.js';
import { createOAuthClient } from '../../../src/schema/credentials/create-oauth-client.js';
import { createAccountWithKeys } from '../../helpers/factories.js';

export const REDIRECT = 'https://client.example.com/callback';

export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  return { verifier, challenge };
}

export async function createWorld(dbs: Databases) {
  const owner = await createAccountWithKeys(dbs);
  const confidential = await createOAuthClient(dbs, {
    accountId: owner.account.id,
    name: 'Acme Scheduler',
    redirectUris: [REDIRECT],
    scopes: ['company:read', 'company:write', 'bookings:read', 'bookings:write'],
    type: 'confidential',
  });
  const publicClient = await createOAuthClient(dbs, {
    accountId: owner.account.id,
    name: 'Acme Mobile',
    redirectUris: ['http://127.0.0.1/callback', 'com.acme.app:/oauth'],
    type: 'public',
  });
  return {
    ...owner,
    confidential: { clientId: confidential.client.clientId, secret: confidential.clientSecret! },
    publicClient: { clientId: publicClient.client.clientId },
  };
}

export type World = Awaited<ReturnType<typeof createWorld>>;

export const form = (fields: Record<string, string | string[] | undefined>) => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) {
    if (Array.isArray(v)) for (const x of v) q.append(k, x);
    else if (v !== undefined) q.append(k, v);
  }
  return q.toString();
};

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

export function hiddenValue(html: string, name: string): string {
  const m = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (!m) throw new Error(`no hidden ${name} in page`);
  return m[1]!
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
}

export class Browser {
  readonly cookies = new Map<string, string>();
  /** remoteAddress: the client's IP, for the per-IP limits (inject's default is 127.0.0.1). */
  constructor(
    private readonly app: FastifyInstance,
    private readonly opts: { remoteAddress?: string } = {},
  ) {}

  get cookieHeader() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(method: 'GET' | 'POST', url: string, body?: Record<string, string | string[] | undefined>) {
    const res = await this.app.inject({
      method,
      url,
      ...(this.opts.remoteAddress ? { remoteAddress: this.opts.remoteAddress } : {}),
      headers: { ...(body ? FORM : {}), ...(this.cookies.size ? { cookie: this.cookieHeader } : {}) },
      ...(body ? { payload: form(body) } : {}),
    });
    for (const c of res.cookies as Array<{ name: string; value: string; maxAge?: number }>) {
      if (c.value === '' || c.maxAge === 0) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    return res;
  }

  async login(email: string, password: string, next = '/oauth/authorize') {
    const page = await this.request('GET', next);
    const csrf = hiddenValue(page.body, 'csrf_token');
    const res = await this.request('POST', '/oauth/login', {
      email,
      password,
      csrf_token: csrf,
      next: hiddenValue(page.body, 'next'),
    });
    expect(res.statusCode).toBe(303);
    return res;
  }

  /** GET authorize (logging in first when needed), then answer the consent form. */
  async authorize(
    query: Record<string, string | undefined>,
    who: { email: string; password: string },
    decide: { decision?: 'approve' | 'deny'; company?: string; grantScopes?: string[] } = {},
  ) {
    const url = `/oauth/authorize?${form(query)}`;
    let page = await this.request('GET', url);
    if (page.statusCode === 200 && page.body.includes('name="password"')) {
      await this.login(who.email, who.password, url);
      page = await this.request('GET', url);
    }
    if (page.statusCode !== 200) return page;
    const fields: Record<string, string | string[] | undefined> = {
      csrf_token: hiddenValue(page.body, 'csrf_token'),
    };
    for (const k of [
      'response_type',
      'client_id',
      'redirect_uri',
      'scope',
      'state',
      'code_challenge',
      'code_challenge_method',
    ]) {
      fields[k] = page.body.includes(`name="${k}"`) ? hiddenValue(page.body, k) : undefined;
    }
    const firstCompany = /<option value="([^"]+)"/.exec(page.body)?.[1];
    fields.company = decide.company ?? firstCompany ?? hiddenValue(page.body, 'company');
    fields.decision = decide.decision ?? 'approve';
    // The boxes of opt-in scopes (logs:read) a person ticked; none unless told.
    if (decide.grantScopes) fields.grant_scope = decide.grantScopes;
    return this.request('POST', '/oauth/authorize', fields);
  }
}

/**
 * A person with a cookie jar following the login and consent pages over a real socket (what
 * Browser does through inject), from an authorization URL to the redirect back to the client.
 * `onConsent` sees the consent page before it is answered.
 */
export async function approveOverHttp(
  origin: string,
  authorizationUrl: string | URL,
  who: { email: string; password: string },
  opts: { decision?: 'approve' | 'deny'; company?: string; onConsent?: (html: string) => void } = {},
): Promise<URL> {
  const jar = new Map<string, string>();
  const go = async (url: string, body?: Record<string, string>) => {
    const res = await fetch(new URL(url, origin), {
      method: body ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        ...(body ? FORM : {}),
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
      },
      body: body ? new URLSearchParams(body).toString() : undefined,
    });
    for (const c of res.headers.getSetCookie()) {
      const [name, value] = c.split(';')[0]!.split('=');
      jar.set(name!, value!);
    }
    return { res, html: await res.text() };
  };
  const hidden = (html: string) =>
    Object.fromEntries(
      [...html.matchAll(/type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [
        m[1]!,
        m[2]!.replace(/&amp;/g, '&'),
      ]),
    );
  const login = await go(String(authorizationUrl));
  expect(login.res.status).toBe(200);
  const loggedIn = await go('/oauth/login', { ...hidden(login.html), email: who.email, password: who.password });
  expect(loggedIn.res.status).toBe(303);
  const consent = await go(loggedIn.res.headers.get('location')!);
  opts.onConsent?.(consent.html);
  const company = opts.company ?? /<option value="([^"]+)"/.exec(consent.html)?.[1] ?? hidden(consent.html).company!;
  const done = await go('/oauth/authorize', {
    ...hidden(consent.html),
    company,
    decision: opts.decision ?? 'approve',
  });
  expect(done.res.status).toBe(303);
  return new URL(done.res.headers.get('location')!);
}

/** The code (and the whole redirect) from an approved consent. */
export function codeFrom(res: { statusCode: number; headers: Record<string, unknown> }) {
  expect(res.statusCode).toBe(303);
  const location = new URL(String(res.headers.location));
  return { code: location.searchParams.get('code')!, location };
}

export async function tokenRequest(
  app: FastifyInstance,
  fields: Record<string, string | string[] | undefined>,
  headers: Record<string, string> = {},
  remoteAddress?: string,
) {
  return app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: { ...FORM, ...headers },
    payload: form(fields),
    ...(remoteAddress ? { remoteAddress } : {}),
  });
}

export const basic = (id: string, secret: string) => ({
  authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`,
});
