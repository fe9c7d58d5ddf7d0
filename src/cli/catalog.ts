// What `svc` offers, as its help shows it: each command's words, summary, options and examples
// (docs/cli.md). Nothing here imports the domain or the database, so `svc --help`, `svc help
// <command>` and a mistyped command answer without loading them; commands.ts joins each entry
// to the code that runs it.
import { OUTBOX_EVENT_TYPES } from '../webhooks/event-types.js';

export interface OptionSpec {
  type: 'string' | 'boolean';
  /** May be given more than once; the values arrive as a list. */
  multiple?: boolean;
  /** Shown in help as `--name <value>`. */
  value?: string;
  description: string;
  /** Marked "(required)" in help; the command itself refuses a missing one (VALIDATION_ERROR, exit 1). */
  required?: boolean;
}

export interface CommandSpec {
  /** One or two words: `migrate`, `key create`. */
  name: string;
  summary: string;
  options: Record<string, OptionSpec>;
  /** Lines of shell, shown under "Examples" in the command's help. */
  examples: string[];
  /** Set for a command that cannot be sent to a running server: why, and what to do instead. */
  notThroughServer?: string;
  /**
   * A command that lists events in position order and may follow them (`--follow`): run.ts
   * runs it again every second with `--after` the last position printed, directly or through
   * the server, and prints one line per item.
   */
  follows?: boolean;
  /**
   * A command of an integrator's laptop (`listen`, `trigger`): it talks to a server's public
   * API with an API key, as any client does, and never opens the database (api-run.ts).
   */
  apiClient?: boolean;
  /** A word after the command, `svc trigger <event>`: shown in help, passed as the option of its name. */
  argument?: { name: string; description: string };
}

/** The first word of two-word commands, as `svc --help` lists it. */
export const GROUPS: Record<string, string> = {
  account: 'accounts (the admin login)',
  company: 'companies, live or test',
  key: 'API keys',
  'oauth-client': 'OAuth clients of an account',
  sandbox: "an account's test companies",
  bookings: "a company's bookings",
  webhooks: "a company's webhook endpoints and deliveries",
  events: "a company's events",
};

/** The options of every API client command: which server, and as whom. */
const apiClientOptions: Record<string, OptionSpec> = {
  'api-key': {
    type: 'string',
    value: 'key',
    description: 'a sandbox API key (svc_sk_test_...) or OAuth access token; default: $SVC_API_KEY',
  },
  'base-url': {
    type: 'string',
    value: 'url',
    description:
      "the server's origin; default: the server running on this machine's DATA_DIR, else $BASE_URL, else http://localhost:$PORT",
  },
};

const company: OptionSpec = { type: 'string', value: 'id', description: 'the company (live or test)', required: true };
// `bookings list` and `events tail` also take the company from a key of it, as `listen` and
// `trigger` do, so an integrator with SVC_API_KEY set needs no id.
const companyOrKey: OptionSpec = {
  type: 'string',
  value: 'id',
  description: 'the company (live or test); default: the company of --api-key',
};
const companyKey: OptionSpec = {
  type: 'string',
  value: 'key',
  description: 'an API key of the company (svc_sk_...), instead of --company; default: $SVC_API_KEY',
};
const booking: OptionSpec = { type: 'string', value: 'id', description: "the booking's _id", required: true };
const account: OptionSpec = { type: 'string', value: 'email', description: "the account's e-mail", required: true };

