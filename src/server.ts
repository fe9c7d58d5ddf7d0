// Listens and shuts down gracefully; everything else is buildApp (src/app.ts).
import { createServer as createNetServer } from 'node:net';
import { buildApp } from './app.js';
import { checkServerConfig, ConfigError, loadConfig, type Config } from './config.js';
import { ensureDemo, type DemoCredentials } from './demo.js';
import { startCliBridge, type CliBridge } from './cli/bridge.js';
import { newCredential, writeServerFile } from './cli/server-file.js';
import { DataDirLockedError } from './db/data-dir-lock.js';
import { createServices, type Services } from './services.js';
import { startWorkers, warnIfLiveEmailCannotBeSent, type Workers } from './workers/runtime.js';

function banner(origin: string, config: Config, demo: DemoCredentials | null): string {
  const lines = [
    '',
    `  Booking service listening on ${origin}`,
    '',
    `  REST API     ${origin}/api/v1`,
    `  GraphQL      ${origin}/graphql`,
    `  OAuth        ${config.AUTH_URL ?? origin}/oauth/authorize`,
    `  Admin        ${origin}/admin`,
    `  Reference    ${origin}/docs   (OpenAPI: ${origin}/openapi.json)`,
    `  Health       ${origin}/healthz  ${origin}/readyz  ${origin}/metrics`,
    `  Database     ${config.DATABASE_URL ? 'PostgreSQL' : `embedded PGlite in ${config.DATA_DIR}`}; ${config.REDIS_URL ? 'Redis' : 'in-process queue and rate limiter'}`,
  ];
  if (demo) {
    lines.push(
      '',
      `  Demo login   ${demo.email} / ${demo.password}`,
      ...(demo.testKey
        ? [
            `  Sandbox key  ${demo.testKey}`,
            '',
            `  Try it:      curl -H "Authorization: Bearer ${demo.testKey}" ${origin}/api/v1/me`,
          ]
        : [`  Sandbox key  none: the sandbox was wiped (svc sandbox restore --account ${demo.email})`]),
    );
  }
  return `${lines.join('\n')}\n`;
}

/** What to tell a person when the port cannot be taken, or null for any other error. */
function portProblem(err: unknown, config: Config): string | null {
  const code = (err as NodeJS.ErrnoException).code;
  const other = config.PORT < 65535 ? config.PORT + 1 : 3000;
  if (code === 'EADDRINUSE')
    return `Port ${config.PORT} on ${config.HOST} is already in use by another program: stop it, or set PORT to a free port (PORT=${other} npm start).\n`;
  if (code === 'EACCES')
    return `Port ${config.PORT} on ${config.HOST} may not be opened by this user: set PORT to a port above 1023 (PORT=3000 npm start).\n`;
  return null;
}

/** Opens and closes the port once; the listen itself checks again. */
async function checkPort(config: Config): Promise<string | null> {
  if (config.PORT === 0) return null;
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', (err) => {
      const problem = portProblem(err, config);
      if (problem) resolve(problem);
      else reject(err);
    });
    probe.listen({ host: config.HOST, port: config.PORT, exclusive: true }, () => probe.close(() => resolve(null)));
  });
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
    checkServerConfig(config);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(78);
    }
    throw err;
  }
  // Signals are handled from the first moment: a SIGTERM during start-up (migrations can take
  // a while) lets start-up finish, then shuts down cleanly instead of dying half-migrated.
  let shutdown: ((signal: string) => Promise<void>) | null = null;
  let pendingSignal: string | null = null;
  const onSignal = (signal: string) => {
    if (shutdown) void shutdown(signal);
    else pendingSignal ??= signal;
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));

  // The port first: a port in use is one line naming PORT at once, not a stack trace after the
  // migrations and the demo seed.
  const problem = await checkPort(config);
  if (problem) {
    process.stderr.write(problem);
    process.exit(75);
  }

  let services: Services;
  try {
    services = await createServices(config, { migrate: true, holder: 'server' });
  } catch (err) {
    // Another process holds the embedded data directory: say which, and what to do.
    if (err instanceof DataDirLockedError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(75);
    }
    throw err;
  }
  const demo = config.SEED_DEMO ? await ensureDemo(services) : null;
  await warnIfLiveEmailCannotBeSent(services);
  const app = await buildApp(services);
  // Workers run in this process unless RUN_WORKERS=0 (then `svc worker` runs them).
  const workers: Workers | null = config.RUN_WORKERS ? await startWorkers(services) : null;
  try {
    await app.listen({ host: config.HOST, port: config.PORT });
  } catch (err) {
    // Taken since the first check (below): the same line, after letting go of the databases.
    const problem = portProblem(err, config);
    if (!problem) throw err;
    process.stderr.write(problem);
    await app.close();
    await workers?.stop();
    await services.close();
    process.exit(75);
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const origin =
    config.BASE_URL ??
    `${config.TLS_CERT ? 'https' : 'http'}://${config.HOST === '0.0.0.0' ? 'localhost' : config.HOST}:${port}`;
  // Embedded, this process is the only one that can open DATA_DIR: `svc` commands come to it
  // through a loopback bridge, found in DATA_DIR/server.json (src/cli/server-file.ts).
  let bridge: CliBridge | null = null;
  let removeServerFile = () => {};
  if (services.dbs.kind === 'pglite' && !config.DATA_DIR.startsWith('memory://')) {
    const credential = newCredential();
    bridge = await startCliBridge(services, credential.hash);
    // The API as this machine reaches it: a wildcard address is reached over loopback.
    const local = ['0.0.0.0', '::'].includes(config.HOST) ? '127.0.0.1' : config.HOST;
    const apiUrl = `${config.TLS_CERT ? 'https' : 'http'}://${local.includes(':') ? `[${local}]` : local}:${port}`;
    removeServerFile = writeServerFile(config.DATA_DIR, bridge.url, credential, apiUrl);
  }
  // The banner goes to stderr so stdout stays pure JSON logs.
  process.stderr.write(banner(origin, config, demo));

  let closing = false;
  shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    services.logger.info({ signal }, 'shutting down: no new connections, finishing in-flight requests');
    const force = setTimeout(() => {
      services.logger.error('shutdown took longer than 25 s; exiting');
      process.exit(1);
    }, 25_000);
    force.unref();
    try {
      // CLI commands from now on open the directory themselves, once this process has let go.
      removeServerFile();
      await Promise.all([app.close(), bridge?.close()]);
      // After the HTTP server: in-flight jobs finish, nothing accepted is dropped.
      await workers?.stop();
      await services.close();
      process.exit(0);
    } catch (err) {
      services.logger.error({ err }, 'error during shutdown');
      process.exit(1);
    }
  };
  if (pendingSignal) await shutdown(pendingSignal);
}

await main();
