// docs/quickstart.md, step by step, as a newcomer runs it: the server as `npm start` runs it
// on a fresh embedded data directory, its banner's sandbox key, `svc listen` finding that
// server through the data directory, the Quickstart's receiver checking signatures with the
// SDK, and the Quickstart's booking script creating a booking through the SDK; the receiver
// must print the verified booking.created of that booking.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/receiver.js';
import { cleanEnv, ROOT, startServer, tempDir, type ServerProcess } from '../helpers/server-process.js';

interface Proc {
  child: ChildProcess;
  out(): string;
  err(): string;
  exited: Promise<number | null>;
}

function run(args: string[], env: Record<string, string | undefined>): Proc {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, out: () => out, err: () => err, exited };
}

/** A port nobody listens on now, for the receiver that `svc listen` must be told about first. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const dir = tempDir('svc-quickstart-');
const started: Array<{ stop(): unknown }> = [];

afterAll(async () => {
  for (const p of started.reverse()) await p.stop();
  dir.remove();
});

describe('docs/quickstart.md', () => {
  it('names the files and commands this test runs', () => {
    const doc = readFileSync(join(ROOT, 'docs/quickstart.md'), 'utf8');
    for (const step of [
      'npm ci',
      'npm start',
      'export SVC_API_KEY=svc_sk_test_...',
      'npx svc listen --forward-to http://localhost:4242/hooks',
      'WEBHOOK_SECRET=whsec_... node docs/quickstart/receiver.mjs',
      'node docs/quickstart/book.mjs',
    ])
      expect(doc).toContain(step);
    // The SDK snippet defines what it uses.
    const snippet = /```js\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
    for (const name of ['client', 'service', 'from', 'to', 'slots', 'booking'])
      expect(snippet, name).toMatch(new RegExp(`const (\\{[^}]*\\b${name}\\b[^}]*\\}|\\[${name}\\]|${name}) =`));
  });

  it('a fresh server, svc listen, the receiver and the SDK booking: the webhook arrives verified', async () => {
    // 1. npm start (the built server), on a data directory of its own.
    const server: ServerProcess = startServer({ PORT: '0', DATA_DIR: dir.path }, 300_000);
    started.push({ stop: () => server.stop() });
    const origin = await server.ready;
    const key = /^\s*Sandbox key\s+(svc_sk_test_\S+)$/m.exec(server.stderr())?.[1];
    expect(key, server.stderr()).toBeDefined();
    const env = { SVC_API_KEY: key, DATA_DIR: dir.path };

    // 2. svc listen, with no --base-url: it finds the server through DATA_DIR.
    const port = await freePort();
    const listen = run(['bin/svc.mjs', 'listen', '--forward-to', `http://localhost:${port}/hooks`], env);
    started.push({ stop: () => (listen.child.kill('SIGINT'), listen.exited) });
    const secret = (
      await waitFor(() => /Your signing secret is (whsec_\S+)/.exec(listen.out()), {
        timeoutMs: 30_000,
        what: `svc listen to be ready:\n${listen.err()}`,
      })
    )[1]!;

    // 3. The receiver, with the secret svc listen printed.
    const receiver = run(['docs/quickstart/receiver.mjs'], { WEBHOOK_SECRET: secret, PORT: String(port) });
    started.push({ stop: () => (receiver.child.kill('SIGTERM'), receiver.exited) });
    await waitFor(() => receiver.out().includes(`Receiving webhooks on http://localhost:${port}/hooks`), {
      timeoutMs: 20_000,
      what: `the receiver:\n${receiver.err()}`,
    });

    // 4. The booking, through the SDK.
    const book = run(['docs/quickstart/book.mjs'], { SVC_API_KEY: key, API_URL: origin });
    expect(await book.exited, book.err()).toBe(0);
    expect(book.out()).toMatch(/^Company: .+ \(test mode, /m);
    const bookingId = /: booking ([0-9a-f]{24}) \(/.exec(book.out())?.[1];
    expect(bookingId, book.out()).toBeDefined();

    // 5. The receiver prints the verified booking.created of that booking; svc listen its 200.
    await waitFor(
      () =>
        receiver
          .out()
          .split('\n')
          .some((l) => l.startsWith('verified booking.created ') && l.includes(`"bookingId":"${bookingId}"`)),
      { timeoutMs: 30_000, what: `the verified booking.created:\n${receiver.out()}\n${listen.out()}` },
    );
    await waitFor(() => /booking\.created\s+[0-9a-f]{24}\s+-> 200 /.test(listen.out()), { timeoutMs: 10_000 });
    expect(receiver.out()).not.toContain('refused');
    // The Quickstart's sample output shows the events in the order they arrive.
    const arrived = receiver
      .out()
      .split('\n')
      .flatMap((l) => /^verified ([a-z_.]+) /.exec(l)?.[1] ?? []);
    const doc = readFileSync(join(ROOT, 'docs/quickstart.md'), 'utf8');
    const shown = [...doc.matchAll(/^verified ([a-z_.]+) /gm)].map((m) => m[1]);
    expect(arrived.slice(0, shown.length)).toEqual(shown);
  }, 300_000);
});
