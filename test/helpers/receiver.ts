// A real local HTTP server standing in for a customer's webhook receiver: it keeps every
// request with its raw body and answers what the test tells it to.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export type Responder = (req: Received, res: ServerResponse) => void;

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  respond(r: Responder): void;
  close(): Promise<void>;
}

export const ok: Responder = (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');

export async function startReceiver(responder: Responder = ok, port = 0): Promise<Receiver> {
  let current = responder;
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(r);
      current(r, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const p = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${p}/hooks`,
    port: p,
    received,
    respond: (r) => void (current = r),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export async function waitFor<T>(
  probe: () => T | Promise<T>,
  opts: { timeoutMs?: number; what?: string } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${opts.what ?? 'a condition'}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Fast retries and polls for tests: a configuration knob, not a mock (config.ts). */
export const FAST_WORKERS = {
  WEBHOOK_RETRY_SCHEDULE: '0.3,0.6,1,1,1',
  WEBHOOK_TIMEOUT_MS: '1500',
  WORKER_POLL_MS: '100',
};
