// A TCP relay between our code and a real server (PostgreSQL), so a test can make the network
// misbehave without replacing any component: hold the server's answers (a query that has run
// but not yet returned) or go away entirely (an outage).
import { connect, createServer, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  /** From now on the server's answers are held, not delivered. */
  pause(): void;
  /** Resolves once an answer has been held since the last pause(). */
  held(): Promise<void>;
  /** Delivers what was held, in order, and relays freely again. */
  resume(): void;
  /** Stops listening and cuts every connection: the server is unreachable from now on. */
  close(): Promise<void>;
}

export async function startTcpProxy(target: { hostname: string; port: string | number }): Promise<TcpProxy> {
  const [host, port] = [target.hostname, Number(target.port)];
  const sockets = new Set<Socket>();
  let paused = false;
  let heldWrites: Array<() => void> = [];
  let waiters: Array<() => void> = [];
  const server = createServer((client) => {
    const upstream = connect(port, host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    const cut = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', cut).on('close', cut);
    upstream.on('error', cut).on('close', cut);
    client.on('data', (d) => upstream.write(d));
    upstream.on('data', (d) => {
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
    async close() {
      const closed = new Promise((resolve) => server.close(resolve));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}
