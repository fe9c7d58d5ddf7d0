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

/**
 * Runs one command with the options main.ts parsed: in this process, or in the running server
 * that holds the embedded data directory. Returns the exit status (docs/cli.md).
 */
export async function runCommand(name: string, values: Values, json: boolean): Promise<number> {
  const command = commandNamed(name);
  if (!command) throw new Error(`svc ${name}: no such command`);
  const print = (result: unknown) =>
    process.stdout.write(
      json
        ? `${JSON.stringify(result)}\n`
        : `${command.format ? command.format(result as never) : JSON.stringify(result, null, 2)}\n`,
    );
  const printFailure = (failure: CommandFailure) => process.stderr.write(`${failureLine(command, failure)}\n`);
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
      const outcome = await runThroughServer(server, command, values);
      if (!outcome.ok) {
        printFailure(outcome.failure);
        return exitStatus(outcome.failure);
      }
      print(outcome.result);
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
    print(await command.run(services, values));
    return 0;
  } catch (err) {
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
