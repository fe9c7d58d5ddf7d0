// Messages every instance must hear (credential revocations, profile changes). Redis pub/sub
// when REDIS_URL is set; in one process, a plain emitter.
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';

export interface Bus {
  publish(channel: string, message: string): Promise<void>;
  subscribe(channel: string, handler: (message: string) => void): Promise<void>;
  close(): Promise<void>;
}

export function localBus(): Bus {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return {
    async publish(channel, message) {
      emitter.emit(channel, message);
    },
    async subscribe(channel, handler) {
      emitter.on(channel, handler);
    },
    async close() {
      emitter.removeAllListeners();
    },
  };
}

/**
 * `publisher` is the shared connection; a subscriber connection is duplicated from it.
 *
 * publish() resolves only once the message has come back on this process's own subscription
 * (when it subscribes to the channel): Redis fans a message out to every subscriber in one
 * go, so by then every other instance has it too. Without that, "revoke, then ask another
 * instance" could beat the message and be served from that instance's cache
 * (test/auth/credential-cache.test.ts caught it). A lost echo waits at most ECHO_WAIT_MS.
 */
const ECHO_WAIT_MS = 500;

export function redisBus(publisher: Redis, prefix: string): Bus {
  const subscriber = publisher.duplicate();
  const handlers = new Map<string, Array<(m: string) => void>>();
  const echoes = new Map<string, () => void>();
  const origin = randomBytes(6).toString('hex');
  let sequence = 0;
  subscriber.on('message', (channel: string, raw: string) => {
    // Wire format: "<origin>.<sequence> <message>".
    const space = raw.indexOf(' ');
    const id = raw.slice(0, space);
    const message = raw.slice(space + 1);
    for (const h of handlers.get(channel) ?? []) h(message);
    const echo = echoes.get(id);
    if (echo) {
      echoes.delete(id);
      // Let this turn's other socket reads (other instances' subscribers) run first.
      setImmediate(echo);
    }
  });
  subscriber.on('error', () => {
    // ioredis reconnects by itself; the TTL backstop covers messages missed meanwhile.
  });
  // Subscriptions are (re)made whenever the connection becomes ready, so a process that starts
  // while Redis is down serves at once and hears messages from the moment Redis is back
  // (ioredis's own resubscribe covers only subscriptions that had succeeded). SUBSCRIBE is
  // idempotent.
  const subscribeAll = () => {
    const channels = [...handlers.keys()];
    if (channels.length) subscriber.subscribe(...channels).catch(() => undefined);
  };
  subscriber.on('ready', subscribeAll);
  return {
    async publish(channel, message) {
      const full = prefix + channel;
      const id = `${origin}.${sequence++}`;
      if (!handlers.has(full)) {
        await publisher.publish(full, `${id} ${message}`);
        return;
      }
      let timer: NodeJS.Timeout | undefined;
      const echoed = new Promise<void>((resolve) => {
        echoes.set(id, resolve);
        timer = setTimeout(() => {
          echoes.delete(id);
          resolve();
        }, ECHO_WAIT_MS);
      });
      try {
        await publisher.publish(full, `${id} ${message}`);
        await echoed;
      } finally {
        echoes.delete(id);
        clearTimeout(timer);
      }
    },
    async subscribe(channel, handler) {
      const full = prefix + channel;
      const list = handlers.get(full) ?? [];
      list.push(handler);
      handlers.set(full, list);
      // Not awaited past the connection: when Redis is unreachable the 'ready' handler above
      // subscribes once it is back, and the cache's TTL bounds what is missed meanwhile.
      if (list.length === 1 && subscriber.status === 'ready') await subscriber.subscribe(full).catch(() => undefined);
    },
    async close() {
      subscriber.disconnect();
    },
  };
}