export const CATALOG: CommandSpec[] = [
  {
    name: 'migrate',
    summary: 'apply pending database migrations (live and sandbox)',
    options: {},
    examples: ['svc migrate --json'],
  },
  {
    name: 'account create',
    summary: 'create an account (with its sample test companies)',
    options: {
      email: { type: 'string', value: 'email', description: 'the login e-mail', required: true },
      password: { type: 'string', value: 'password', description: 'at least 12 characters', required: true },
    },
    examples: ["svc account create --email owner@example.com --password 'correct horse battery' --json"],
  },
  {
    name: 'company create',
    summary: 'create a live or test company for an account',
    options: {
      account,
      name: { type: 'string', value: 'name', description: "the company's name", required: true },
      mode: { type: 'string', value: 'live|test', description: 'live or test (sandbox)', required: true },
      timezone: { type: 'string', value: 'zone', description: 'IANA time zone, e.g. Europe/Berlin' },
      currency: { type: 'string', value: 'code', description: 'ISO 4217 currency, e.g. EUR' },
      email: { type: 'string', value: 'email', description: "the company's contact e-mail" },
      phone: { type: 'string', value: 'phone', description: 'E.164 phone number' },
      address: { type: 'string', value: 'address', description: 'postal address' },
    },
    examples: [
      "svc company create --account owner@example.com --name 'Salon Nord' --mode live --timezone Europe/Berlin --currency EUR",
    ],
  },
  {
    name: 'key create',
    summary: 'create an API key for a company (shown once)',
    options: { company, name: { type: 'string', value: 'name', description: "the key's name", required: true } },
    examples: ['svc key create --company 6643a1f0c2b7e81a2d4f9c00 --name backend --json'],
  },
  {
    name: 'key revoke',
    summary: 'revoke an API key at once',
    options: { 'key-id': { type: 'string', value: 'id', description: "the key's _id", required: true } },
    examples: ['svc key revoke --key-id 6643a1f0c2b7e81a2d4f9c01'],
  },
  {
    name: 'worker',
    summary: 'run the workers alone (webhooks, payments, e-mail) until SIGTERM',
    options: {},
    examples: ['DATABASE_URL=postgresql://... REDIS_URL=redis://... svc worker'],
    notThroughServer:
      'it runs the workers itself, and an embedded data directory can be opened by one process at a time. To run workers apart, use PostgreSQL and Redis (DATABASE_URL, REDIS_URL) with RUN_WORKERS=0 on the server.',
  },
  {
    name: 'oauth-client create',
    summary: 'register an OAuth client (the secret is shown once)',
    options: {
      account,
      name: { type: 'string', value: 'name', description: "the app's name, shown on the consent page", required: true },
      'redirect-uri': {
        type: 'string',
        multiple: true,
        value: 'uri',
        description: 'an allowed redirect URI (repeat for more)',
        required: true,
      },
      scopes: {
        type: 'string',
        value: '"a b"',
        description: 'the scopes it may ask for, space-separated (default: all)',
      },
      public: { type: 'boolean', description: 'a public client: no secret, PKCE required' },
    },
    examples: [
      "svc oauth-client create --account owner@example.com --name 'Reports' --redirect-uri https://app.example.com/cb --scopes 'bookings:read'",
    ],
  },
  {
    name: 'sandbox wipe',
    summary: "delete the account's test companies and all their data (sandbox database only)",
    options: { account },
    examples: ['svc sandbox wipe --account owner@example.com'],
  },
  {
    name: 'sandbox restore',
    summary: 'recreate the missing sample test companies (--reset: rebuild all three)',
    options: { account, reset: { type: 'boolean', description: 'rebuild all three from scratch' } },
    examples: ['svc sandbox restore --account owner@example.com --reset'],
  },
  {
    name: 'bookings list',
    summary: "list a company's bookings starting in a window, in start order",
    options: {
      company: companyOrKey,
      'api-key': companyKey,
      from: { type: 'string', value: 'time', description: 'ISO 8601 instant or date; default: now' },
      to: { type: 'string', value: 'time', description: 'ISO 8601 instant or date; default: 7 days after --from' },
      status: {
        type: 'string',
        multiple: true,
        value: 'status',
        description: 'only bookings in this status (repeat for more)',
      },
      employee: { type: 'string', value: 'id', description: "only this employee's bookings" },
      limit: { type: 'string', value: 'n', description: 'at most this many, 1-500; default 100' },
    },
    examples: [
      'svc bookings list --company 6643a1f0c2b7e81a2d4f9c00 --from 2026-12-01 --status confirmed',
      'SVC_API_KEY=svc_sk_test_... svc bookings list --from 2026-12-01',
    ],
  },
  {
    name: 'bookings show',
    summary: 'show one booking with its customer, service, employee, payments and events',
    options: { company, booking },
    examples: ['svc bookings show --company 6643a1f0c2b7e81a2d4f9c00 --booking 6643a1f0c2b7e81a2d4f9c10 --json'],
  },
  {
    name: 'bookings cancel',
    summary: 'cancel a booking as the business (full refund), as POST /bookings/:id/cancel does',
    options: {
      company,
      booking,
      reason: { type: 'string', value: 'text', description: 'why, kept on the booking and in its event' },
    },
    examples: [
      "svc bookings cancel --company 6643a1f0c2b7e81a2d4f9c00 --booking 6643a1f0c2b7e81a2d4f9c10 --reason 'staff ill'",
    ],
  },
  {
    name: 'webhooks list',
    summary: "list a company's webhook endpoints with their latest deliveries",
    options: {
      company,
      deliveries: { type: 'string', value: 'n', description: 'latest deliveries shown per endpoint, 0-50; default 5' },
    },
    examples: ['svc webhooks list --company 6643a1f0c2b7e81a2d4f9c00'],
  },
  {
    name: 'webhooks test',
    summary: 'send a signed ping event to one endpoint',
    options: { company, endpoint: { type: 'string', value: 'id', description: "the endpoint's _id", required: true } },
    examples: ['svc webhooks test --company 6643a1f0c2b7e81a2d4f9c00 --endpoint 6643a1f0c2b7e81a2d4f9c20'],
  },
  {
    name: 'webhooks retry',
    summary: 'make a delivery due now (same event id, so the receiver can deduplicate)',
    options: { company, delivery: { type: 'string', value: 'id', description: "the delivery's _id", required: true } },
    examples: ['svc webhooks retry --company 6643a1f0c2b7e81a2d4f9c00 --delivery 6643a1f0c2b7e81a2d4f9c30'],
  },
  {
    name: 'events tail',
    summary: "print a company's latest events in position order; --follow keeps printing new ones",
    options: {
      company: companyOrKey,
      'api-key': companyKey,
      after: {
        type: 'string',
        value: 'position',
        description: 'start after this position (default: the latest --limit)',
      },
      type: { type: 'string', multiple: true, value: 'type', description: 'only this event type (repeat for more)' },
      limit: { type: 'string', value: 'n', description: 'at most this many a page, 1-500; default 20' },
      follow: {
        type: 'boolean',
        description: 'keep running, printing new events as they are dispatched, until Ctrl-C',
      },
    },
    examples: [
      'svc events tail --company 6643a1f0c2b7e81a2d4f9c00 --follow',
      'SVC_API_KEY=svc_sk_test_... svc events tail --follow',
      'svc events tail --company 6643a1f0c2b7e81a2d4f9c00 --after 1200 --type booking.created --json',
    ],
    follows: true,
  },
  {
    name: 'listen',
    summary: "forward a test company's events to a local URL, signed exactly as webhook deliveries are",
    apiClient: true,
    options: {
      'forward-to': {
        type: 'string',
        value: 'url',
        description: 'where each event is POSTed, e.g. http://localhost:4242/hooks',
        required: true,
      },
      events: {
        type: 'string',
        value: 'types',
        description: 'only these event types, comma-separated (default: every type)',
      },
      secret: {
        type: 'string',
        value: 'whsec_secret',
        description: 'sign with this secret (default: a new one, printed at start)',
      },
      after: {
        type: 'string',
        value: 'position',
        description: 'first forward the events after this position (default: only new ones)',
      },
      ...apiClientOptions,
    },
    examples: [
      'svc listen --forward-to http://localhost:4242/hooks --api-key svc_sk_test_...',
      'svc listen --forward-to http://localhost:4242/hooks --events booking.created,booking.cancelled --json',
    ],
  },
  {
    name: 'trigger',
    summary:
      "cause one event in the key's test company through the API: it books a new customer at a free time of the company's own services and staff (only when none can take it, fixtures named 'svc trigger fixture', deactivated after the run)",
    apiClient: true,
    argument: {
      name: 'event',
      description: `the event type, one of: ${OUTBOX_EVENT_TYPES.join(', ')}`,
    },
    options: { ...apiClientOptions },
    examples: ['svc trigger booking.created --api-key svc_sk_test_...', 'svc trigger payment.refunded --json'],
  },
];

export function specNamed(name: string): CommandSpec | undefined {
  return CATALOG.find((c) => c.name === name);
}
