// Bearer credential → company, with the resolution cached in memory (issue 2's benchmark:
// a database round trip per request costs most of the budget). Safety rules:
// - one lookup in flight per entry, and entries are refreshed ahead of expiry while still
//   served (stale-while-revalidate), so an expiring entry never stampedes the database;
// - the TTL is the longest a resolution is ever served: past half of it a request triggers a
//   background refresh, past all of it requests wait for a fresh lookup;
// - a revocation or profile change is published on the bus and drops the entry on every
//   instance at once; the TTL is only the backstop for a missed (or unpublishable) message;
// - an invalidation also detaches the lookups in flight that it concerns: callers arriving
//   after it start a lookup of their own, and the detached one's result is not cached.
import type { Logger } from 'pino';
import type { Bus } from '../bus.js';
import type { Databases } from '../db/databases.js';
import type { Company } from '../generated/prisma/client.js';
import type { Mode } from '../generated/prisma/enums.js';
import { deepFreeze } from '../frozen.js';
import { ALL_SCOPES, parseScopes, type Scope } from './scopes.js';
import { hashToken, parseToken } from './tokens.js';

export interface Credential {
  kind: 'api_key' | 'oauth_token';
  /** The ApiKey or OAuthToken record id. */
  id: string;
  /** What people call it: the API key's name, or the OAuth application's name for a token. */
  name: string;
  hash: string;
  mode: Mode;
  companyId: string;
  accountId: string;
  clientId: string | null;
  /** The OAuth grant an access token was issued under; null for API keys. */
  grantId: string | null;
  scopes: ReadonlySet<Scope>;
  company: Company;
  expiresAt: Date | null;
}

interface Entry {
  value: Credential | null;
  /** When the lookup that produced it started: the value is at least this fresh. */
  fetchedAt: number;
}

/** A lookup in flight; its identity is its generation (an invalidation replaces or drops it). */
interface Lookup {
  promise: Promise<Credential | null>;
}

const CHANNEL = 'credentials';
const MAX_ENTRIES = 50_000;
/** A publish that has not gone through by then is given up (logged); the TTL covers it. */
const PUBLISH_TIMEOUT_MS = 2000;

export interface CredentialResolverOptions {
  ttlMs: number;
  now?: () => number;
  /** How often lastUsedAt is written, batched (never a write per request). */
  lastUsedFlushMs?: number;
  /** Where a failed invalidation publish is reported. */
  logger?: Pick<Logger, 'warn'>;
}

export class CredentialResolver {
  private readonly cache = new Map<string, Entry>();
  private readonly inflight = new Map<string, Lookup>();
  private readonly lastUsed = new Map<string, { mode: Mode; at: number }>();
  /** The last write of lastUsedAt begun, by the timer or a caller; the next one waits for it. */
  private flushing: Promise<void> = Promise.resolve();
  private timer?: NodeJS.Timeout;
  private readonly now: () => number;

  constructor(
    private readonly dbs: Databases,
    private readonly bus: Bus,
    private readonly opts: CredentialResolverOptions,
  ) {
    this.now = opts.now ?? Date.now;
  }

  async start(): Promise<void> {
    await this.bus.subscribe(CHANNEL, (m) => this.onInvalidate(m));
    this.timer = setInterval(
      () => void this.flushLastUsed().catch(() => undefined),
      this.opts.lastUsedFlushMs ?? 15_000,
    );
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flushLastUsed().catch(() => undefined);
  }

  /** The credential a bearer string stands for, or null when it is not a live one. */
  async resolve(token: string): Promise<Credential | null> {
    const parsed = parseToken(token);
    if (!parsed || parsed.kind === 'rt') return null;
    const value = await this.lookup(hashToken(token), parsed.kind === 'sk' ? 'api_key' : 'oauth_token', parsed.mode);
    if (value?.kind === 'api_key') this.touch(value, this.now());
    return value;
  }

  /**
   * Whether a credential resolved earlier is still live (not revoked, not expired), answered
   * as resolve() answers: from the cache, which revocations clear on every instance. For what
   * outlives its request: a live subscription asks before each event it delivers.
   */
  async stillValid(credential: Credential): Promise<boolean> {
    return (await this.lookup(credential.hash, credential.kind, credential.mode)) !== null;
  }

  private async lookup(hash: string, kind: Credential['kind'], mode: Mode): Promise<Credential | null> {
    const now = this.now();
    const entry = this.cache.get(hash);
    const age = entry ? now - entry.fetchedAt : Infinity;
    let value: Credential | null;
    if (!entry || age >= this.opts.ttlMs) {
      // Absent or as old as the TTL allows: wait for the one lookup in flight.
      value = await this.refresh(hash, kind, mode);
    } else {
      // Servable: answer now; past half the TTL, refresh behind it so that busy entries are
      // renewed before they expire and never make requests wait.
      if (age >= this.opts.ttlMs / 2) this.refresh(hash, kind, mode).catch(() => undefined);
      value = entry.value;
    }
    if (!value) return null;
    if (value.expiresAt && value.expiresAt.getTime() <= now) return null;
    return value;
  }

  // Per request: updates the pending entry in place rather than allocating a new one.
  private touch(value: Credential, now: number): void {
    const pending = this.lastUsed.get(value.id);
    if (pending) pending.at = now;
    else this.lastUsed.set(value.id, { mode: value.mode, at: now });
  }

