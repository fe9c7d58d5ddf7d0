// A TCP relay between our code and a real server (PostgreSQL), so a test can make the network
// misbehave without replacing any component: hold the server's answers (a query that has run
// but not yet returned), freeze the server as a stopped process looks from outside, or go
// away entirely (an outage).
import { connect, createServer, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  /** From now on the server's answers are held, not delivered. */
  pause(): void;
  /** Resolves once an answer has been held since the last pause(). */
  held(): Promise<void>;
  /** Delivers what was held, in order, and relays freely again. */
  resume(): void;
  /**
   * Stops forwarding bytes both ways, on the connections open now and on new ones, without
   * closing any: what a client sees of a server whose process is stopped (SIGSTOP). Its kernel
   * still accepts connections and acknowledges what is sent; nothing comes back.
   */
  freeze(): void;
  /**
   * Relays again, first what was held, in order (SIGCONT). With `strand`, the connections
   * opened before the thaw stay silent for good (their bytes dropped, never closed), as after
   * a failover or a lost NAT entry: only connections made from now on work.
   */
  thaw(opts?: { strand?: boolean }): void;
  /** Stops listening and cuts every connection: the server is unreachable from now on. */
  close(): Promise<void>;
}

interface Link {
  toServer: Buffer[];
  toClient: Buffer[];
  frozen: boolean;
  stranded: boolean;
  /** Sends what was held, in order. */
  flush(): void;
}

export async function startTcpProxy(target: { hostname: string; port: string | number }): Promise<TcpProxy> {
  const [host, port] = [target.hostname, Number(target.port)];
  const sockets = new Set<Socket>();
  const links = new Set<Link>();
  let paused = false;
  let frozen = false;
  let heldWrites: Array<() => void> = [];
  const waiters: Array<() => void> = [];
  const server = createServer((client) => {
    const upstream = connect(port, host);
    const link: Link = {
      toServer: [],
      toClient: [],
      frozen,
      stranded: false,
      flush() {
        for (const d of link.toServer.splice(0)) upstream.write(d);
        for (const d of link.toClient.splice(0)) client.write(d);
      },
    };
    links.add(link);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    const cut = () => {
      links.delete(link);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', cut).on('close', cut);
    upstream.on('error', cut).on('close', cut);
    client.on('data', (d) => {
      if (link.stranded) return;
      if (link.frozen) return void link.toServer.push(d);
      upstream.write(d);
    });
    upstream.on('data', (d) => {
      if (link.stranded) return;
      if (link.frozen) return void link.toClient.push(d);
      if (!paused) return void client.write(d);
      heldWrites.push(() => client.write(d));
      for (const w of waiters.splice(0)) w();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    pause() {
      paused = true;
      heldWrites = [];
    },
    held: () => (heldWrites.length ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
    resume() {
      paused = false;
      for (const write of heldWrites.splice(0)) write();
    },
    freeze() {
      frozen = true;
      for (const link of links) link.frozen = true;
    },
    thaw(opts = {}) {
      frozen = false;
      for (const link of links) {
        link.frozen = false;
        if (opts.strand) {
          link.stranded = true;
          link.toServer = [];
          link.toClient = [];
        } else link.flush();
      }
    },
    async close() {
      const closed = new Promise((resolve) => server.close(resolve));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}
