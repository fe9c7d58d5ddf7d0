// `svc listen` (docs/cli.md, Sandbox events on your machine): a test company's events,
// forwarded to a URL on the integrator's machine and signed exactly as the workers sign a real
// delivery (src/webhooks/signature.ts), with a secret printed at start. The events come from
// the `events` subscription over Server-Sent Events (docs/graphql.md, Live events), which
// resumes by position: the stream starts after the last event dispatched before `listen`
// started (or `--after`), and a dropped connection reconnects with Last-Event-ID, so no event
// is skipped or forwarded twice while `listen` runs. Forwards go one at a time, in position
// order; a receiver's failure is printed, not retried (a real endpoint's deliveries are).
import { EventSource } from 'eventsource';
import { AppError } from '../errors.js';
import {
  deliveryHeaders,
  generateVerificationToken,
  generateWebhookSecret,
  SECRET_PREFIX,
  secretBytes,
  webhookBody,
} from '../webhooks/signature.js';
import { type ApiClient, type Company, urlOption } from './api-client.js';
import { OUTBOX_EVENT_TYPES } from '../webhooks/event-types.js';
import { optional, type Values } from './values.js';

const FORWARD_TIMEOUT_MS = 10_000;

const SUBSCRIPTION = `subscription Listen($after: EventPosition, $types: [String!]) {
  events(after: $after, types: $types) { _id type position createdAt data }
}`;

interface StreamedEvent {
  _id: string;
  type: string;
  position: number;
  createdAt: string;
  data: unknown;
}

export interface Forwarded {
  position: string;
  eventId: string;
  type: string;
  createdAt: string;
  /** The receiver's HTTP status; null when it could not be reached. */
  status: number | null;
  durationMs: number;
  error?: string;
}

export interface ListenIo {
  /** One line on stdout. */
  out(line: string): void;
  /** One line on stderr (what is not the command's output). */
  note(line: string): void;
  json: boolean;
  /** Aborted by SIGINT or SIGTERM. */
  stop: AbortSignal;
}

function typesOption(values: Values): string[] | null {
  const raw = optional(values, 'events');
  if (raw === undefined) return null;
  const types = raw
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  const unknown = types.filter((t) => !(OUTBOX_EVENT_TYPES as readonly string[]).includes(t));
  if (!types.length || unknown.length)
    throw AppError.validation([
      {
        path: 'events',
        message: `${unknown.length ? `${unknown.join(', ')}: not an event type a company's stream carries` : 'is empty'}; one or more of ${OUTBOX_EVENT_TYPES.join(', ')}`,
      },
    ]);
  return types;
}

function secretOption(values: Values): string {
  const given = optional(values, 'secret');
  if (given === undefined) return generateWebhookSecret();
  if (!given.startsWith(SECRET_PREFIX) || secretBytes(given).length < 24)
    throw AppError.validation([
      { path: 'secret', message: 'must be a whsec_ secret of at least 24 bytes (base64 after the prefix)' },
    ]);
  return given;
}

/** Without `--after`, the stream starts after the latest event dispatched so far. */
async function latestPosition(api: ApiClient): Promise<string> {
  // Newest first; the events of the last moment may have no position yet, and come after it.
  const latest = await api.request<Array<{ position: number | null }>>('GET', '/events?limit=100');
  return String(Math.max(0, ...latest.map((e) => e.position ?? 0)));
}

async function forward(
  url: string,
  event: StreamedEvent,
  secret: string,
  token: string,
  stop: AbortSignal,
): Promise<Forwarded> {
  const body = webhookBody({ type: event.type, createdAt: new Date(event.createdAt), data: event.data });
  const headers = deliveryHeaders({
    eventId: event._id,
    eventType: event.type,
    body,
    timestamp: Math.floor(Date.now() / 1000),
    secrets: [secret],
    token,
  });
  const line = {
    position: String(event.position),
    eventId: event._id,
    type: event.type,
    createdAt: event.createdAt,
  };
  const t0 = performance.now();
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'svc-listen' },
      body,
      redirect: 'manual',
      signal: AbortSignal.any([AbortSignal.timeout(FORWARD_TIMEOUT_MS), stop]),
    });
    await res.arrayBuffer().catch(() => undefined);
    return { ...line, status: res.status, durationMs: Math.round(performance.now() - t0) };
  } catch (err) {
    const e = err as Error & { cause?: Error };
    const error =
      e.name === 'TimeoutError' ? `no answer in ${FORWARD_TIMEOUT_MS / 1000} s` : (e.cause?.message ?? e.message);
    return { ...line, status: null, durationMs: Math.round(performance.now() - t0), error };
  }
}

