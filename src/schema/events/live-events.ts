// Live events (docs/graphql.md, Live events): the `events` subscription's feed. The outbox relay
// publishes every batch it dispatched, with positions (positions.ts), on the bus (Redis pub/sub
// with REDIS_URL, so every instance hears every relay; in process without it). Each process
// keeps one feed per mode that turns those messages into one ordered stream of positions, and
// each subscription reads that stream for its company, after replaying from the database what
// it missed.
//
// Pub/sub may lose a message (a Redis reconnect, a relay that died between its commit and its
// publish), so the feed never trusts it alone: positions are dense and committed in order, so
// a batch that starts past the next expected position proves a gap, filled from the database;
// and while anyone listens, a slow poll reads past the last position the feed has seen, which
// finds a lost last message. Every subscriber therefore gets every event once, in position order.
import type { Bus } from '../../bus.js';
import type { Db } from '../../db/databases.js';
import type { Event } from '../../generated/prisma/client.js';
import type { Mode } from '../../generated/prisma/enums.js';
import type { Services } from '../../services.js';
import { AppError } from '../../errors.js';

/** An event as the API shows it (GET /events, the subscription). */
export type EventRecord = Pick<Event, 'id' | 'companyId' | 'type' | 'data' | 'createdAt' | 'position'>;
type Positioned = EventRecord & { position: bigint };

export const EVENT_RECORD_SELECT = {
  id: true,
  companyId: true,
  type: true,
  data: true,
  createdAt: true,
  position: true,
} as const;

const channel = (mode: Mode) => `events.${mode}`;

/** How often a feed with listeners reads the database for a batch whose message was lost. */
const POLL_MS = 5_000;
const PAGE = 500;
/** Events a subscriber may have waiting before it is cut off (it reconnects with Last-Event-ID). */
export const MAX_BACKLOG = 10_000;

interface WireEvent {
  id: string;
  companyId: string;
  type: string;
  data: Event['data'];
  createdAt: string;
  position: string;
}

/**
 * Tells every instance's feed that these events were dispatched (the relay calls it after its
 * commit, with the events in position order). A message that never arrives costs only
 * latency: the feeds find the events in the database.
 */
export async function publishDispatched(bus: Bus, mode: Mode, events: readonly Positioned[]): Promise<void> {
  if (!events.length) return;
  const wire: WireEvent[] = events.map((e) => ({
    id: e.id,
    companyId: e.companyId,
    type: e.type,
    data: e.data,
    createdAt: e.createdAt.toISOString(),
    position: e.position.toString(),
  }));
  await bus.publish(channel(mode), JSON.stringify(wire));
}

function fromWire(raw: string): Positioned[] {
  const wire = JSON.parse(raw) as WireEvent[];
  return wire.map((e) => ({ ...e, createdAt: new Date(e.createdAt), position: BigInt(e.position) }));
}

type Listener = (e: Positioned) => void;

/** One mode's ordered stream of dispatched events, in this process. */
class Feed {
  /** The last position passed to the listeners: every position up to it is committed. */
  private last = 0n;
  private readonly listeners = new Set<Listener>();
  private started: Promise<void> | null = null;
  private chain: Promise<void> = Promise.resolve();
  private poll: NodeJS.Timeout | undefined;

  constructor(
    private readonly services: Services,
    private readonly mode: Mode,
  ) {}

  private get db(): Db {
    return this.services.dbs.forMode(this.mode);
  }

  /** Subscribes to the bus (once) and learns the current last position. */
  start(): Promise<void> {
    this.started ??= (async () => {
      await this.services.bus.subscribe(channel(this.mode), (raw) => {
        let events: Positioned[];
        try {
          events = fromWire(raw);
        } catch {
          return;
        }
        this.then(() => this.receive(events));
      });
      // In the chain, behind any message that came first, and never moving the position back.
      const head = this.chain.then(async () => {
        const [{ last }] = await this.db.$queryRaw<[{ last: bigint | null }]>`SELECT max(position) AS last FROM events`;
        if (last !== null && BigInt(last) > this.last) this.last = BigInt(last);
      });
      this.chain = head.catch(() => undefined);
      await head;
    })().catch((err: unknown) => {
      this.started = null;
      throw err;
    });
    return this.started;
  }

