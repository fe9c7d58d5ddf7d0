// The one place that reads process.env (after trigger.dev's env.server.ts). Parsed once at
// start-up; a bad variable stops the process with a message that names it.
import { accessSync, constants, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { z } from 'zod';
import { deepFreeze } from './frozen.js';

const bool = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no'])
  .transform((v) => v === '1' || v === 'true' || v === 'yes');

const url = (protocols: string[]) =>
  z.string().refine(
    (v) => {
      try {
        return protocols.includes(new URL(v).protocol);
      } catch {
        return false;
      }
    },
    `must be a URL starting with ${protocols.join(' or ')}//`,
  );

// TRUST_PROXY: which peers may tell the client's address and protocol (X-Forwarded-For/-Proto/
// -Host). Never "trust every hop": the left-most X-Forwarded-For entry is whatever the client
// wrote, so that would let anyone pick their own address (per-IP rate limit, loopback
// exemption from the HTTPS rule). `true` therefore means one hop, like `1`.
const PROXY_PRESETS = deepFreeze(new Set(['loopback', 'linklocal', 'uniquelocal']));
function isProxyAddress(entry: string): boolean {
  if (PROXY_PRESETS.has(entry)) return true;
  const [addr, bits, ...rest] = entry.split('/');
  const family = isIP(addr ?? '');
  if (!family || rest.length) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
}
const trustProxy = z.string().transform((v, ctx): false | number | string[] => {
  const value = v.trim().toLowerCase();
  if (['false', 'no', '0'].includes(value)) return false;
  if (['true', 'yes'].includes(value)) return 1;
  if (/^\d{1,2}$/.test(value)) return Number(value);
  const list = value.split(',').map((e) => e.trim());
  if (list.every(isProxyAddress)) return list;
  ctx.addIssue({
    code: 'custom',
    message: 'must be false, a number of proxy hops (true means 1), or a comma list of proxy addresses or CIDRs',
  });
  return z.NEVER;
});

function readableFile(path: string): boolean {
  try {
    accessSync(path, constants.R_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  // Public origins. Both default to the server's own origin (docs/scaling.md).
  BASE_URL: url(['http:', 'https:']).optional(),
  AUTH_URL: url(['http:', 'https:']).optional(),
  DATABASE_URL: url(['postgres:', 'postgresql:']).optional(),
  // The sandbox database: by default the `sandbox` schema of DATABASE_URL (docs/sandbox.md).
  SANDBOX_DATABASE_URL: url(['postgres:', 'postgresql:']).optional(),
  SANDBOX_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case SQL identifier')
    .default('sandbox'),
  // `transaction`: DATABASE_URL and SANDBOX_DATABASE_URL are a transaction-pooling pooler
  // (PgBouncer), one database alias each; DIRECT_DATABASE_URL is the server itself, for LISTEN
  // and migrations (docs/scaling.md).
  DATABASE_POOLER: z.enum(['none', 'transaction']).default('none'),
  DIRECT_DATABASE_URL: url(['postgres:', 'postgresql:']).optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  // The pool wait and the query wait together bound how long a request can wait on a stalled
  // database before it is a 503: 5 s + 5 s keeps the promise of an answer within 10 s.
  DATABASE_POOL_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
  // The longest a query may wait for its answer before the request is a 503 and the connection
  // is dropped: a stopped or cut-off server never fails a query by itself.
  DATABASE_QUERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
  // Embedded PGlite's directory when DATABASE_URL is not set.
  DATA_DIR: z.string().min(1).default('./.data'),
  REDIS_URL: url(['redis:', 'rediss:']).optional(),
  // Prefix for every Redis key, so several deployments (or test files) can share one Redis.
  REDIS_PREFIX: z.string().max(64).default('svc:'),
  // The longest a request-side Redis command (rate limits, pub/sub, enqueueing) waits for an
  // answer before it gives up; the workers' blocking commands are not bounded by it.
  REDIS_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(2000),
  // 32 bytes, base64 or hex: encrypts webhook secrets at rest. Generated and kept under
  // DATA_DIR when not given, which suits development only.
  SECRET_KEY: z.string().optional(),
  // Customer manage links (docs/scaling.md, Secrets): a comma list of HMAC secrets, each at
  // least 32 characters; the first signs new links, every one verifies. The entry SECRET_KEY
  // names the key derived from SECRET_KEY, which is what signs when this is not set.
  MANAGE_LINK_SECRETS: z
    .string()
    .transform((v) => v.split(',').map((e) => e.trim()))
    .refine(
      (list) => list.every((e) => e === 'SECRET_KEY' || e.length >= 32) && new Set(list).size === list.length,
      'must be a comma list of distinct secrets of at least 32 characters each (or the entry SECRET_KEY)',
    )
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // The process's access log on stdout (README, Configuration): `errors` writes a line only for
  // an answer outside 2xx or one slower than ACCESS_LOG_SLOW_MS; `all` a line for every request.
  // Request logs (REQUEST_LOGS) are another thing and record every request either way.
  ACCESS_LOG: z.enum(['errors', 'all']).default('errors'),
  ACCESS_LOG_SLOW_MS: z.coerce.number().int().min(0).max(600_000).default(1000),
  // PEM files, read at start-up: a missing one is a configuration error, not a crash later.
  TLS_CERT: z.string().refine(readableFile, 'must be a readable PEM file').optional(),
  TLS_KEY: z.string().refine(readableFile, 'must be a readable PEM file').optional(),
  TRUST_PROXY: trustProxy.default(false),
  RATE_LIMIT_PER_SECOND: z.coerce.number().int().min(1).default(100),
  RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: z.coerce.number().int().min(1).default(20),
  // The longest (seconds) a resolved credential is served from memory without a re-check;
  // revocations reach every instance at once over Redis pub/sub, this is only the backstop.
  CREDENTIAL_CACHE_TTL_SECONDS: z.coerce.number().min(0).max(300).default(5),
  // Computed availability kept per process and checked against the database's availability
  // versions on every answer (see docs/performance.md, "CPU per request, issue 22 §4"); `off`
  // computes every answer afresh.
  AVAILABILITY_CACHE: z.enum(['on', 'off']).default('on'),
  // The admin overview's figures and rendered calendars kept per process and checked against the
  // database's report versions on every page (see docs/performance.md, "Admin pages at scale");
  // `off` computes them afresh.
  REPORT_CACHE: z.enum(['on', 'off']).default('on'),
  // Request logs (docs/api.md, Request logs): on unless `off`; buffered in memory and written
  // every REQUEST_LOG_FLUSH_MS or once REQUEST_LOG_BATCH_ROWS wait; beyond
  // REQUEST_LOG_BUFFER_ROWS waiting rows (the database is slow or down) new rows are dropped.
  REQUEST_LOGS: z.enum(['on', 'off']).default('on'),
  REQUEST_LOG_FLUSH_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  REQUEST_LOG_BATCH_ROWS: z.coerce.number().int().min(1).max(10_000).default(1000),
  REQUEST_LOG_BUFFER_ROWS: z.coerce.number().int().min(1).max(1_000_000).default(20_000),
  // Run the workers inside the API process (the default), or not (scale-out: `svc worker`).
  RUN_WORKERS: bool.default(true),
  // Create the demo account and print a test key at start-up when the database is empty.
  SEED_DEMO: bool.optional(),
  SMTP_URL: url(['smtp:', 'smtps:']).optional(),
  // Workers (src/workers). The relay polls the outbox this often besides its NOTIFY wake-up.
  WORKER_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(200).default(16),
  // docs/webhooks.md: success is a 2xx within 10 s; retries at about these delays (seconds, with
  // jitter). Tests shorten the schedule here rather than waiting hours.
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .regex(/^\d+(\.\d+)?(,\d+(\.\d+)?)*$/, 'must be comma-separated seconds, e.g. 5,60,300')
    .default('5,60,300,1800,7200,21600,43200,86400'),
  // SSRF policy (docs/webhooks.md, src/webhooks/ssrf-guard.ts): live endpoints must be https and
  // public; development allows them http and loopback. The sandbox allows http and loopback.
  // Private, link-local (cloud metadata), unique-local, CGNAT and reserved addresses are
  // refused everywhere unless explicitly opted into: WEBHOOK_LIVE_ALLOW_PRIVATE opens them (and
  // http) to live endpoints, WEBHOOK_SANDBOX_ALLOW_PRIVATE to sandbox endpoints.
  WEBHOOK_LIVE_ALLOW_PRIVATE: bool.default(false),
  WEBHOOK_SANDBOX_ALLOW_LOOPBACK: bool.default(true),
  WEBHOOK_SANDBOX_ALLOW_PRIVATE: bool.default(false),
  // External calendars (docs/api.md, External calendars): polled this often, each fetch through
  // the webhook SSRF policy above, refused beyond this size, given up after this long.
  EXTERNAL_CALENDAR_POLL_MINUTES: z.coerce.number().min(1).max(1440).default(10),
  EXTERNAL_CALENDAR_MAX_BYTES: z.coerce.number().int().min(1024).max(50_000_000).default(5_000_000),
  EXTERNAL_CALENDAR_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  // Live payments: the processor's secret key, and its API origin (a stand-in in tests).
  STRIPE_SECRET_KEY: z.string().min(1).optional(),
  STRIPE_API_URL: url(['http:', 'https:']).optional(),
  EMAIL_FROM: z.string().default('Bookings <no-reply@bookings.localhost>'),
  // GraphQL trusted documents (docs/graphql.md): a JSON manifest { "<id>": "<document>" } whose
  // documents /graphql runs by id; with GRAPHQL_TRUSTED_DOCUMENTS_ONLY, it runs nothing else.
  GRAPHQL_TRUSTED_DOCUMENTS: z.string().refine(readableFile, 'must be a readable JSON file').optional(),
  GRAPHQL_TRUSTED_DOCUMENTS_ONLY: bool.default(false),
});

export type Config = Readonly<
  Omit<z.infer<typeof envSchema>, 'BASE_URL' | 'AUTH_URL' | 'SEED_DEMO' | 'WEBHOOK_RETRY_SCHEDULE'> & {
    /** Delays before retry n (seconds), parsed from WEBHOOK_RETRY_SCHEDULE. */
    WEBHOOK_RETRY_SCHEDULE: readonly number[];
    BASE_URL: string | undefined;
    AUTH_URL: string | undefined;
    SEED_DEMO: boolean;
    isProduction: boolean;
  }
>;

export class ConfigError extends Error {}

/** Why a URL is not a bare origin (scheme://host[:port], a trailing slash allowed), or null. */
function originProblem(value: string): string | null {
  const u = new URL(value);
  if (u.username || u.password) return 'must not contain user information';
  if (value.includes('?') || value.includes('#')) return 'must not have a query or fragment';
  if (!/^\/*$/.test(u.pathname))
    return 'must be an origin such as https://auth.example.com, without a path (the OAuth metadata is served at /.well-known/oauth-authorization-server)';
  return null;
}

/**
 * What serving needs beyond loadConfig (the CLI does not): in production a fixed public origin.
 * Without AUTH_URL or BASE_URL the OAuth issuer and endpoints come from each request's Host
 * (or, behind TRUST_PROXY, X-Forwarded-Host) header, which a client chooses.
 */
export function checkServerConfig(config: Config): void {
  if (config.isProduction && !config.AUTH_URL) {
    throw new ConfigError(
      'Invalid configuration:\n  AUTH_URL: is required in production, or BASE_URL, which it defaults to (the public origin, e.g. https://api.example.com): otherwise the OAuth issuer would be taken from the Host header of each request',
    );
  }
}

/** Parses an environment (process.env by default); throws ConfigError naming each bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  if ((c.TLS_CERT && !c.TLS_KEY) || (!c.TLS_CERT && c.TLS_KEY)) {
    throw new ConfigError('Invalid configuration:\n  TLS_CERT and TLS_KEY must be set together');
  }
  if (c.GRAPHQL_TRUSTED_DOCUMENTS_ONLY && !c.GRAPHQL_TRUSTED_DOCUMENTS) {
    throw new ConfigError(
      'Invalid configuration:\n  GRAPHQL_TRUSTED_DOCUMENTS_ONLY: needs GRAPHQL_TRUSTED_DOCUMENTS, the manifest of trusted documents',
    );
  }
  if (c.SECRET_KEY !== undefined && !/^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$/.test(c.SECRET_KEY)) {
    throw new ConfigError('Invalid configuration:\n  SECRET_KEY: must be 32 bytes as 64 hex characters or base64');
  }
  if (c.DATABASE_POOLER === 'transaction') {
    const missing = !c.DATABASE_URL
      ? 'DATABASE_URL: is required'
      : !c.SANDBOX_DATABASE_URL || c.SANDBOX_DATABASE_URL === c.DATABASE_URL
        ? "SANDBOX_DATABASE_URL: is required and must name the pooler's sandbox database alias (its connect_query sets the sandbox schema's search_path)"
        : !c.DIRECT_DATABASE_URL
          ? 'DIRECT_DATABASE_URL: is required (a direct connection to PostgreSQL for LISTEN and migrations, which a transaction pooler breaks)'
          : undefined;
    if (missing) throw new ConfigError(`Invalid configuration:\n  ${missing} with DATABASE_POOLER=transaction`);
  }
  // Webhook secrets are encrypted with it; a key generated on the fly would strand them.
  if (c.NODE_ENV === 'production' && !c.SECRET_KEY) {
    throw new ConfigError('Invalid configuration:\n  SECRET_KEY: is required in production (32 bytes, hex or base64)');
  }
  // The OAuth issuer (RFC 8414) is AUTH_URL, by default BASE_URL. Its metadata is served at
  // the root /.well-known/oauth-authorization-server only, which RFC 8414 §3.1 makes the
  // location for an issuer without a path: so the issuer must be an origin.
  const issuerSource = c.AUTH_URL !== undefined ? 'AUTH_URL' : c.BASE_URL !== undefined ? 'BASE_URL' : undefined;
  const issuerProblem = issuerSource && originProblem((c.AUTH_URL ?? c.BASE_URL)!);
  if (issuerProblem) {
    throw new ConfigError(
      issuerSource === 'AUTH_URL'
        ? `Invalid configuration:\n  AUTH_URL: ${issuerProblem}`
        : `Invalid configuration:\n  AUTH_URL: must be set when BASE_URL is not an origin (BASE_URL ${issuerProblem})`,
    );
  }
  const trim = (u?: string) => u?.replace(/\/+$/, '');
  return Object.freeze({
    ...c,
    BASE_URL: trim(c.BASE_URL),
    AUTH_URL: trim(c.AUTH_URL ?? c.BASE_URL),
    SEED_DEMO: c.SEED_DEMO ?? !c.DATABASE_URL,
    WEBHOOK_RETRY_SCHEDULE: Object.freeze(c.WEBHOOK_RETRY_SCHEDULE.split(',').map(Number)),
    isProduction: c.NODE_ENV === 'production',
  });
}
