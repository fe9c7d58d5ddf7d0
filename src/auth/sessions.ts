// People's sessions (issue 4 point 1), shared by the OAuth pages and the admin area: e-mail and
// password checked with argon2id, a random session cookie (HttpOnly, SameSite=Lax, Secure
// behind HTTPS) whose SHA-256 is stored, a CSRF token per session for every form, and a
// pre-session CSRF cookie for the login form itself (login CSRF). Failed logins are counted per
// account e-mail and per IP (shared through Redis when configured) and refused beyond a limit.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hashPassword, verifyPassword } from '../crypto/password.js';
import type { Account, Session } from '../generated/prisma/client.js';
import { newId } from '../ids.js';
import type { Services } from '../services.js';
import { createAttemptLimiter, type AttemptLimiter } from './attempt-limiter.js';
import { hashToken } from './tokens.js';

export const SESSION_COOKIE = 'svc_session';
export const LOGIN_CSRF_COOKIE = 'svc_login_csrf';
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/** Failed logins: per e-mail (guessing one account's password) and per IP (spraying many). */
export const LOGIN_LIMITS = {
  perEmail: { max: 10, windowMs: 15 * 60 * 1000 },
  perIp: { max: 50, windowMs: 15 * 60 * 1000 },
} as const;

export const nowOf = (services: Services) => (services.now ? services.now() : Date.now());

const randomToken = () => randomBytes(32).toString('base64url');

// Where the login form may return to: the OAuth authorize endpoint, or the admin area (the same
// login form serves both, docs/oauth.md).
const SAFE_NEXT = /^\/(oauth\/authorize(\?[^\\#]*)?|admin(\/[^\\#?]*)?(\?[^\\#]*)?)$/;

// No dot segments (also percent-encoded, which URL parsers resolve too): /admin/../x leaves /admin.
const DOT_SEGMENT = /(^|\/)(\.|%2e){1,2}(\/|\?|$)/i;

// Printable ASCII only: it becomes a Location header, where a control character (CR LF) or
// one beyond Latin-1 would make Node throw — a 500 instead of a redirect.
const PRINTABLE = /^[\x21-\x7e]*$/;

export const isSafeNext = (next: unknown): next is string =>
  typeof next === 'string' &&
  next.length <= 4000 &&
  PRINTABLE.test(next) &&
  SAFE_NEXT.test(next) &&
  !DOT_SEGMENT.test(next);

/** Form bodies and cookies, for an encapsulated context that serves pages (OAuth, admin). */
export async function registerPageSupport(app: FastifyInstance): Promise<void> {
  await app.register(formbody, { bodyLimit: 64 * 1024 });
  await app.register(cookie);
}

function cookieOptions(req: FastifyRequest, maxAgeMs: number) {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    // Behind a TLS-terminating proxy req.protocol honours TRUST_PROXY.
    secure: req.protocol === 'https',
    maxAge: Math.floor(maxAgeMs / 1000),
  };
}

export function sameSecret(expected: string, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The login form's CSRF token: a cookie of its own, created when missing (double submit). */
export function loginCsrfToken(req: FastifyRequest, reply: FastifyReply): string {
  const existing = req.cookies[LOGIN_CSRF_COOKIE];
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const token = randomToken();
  reply.setCookie(LOGIN_CSRF_COOKIE, token, cookieOptions(req, 60 * 60 * 1000));
  return token;
}

export function checkLoginCsrf(req: FastifyRequest, given: unknown): boolean {
  const expected = req.cookies[LOGIN_CSRF_COOKIE];
  return !!expected && sameSecret(expected, given);
}

export interface ActiveSession {
  session: Session;
  account: Account;
}

export async function readSession(services: Services, req: FastifyRequest): Promise<ActiveSession | null> {
  const token = req.cookies[SESSION_COOKIE];
  if (!token || token.length > 100) return null;
  const prisma = services.dbs.live.prisma;
  const session = await prisma.session.findUnique({ where: { tokenHash: hashToken(token) } });
  if (!session || session.expiresAt.getTime() <= nowOf(services)) return null;
  const account = await prisma.account.findUnique({ where: { id: session.accountId } });
  return account ? { session, account } : null;
}

export async function startSession(
  services: Services,
  req: FastifyRequest,
  reply: FastifyReply,
  accountId: string,
): Promise<Session> {
  const token = randomToken();
  const session = await services.dbs.live.prisma.session.create({
    data: {
      id: newId(),
      tokenHash: hashToken(token),
      accountId,
      csrfToken: randomToken(),
      expiresAt: new Date(nowOf(services) + SESSION_TTL_MS),
    },
  });
  reply.setCookie(SESSION_COOKIE, token, cookieOptions(req, SESSION_TTL_MS));
  reply.clearCookie(LOGIN_CSRF_COOKIE, { path: '/' });
  return session;
}

export async function endSession(services: Services, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const token = req.cookies[SESSION_COOKIE];
  if (token) await services.dbs.live.prisma.session.deleteMany({ where: { tokenHash: hashToken(token) } });
  reply.clearCookie(SESSION_COOKIE, { path: '/' });
}

// An unknown e-mail costs the same argon2 work as a wrong password, so timing does not tell
// which accounts exist.
// eslint-disable-next-line no-restricted-syntax -- process state: login timing hash
let dummyHash: Promise<string> | undefined;
const getDummyHash = () => (dummyHash ??= hashPassword(randomToken()));

export type LoginResult =
  | { ok: true; account: Account }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'rate_limited'; retryAfter: number };

export class LoginChecker {
  private readonly limiter: AttemptLimiter<'email' | 'ip'>;

  constructor(private readonly services: Services) {
    const { redis, config, logger } = services;
    this.limiter = createAttemptLimiter(redis, `${config.REDIS_PREFIX}login:`, {
      buckets: { email: LOGIN_LIMITS.perEmail, ip: LOGIN_LIMITS.perIp },
      now: () => nowOf(services),
      onError: (err: Error) => logger.warn({ err: { message: err.message } }, 'login limiter: redis unavailable'),
    });
  }

  /**
   * The attempt is counted before the password is checked, so parallel guesses cannot all slip
   * through while argon2 runs; a success takes its count back from the IP and clears the
   * e-mail's failures.
   */
  async check(emailInput: string, password: string, ip: string): Promise<LoginResult> {
    const email = emailInput.trim().toLowerCase();
    const wait = await this.limiter.hit({ email, ip });
    if (wait > 0) return { ok: false, reason: 'rate_limited', retryAfter: wait };
    const account = email ? await this.services.dbs.live.prisma.account.findUnique({ where: { email } }) : null;
    const valid = await verifyPassword(account?.passwordHash ?? (await getDummyHash()), password);
    if (!account || !valid) return { ok: false, reason: 'invalid' };
    await Promise.all([this.limiter.reset({ email }), this.limiter.undo({ ip })]);
    return { ok: true, account };
  }
}