  /** Runs steps one after the other, so events leave in position order. */
  private then(step: () => Promise<void>): void {
    this.chain = this.chain
      .then(step)
      .catch((err: unknown) =>
        this.services.logger.warn(
          { mode: this.mode, err: { message: err instanceof Error ? err.message : String(err) } },
          'live events: could not read the events table; the next poll tries again',
        ),
      );
  }

  private async receive(batch: Positioned[]): Promise<void> {
    const first = batch[0];
    if (!first) return;
    // No one listens: nothing to fill. The last position still moves on, so a subscriber who
    // arrives replays up to it from the database.
    if (this.listeners.size && first.position > this.last + 1n) await this.catchUp(first.position - 1n);
    this.emit(batch);
  }

  /** Reads what came after the last position (up to `upTo`) from the database, in order. */
  private async catchUp(upTo?: bigint): Promise<void> {
    for (;;) {
      const rows = (await this.db.event.findMany({
        where: { position: { gt: this.last, ...(upTo === undefined ? {} : { lte: upTo }) } },
        orderBy: { position: 'asc' },
        take: PAGE,
        select: EVENT_RECORD_SELECT,
      })) as Positioned[];
      this.emit(rows);
      if (rows.length < PAGE) return;
    }
  }

  private emit(events: readonly Positioned[]): void {
    for (const e of events) {
      if (e.position <= this.last) continue;
      this.last = e.position;
      for (const listener of this.listeners) listener(e);
    }
  }

  /** Adds a listener; returns the last position, after which it hears every event. */
  join(listener: Listener): bigint {
    this.listeners.add(listener);
    if (!this.poll) {
      this.poll = setInterval(() => this.then(() => this.catchUp()), POLL_MS);
      this.poll.unref();
    }
    return this.last;
  }

  leave(listener: Listener): void {
    this.listeners.delete(listener);
    if (!this.listeners.size && this.poll) {
      clearInterval(this.poll);
      this.poll = undefined;
    }
  }

  get size(): number {
    return this.listeners.size;
  }
}

export interface LiveEventsOptions {
  mode: Mode;
  companyId: string;
  /** Only these types; null for every type. */
  types: ReadonlySet<string> | null;
  /** Replay from the database what came after this position first; null to start from now. */
  after: bigint | null;
  /** Asked before each event is delivered: false ends the subscription with UNAUTHORIZED. */
  stillAllowed?: () => Promise<boolean>;
}

/**
 * One subscription: the company's events after `after` from the database, then live ones, with
 * no gap or duplicate at the seam. The feed is joined first, so it buffers what is dispatched
 * meanwhile; the replay reads up to the position the feed had reached when it was joined, and
 * the buffer holds only positions above it.
 */
class Subscription implements AsyncIterableIterator<EventRecord> {
  private readonly backlog: Positioned[] = [];
  /** Wakes a next() that waits for the backlog. */
  private wake: (() => void) | null = null;
  private replay: { upTo: bigint; page: Positioned[]; more: boolean } | null = null;
  private cursor: bigint;
  private done = false;
  private failure: AppError | null = null;
  private readonly listener: Listener = (e) => this.hear(e);

  constructor(
    private readonly feed: Feed,
    private readonly db: Db,
    private readonly opts: LiveEventsOptions,
    private readonly onFinish: () => void,
  ) {
    const head = feed.join(this.listener);
    this.cursor = opts.after ?? head;
    if (opts.after !== null && opts.after < head) this.replay = { upTo: head, page: [], more: true };
  }

  private wanted(e: Positioned): boolean {
    return e.companyId === this.opts.companyId && (!this.opts.types || this.opts.types.has(e.type));
  }

  private hear(e: Positioned): void {
    if (this.done || !this.wanted(e)) return;
    if (this.backlog.length >= MAX_BACKLOG) {
      this.fail(
        new AppError(
          'SERVICE_UNAVAILABLE',
          'This subscription fell too far behind; reconnect with Last-Event-ID to resume from the database',
        ),
      );
      return;
    }
    this.backlog.push(e);
    this.wake?.();
  }