  /**
   * Drops a credential on every instance (revocation). Never throws: the caller's change is
   * committed, and an instance that misses the message re-checks within the TTL.
   */
  async invalidateToken(hash: string): Promise<void> {
    this.onInvalidate(`h:${hash}`);
    await this.broadcast(`h:${hash}`);
  }

  /** Drops every credential of a company on every instance (its profile changed). Never throws. */
  async invalidateCompany(companyId: string): Promise<void> {
    this.onInvalidate(`c:${companyId}`);
    await this.broadcast(`c:${companyId}`);
  }

  private async broadcast(message: string): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.bus.publish(CHANNEL, message),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${PUBLISH_TIMEOUT_MS} ms`)), PUBLISH_TIMEOUT_MS);
        }),
      ]);
    } catch (err) {
      this.opts.logger?.warn(
        { err: { message: (err as Error).message }, invalidation: message.slice(0, 2) },
        'could not publish a credential invalidation; other instances re-check it within CREDENTIAL_CACHE_TTL_SECONDS',
      );
    } finally {
      clearTimeout(timer);
    }
  }

  private onInvalidate(message: string): void {
    const [kind, id] = [message.slice(0, 2), message.slice(2)];
    if (kind === 'h:') {
      this.cache.delete(id);
      this.inflight.delete(id);
    } else if (kind === 'c:') {
      for (const [hash, e] of this.cache) if (e.value?.companyId === id) this.cache.delete(hash);
      // A lookup's company is unknown until it returns: detach them all (rare and cheap).
      this.inflight.clear();
    } else if (message === '*') {
      this.cache.clear();
      this.inflight.clear();
    }
  }

  private refresh(hash: string, kind: Credential['kind'], mode: Mode): Promise<Credential | null> {
    const running = this.inflight.get(hash);
    if (running) return running.promise;
    const started = this.now();
    const lookup = {} as Lookup;
    // Still registered when it returns = no invalidation overtook it: only then is it cached.
    const current = () => this.inflight.get(hash) === lookup;
    // Deeply frozen: one resolution (its company row too) is handed to every request of the
    // credential until it is dropped (ARCHITECTURE.md, Process state).
    lookup.promise = this.load(hash, kind, mode)
      .then(deepFreeze)
      .then((value) => {
        if (current()) {
          if (this.cache.size >= MAX_ENTRIES && !this.cache.has(hash)) {
            const oldest = this.cache.keys().next().value;
            if (oldest !== undefined) this.cache.delete(oldest);
          }
          this.cache.set(hash, { value, fetchedAt: started });
        }
        return value;
      })
      .finally(() => {
        if (current()) this.inflight.delete(hash);
      });
    this.inflight.set(hash, lookup);
    return lookup.promise;
  }

  private async load(hash: string, kind: Credential['kind'], mode: Mode): Promise<Credential | null> {
    if (kind === 'api_key') {
      const key = await this.dbs
        .forMode(mode)
        .apiKey.findUnique({ where: { keyHash: hash }, include: { company: true } });
      if (!key || key.revokedAt || key.mode !== mode || key.company.mode !== mode) return null;
      return {
        kind,
        id: key.id,
        name: key.name,
        hash,
        mode,
        companyId: key.companyId,
        accountId: key.company.accountId,
        clientId: null,
        grantId: null,
        scopes: ALL_SCOPES,
        company: key.company,
        expiresAt: key.expiresAt,
      };
    }
    // OAuth records are the control plane (live database); the company lives in its mode's.
    const token = await this.dbs.live.prisma.oAuthToken.findUnique({ where: { tokenHash: hash } });
    if (!token || token.kind !== 'access' || token.revokedAt || token.mode !== mode) return null;
    const [company, client] = await Promise.all([
      this.dbs.forMode(mode).company.findUnique({ where: { id: token.companyId } }),
      this.dbs.live.prisma.oAuthClient.findUnique({ where: { clientId: token.clientId }, select: { name: true } }),
    ]);
    if (!company || company.mode !== mode) return null;
    return {
      kind,
      id: token.id,
      name: client?.name ?? token.clientId,
      hash,
      mode,
      companyId: company.id,
      accountId: token.accountId,
      clientId: token.clientId,
      grantId: token.grantId,
      scopes: new Set(parseScopes(token.scope).scopes),
      company,
      expiresAt: token.expiresAt,
    };
  }

  /**
   * Writes the pending lastUsedAt times, after any write already under way (the timer's): when
   * it resolves, every use recorded before the call is in the database. Without the wait, a
   * caller that found nothing pending could go on while the timer's write was still landing.
   */
  flushLastUsed(): Promise<void> {
    const run = this.flushing.catch(() => undefined).then(() => this.writeLastUsed());
    this.flushing = run;
    return run;
  }

  private async writeLastUsed(): Promise<void> {
    if (this.lastUsed.size === 0) return;
    const batch = [...this.lastUsed];
    this.lastUsed.clear();
    for (const mode of ['live', 'test'] as const) {
      const rows = batch.filter(([, v]) => v.mode === mode);
      if (rows.length === 0) continue;
      const ids = rows.map(([id]) => id);
      const ats = rows.map(([, v]) => new Date(v.at));
      // One statement per mode; never moves lastUsedAt backwards (several instances flush).
      await this.dbs.forMode(mode).$executeRawUnsafe(
        `UPDATE api_keys AS k SET last_used_at = u.at
           FROM unnest($1::text[], $2::timestamptz[]) AS u(id, at)
          WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.at)`,
        ids,
        ats,
      );
    }
  }
}
