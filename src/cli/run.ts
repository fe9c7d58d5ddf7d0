// Running a command of `svc` once main.ts has parsed it: loaded only then, since it brings the
// configuration, the database and the domain with it. Reads the same configuration as the
// server. With --json the command prints one JSON object on stdout and nothing else; errors go
// to stderr with a non-zero exit.
import { ConfigError, loadConfig } from '../config.js';
import { DataDirLockedError } from '../db/data-dir-lock.js';
import { toAppError } from '../errors.js';
import { createLogger } from '../logger.js';
import { createServices, type Services } from '../services.js';
import {
  commandNamed,
  describeFailure,
  exitStatus,
  failureLine,
  type CommandFailure,
  type Values,
} from './commands.js';
import { readServerFile, removeServerFile } from './server-file.js';
import { runThroughServer } from './through-server.js';

const FOLLOW_POLL_MS = 1000;

/** A command's refusal as the server reported it, printed like one made here. */
class CommandFailed extends Error {
  constructor(readonly failure: CommandFailure) {
    super(failure.message);
  }
}

/**
 * Runs one command with the options main.ts parsed: in this process, or in the running server
 * that holds the embedded data directory. Returns the exit status (docs/cli.md).
 */
export async function runCommand(name: string, values: Values, json: boolean): Promise<number> {
  const command = commandNamed(name);
  if (!command) throw new Error(`svc ${name}: no such command`);
  // A command that takes the company from a key takes SVC_API_KEY as listen and trigger do;
  // read here, where the person's environment is (the server may run the command).
  if (command.options['api-key'] && values['api-key'] === undefined && values.company === undefined) {
    const key = process.env.SVC_API_KEY;
    if (key) values = { ...values, 'api-key': key };
  }
  const print = (result: unknown) =>
    process.stdout.write(
      json
        ? `${JSON.stringify(result)}\n`
        : `${command.format ? command.format(result as never) : JSON.stringify(result, null, 2)}\n`,
    );
  const printFailure = (failure: CommandFailure) => process.stderr.write(`${failureLine(command, failure)}\n`);
  // `--follow` (events tail): the command again every second from the last position printed,
  // one line per item (with --json, one JSON object per line), until SIGINT or SIGTERM.
  const following = command.follows === true && values.follow === true;
  const follow = async (once: (vals: Values) => Promise<unknown>): Promise<number> => {
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      const { follow: _, ...rest } = values;
      let after = rest.after;
      while (!stop.signal.aborted) {
        const { data } = (await once(after === undefined ? rest : { ...rest, after })) as {
          data: Array<{ position: string }>;
        };
        for (const item of data) {
          process.stdout.write(`${json ? JSON.stringify(item) : command.format!({ data: [item] } as never)}\n`);
          after = item.position;
        }
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, FOLLOW_POLL_MS);
          stop.signal.addEventListener('abort', () => (clearTimeout(timer), resolve(undefined)), { once: true });
        });
      }
      return 0;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  };
  let services: Services | undefined;
  let logger: ReturnType<typeof createLogger> | undefined;
  try {
    const config = loadConfig();
    // Embedded PGlite is one process's (src/db/data-dir-lock.ts): while the server holds the
    // data directory, the command runs in the server instead.
    const server = config.DATABASE_URL ? null : readServerFile(config.DATA_DIR);
    if (server) {
      if (command.notThroughServer) {
        printFailure({
          message: `the server (pid ${server.pid}) is running on ${config.DATA_DIR}: ${command.notThroughServer}`,
        });
        return 1;
      }
      const viaServer = async (vals: Values) => {
        const outcome = await runThroughServer(server, command, vals);
        if (!outcome.ok) throw new CommandFailed(outcome.failure);
        return outcome.result;
      };
      if (following) return await follow(viaServer);
      print(await viaServer(values));
      return 0;
    }
    // CLI logs go to stderr so that stdout carries only the command's output.
    // `svc worker` is a long-running process: it logs at LOG_LEVEL like the server.
    const level = command.name === 'worker' ? config.LOG_LEVEL : json ? 'silent' : 'warn';
    logger = createLogger(level, process.stderr);
    services = await createServices(config, {
      logger,
      migrate: command.name !== 'migrate',
      holder: `svc ${command.name}`,
    });
    // This process holds the directory now, so a server.json left there by a killed server is stale.
    if (services.dbs.kind === 'pglite' && !config.DATA_DIR.startsWith('memory://')) removeServerFile(config.DATA_DIR);
    const direct = (vals: Values) => command.run(services!, vals);
    if (following) return await follow(direct);
    print(await direct(values));
    return 0;
  } catch (err) {
    if (err instanceof CommandFailed) {
      printFailure(err.failure);
      return exitStatus(err.failure);
    }
    if (err instanceof ConfigError || err instanceof DataDirLockedError) {
      process.stderr.write(`${err.message}\n`);
      return err instanceof DataDirLockedError ? 75 : 1;
    }
    // The code and message every other surface would give for this cause; the cause itself
    // only in the log (stderr), as the server logs it.
    const error = toAppError(err);
    if (error.code === 'SERVICE_UNAVAILABLE') logger?.warn({ err: error.cause ?? error }, error.message);
    else if (error.status >= 500) logger?.error({ err: error.cause ?? error, internal: error.internal }, error.message);
    const failure = describeFailure(error);
    printFailure(failure);
    return exitStatus(failure);
  } finally {
    await services?.close();
  }
}