  private async replayed(): Promise<Positioned | null> {
    const r = this.replay!;
    if (!r.page.length && r.more) {
      const rows = (await this.db.event.findMany({
        where: {
          companyId: this.opts.companyId,
          position: { gt: this.cursor, lte: r.upTo },
          ...(this.opts.types ? { type: { in: [...this.opts.types] } } : {}),
        },
        orderBy: { position: 'asc' },
        take: PAGE,
        select: EVENT_RECORD_SELECT,
      })) as Positioned[];
      r.page.push(...rows);
      r.more = rows.length === PAGE;
    }
    const next = r.page.shift();
    if (next) return next;
    // Replayed up to the feed's position at the join; what follows is in the backlog.
    this.replay = null;
    if (this.cursor < r.upTo) this.cursor = r.upTo;
    return null;
  }

  /** The next event: replayed ones first, then the backlog's; null once finished. */
  private async take(): Promise<Positioned | null> {
    while (this.replay && !this.done) {
      const e = await this.replayed();
      if (e && !this.done) {
        this.cursor = e.position;
        return e;
      }
    }
    for (;;) {
      if (this.done) return null;
      const e = this.backlog.shift();
      if (!e) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = null;
        continue;
      }
      if (e.position <= this.cursor) continue;
      this.cursor = e.position;
      return e;
    }
  }

  async next(): Promise<IteratorResult<EventRecord>> {
    const e = await this.take();
    // A credential revoked or expired since the subscription started gets nothing more.
    if (e && this.opts.stillAllowed && !(await this.opts.stillAllowed())) {
      this.fail(new AppError('UNAUTHORIZED', 'The credential of this subscription was revoked or has expired'));
    }
    if (this.failure) throw this.failure;
    if (!e || this.done) return { value: undefined, done: true };
    return { value: e, done: false };
  }

  private fail(err: AppError): void {
    this.failure ??= err;
    this.finish();
  }

  /** Ends the subscription: leaves the feed and wakes a waiting next(). */
  finish(): void {
    if (this.done) return;
    this.done = true;
    this.backlog.length = 0;
    this.feed.leave(this.listener);
    this.onFinish();
    this.wake?.();
  }

  async return(): Promise<IteratorResult<EventRecord>> {
    this.finish();
    return { value: undefined, done: true };
  }

  async throw(err?: unknown): Promise<IteratorResult<EventRecord>> {
    this.finish();
    throw err;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

/** The live events of one process: one feed per mode, shared by every subscription. */
export class LiveEvents {
  private readonly feeds = new Map<Mode, Feed>();
  private readonly subscriptions = new Set<Subscription>();

  constructor(private readonly services: Services) {}

  private feed(mode: Mode): Feed {
    let feed = this.feeds.get(mode);
    if (!feed) {
      feed = new Feed(this.services, mode);
      this.feeds.set(mode, feed);
    }
    return feed;
  }

  async subscribe(opts: LiveEventsOptions): Promise<AsyncIterableIterator<EventRecord>> {
    const feed = this.feed(opts.mode);
    await feed.start();
    const sub: Subscription = new Subscription(feed, this.services.dbs.forMode(opts.mode), opts, () =>
      this.subscriptions.delete(sub),
    );
    this.subscriptions.add(sub);
    return sub;
  }

  /** Subscriptions open in this process (metrics, tests). */
  get open(): number {
    return this.subscriptions.size;
  }

  /** Ends every subscription (the server is shutting down: clients reconnect elsewhere). */
  endAll(): void {
    for (const sub of [...this.subscriptions]) sub.finish();
  }
}

// eslint-disable-next-line no-restricted-syntax -- process state: live events
const perProcess = new WeakMap<Services, LiveEvents>();

/** This process's live events (one per Services: an app and its workers share them). */
export function liveEvents(services: Services): LiveEvents {
  let live = perProcess.get(services);
  if (!live) {
    live = new LiveEvents(services);
    perProcess.set(services, live);
  }
  return live;
}