export function formatForwarded(f: Forwarded): string {
  const outcome = f.status === null ? `failed: ${f.error}` : `${f.status}`;
  return `${f.createdAt}  ${f.type.padEnd(22)}  ${f.eventId}  -> ${outcome} (${f.durationMs} ms)`;
}

/**
 * Runs until `io.stop` aborts (SIGINT, SIGTERM), or the stream refuses the credential. Returns
 * how many events were forwarded.
 */
export interface ListenOptions {
  forwardTo: string;
  types: string[] | null;
  secret: string;
  after: string | undefined;
}

/** The options, checked before anything is sent. */
export function listenOptions(values: Values): ListenOptions {
  const after = optional(values, 'after');
  if (after !== undefined && !/^\d{1,15}$/.test(after))
    throw AppError.validation([{ path: 'after', message: 'must be an event position (a whole number)' }]);
  return {
    forwardTo: urlOption(values, 'forward-to'),
    types: typesOption(values),
    secret: secretOption(values),
    after,
  };
}

export async function listen(api: ApiClient, company: Company, options: ListenOptions, io: ListenIo): Promise<number> {
  const { forwardTo, types, secret } = options;
  const token = generateVerificationToken();
  const after = options.after ?? (await latestPosition(api));

  const params = new URLSearchParams({
    query: SUBSCRIPTION,
    variables: JSON.stringify({ after, ...(types ? { types } : {}) }),
  });
  const source = new EventSource(`${api.baseUrl}/graphql?${params}`, {
    fetch: (input, init) =>
      fetch(input, { ...init, headers: { ...init.headers, ...api.authHeaders(), accept: 'text/event-stream' } }),
  });

  let forwarded = 0;
  let failure: AppError | null = null;
  let queue = Promise.resolve();
  let lost = false;
  const done = new Promise<void>((resolve) => {
    const finish = () => {
      source.close();
      resolve();
    };
    io.stop.addEventListener('abort', finish, { once: true });
    source.addEventListener('open', () => {
      if (lost) io.note('svc listen: connected again; resuming after the last event received');
      lost = false;
    });
    source.addEventListener('error', (e) => {
      // 401/403 end it (EventSource does not retry a refused request); anything else is retried.
      if (e.code === 401 || e.code === 403) {
        failure = new AppError(e.code === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN', 'the server refused the credential');
        finish();
      } else if (!lost && !io.stop.aborted) {
        lost = true;
        io.note(`svc listen: lost the connection to ${api.baseUrl} (${e.message ?? 'closed'}); reconnecting`);
      }
    });
    source.addEventListener('next', (message) => {
      const payload = JSON.parse(message.data as string) as {
        data?: { events?: StreamedEvent };
        errors?: Array<{ message: string; extensions?: { code?: string } }>;
      };
      const event = payload.data?.events;
      if (event) {
        // One at a time, in the order received, which is position order.
        queue = queue.then(async () => {
          if (io.stop.aborted) return;
          const result = await forward(forwardTo, event, secret, token, io.stop);
          forwarded++;
          io.out(io.json ? JSON.stringify(result) : formatForwarded(result));
        });
        return;
      }
      const error = payload.errors?.[0];
      // A reader too slow for the stream is cut off with SERVICE_UNAVAILABLE: the reconnect
      // resumes it. Any other error (a revoked key) ends `listen`.
      if (error && error.extensions?.code !== 'SERVICE_UNAVAILABLE') {
        failure = new AppError(
          (error.extensions?.code ?? 'BAD_REQUEST') as ConstructorParameters<typeof AppError>[0],
          error.message,
        );
        finish();
      }
    });
  });

  io.out(
    io.json
      ? JSON.stringify({ ready: true, companyId: company._id, forwardTo, after, secret, events: types ?? 'all' })
      : [
          `Ready: forwarding ${types ? types.join(', ') : 'every event'} of ${company.name} (${company._id}, test mode) to ${forwardTo}`,
          `Your signing secret is ${secret} (^C to quit)`,
        ].join('\n'),
  );
  await done;
  await queue;
  const failed = failure as AppError | null;
  if (failed) throw failed;
  return forwarded;
}
