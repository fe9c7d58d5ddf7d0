// The server's half of `svc` while it holds an embedded data directory (one process at a
// time, src/db/data-dir-lock.ts): POST /internal/cli/<command words> runs the same Command.run
// as `svc` does in a process of its own, on the server's services, and answers its JSON value
// or its failure. It listens on a loopback port of its own, never on the public one, and
// answers only loopback peers that present the local credential of DATA_DIR/server.json.
import { timingSafeEqual } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { AppError, toAppError } from '../errors.js';
import type { Services } from '../services.js';
import { commandNamed, describeFailure, type Command, type Values } from './commands.js';
import { BRIDGE_PREFIX, hashCredential } from './server-file.js';

const isLoopback = (address: string | undefined) =>
  !!address && (/^(::ffff:)?127\./.test(address) || address === '::1');

function credentialMatches(header: string | undefined, expected: Buffer): boolean {
  const m = /^Bearer (\S+)$/.exec(header ?? '');
  // Hashes of equal length whatever was sent; compared in constant time.
  return !!m && timingSafeEqual(hashCredential(m[1]!), expected);
}

/** The body is the options `svc` parsed, checked against the command's own option table. */
function optionValues(command: Command, body: unknown): Values {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body))
    throw new AppError('BAD_REQUEST', 'The body must be an object of options');
  const values: Values = {};
  for (const [name, value] of Object.entries(body)) {
    const option = command.options[name];
    const ok =
      option &&
      (option.type === 'boolean'
        ? typeof value === 'boolean'
        : option.multiple
          ? Array.isArray(value) && value.every((v) => typeof v === 'string')
          : typeof value === 'string');
    if (!ok)
      throw AppError.validation([
        {
          path: name,
          message: !option
            ? 'unknown option'
            : option.multiple
              ? 'must be a list of strings'
              : `must be a ${option.type}`,
        },
      ]);
    values[name] = value as Values[string];
  }
  return values;
}

export function buildCliBridge(services: Services, credentialHash: Buffer): FastifyInstance {
  const logger = services.logger.child({ component: 'cli-bridge' });
  // One line per command run (below), not two per request; Fastify's own lines only from warn
  // up, so its "Server listening" on a loopback port nobody types is not a second banner.
  const level = services.logger.levelVal >= services.logger.levels.values.warn! ? services.logger.level : 'warn';
  const baseLogger: FastifyBaseLogger = services.logger.child({ component: 'cli-bridge' }, { level });
  const app = Fastify({
    loggerInstance: baseLogger,
    logController: new LogController({ disableRequestLogging: true }),
  });
  const fail = (err: unknown) => ({ status: false, error: describeFailure(err) });

  // The code and status of the one error table (src/errors.ts), as `svc` on its own gives them.
  app.setErrorHandler((err, _req, reply) => {
    const appError = toAppError(err);
    if (appError.status >= 500) logger.error({ err: appError.cause ?? appError }, 'CLI command failed');
    void reply.code(appError.status).send(fail(appError));
  });
  app.setNotFoundHandler(
    (req, reply) => void reply.code(404).send(fail(new AppError('NOT_FOUND', `No route ${req.method} ${req.url}`))),
  );

  // Before the body is read: nothing from a stranger is parsed.
  app.addHook('onRequest', async (req) => {
    if (!isLoopback(req.socket.remoteAddress))
      throw new AppError('FORBIDDEN', 'The CLI bridge answers loopback connections only');
    if (!credentialMatches(req.headers.authorization, credentialHash)) {
      throw new AppError(
        'UNAUTHORIZED',
        `Missing or wrong local credential (the one in the data directory's server.json)`,
      );
    }
  });

  app.post<{ Params: { '*': string } }>(`${BRIDGE_PREFIX}*`, async (req) => {
    const name = req.params['*'].split('/').join(' ');
    const command = commandNamed(name);
    if (!command || command.notThroughServer)
      throw new AppError('NOT_FOUND', `No command "${name}" runs through the server`);
    const result = await command.run(services, optionValues(command, req.body));
    logger.info({ command: command.name }, 'ran a CLI command');
    return { status: true, data: result };
  });
  return app;
}

export interface CliBridge {
  url: string;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1, on a port the system picks. */
export async function startCliBridge(services: Services, credentialHash: Buffer): Promise<CliBridge> {
  const app = buildCliBridge(services, credentialHash);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, close: () => app.close() };
}
