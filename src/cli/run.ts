// `svc`: the operator's CLI (docs/cli.md). Reads the same configuration as the server. With
// --json each command prints one JSON object on stdout and nothing else; errors go to stderr
// with a non-zero exit.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import { DataDirLockedError } from '../db/data-dir-lock.js';
import { toAppError } from '../errors.js';
import { createLogger } from '../logger.js';
import { createServices, type Services } from '../services.js';
import { COMMANDS, describeFailure, exitStatus, failureLine, type Command, type CommandFailure } from './commands.js';
import { readServerFile, removeServerFile } from './server-file.js';
import { runThroughServer } from './through-server.js';

function usage(): string {
  const lines = ['Usage: svc <command> [options] [--json]', '', 'Commands:'];
  for (const c of COMMANDS) lines.push(`  ${c.name.padEnd(22)} ${c.summary}`);
  return lines.join('\n');
}

function findCommand(argv: string[]): { command: Command; rest: string[] } | null {
  for (const c of COMMANDS) {
    const words = c.name.split(' ');
    if (words.every((w, i) => argv[i] === w)) return { command: c, rest: argv.slice(words.length) };
  }
  return null;
}

async function main(argv: string[]): Promise<number> {
  const found = findCommand(argv);
  if (!found) {
    process.stderr.write(`${usage()}\n`);
    return argv.length === 0 || argv[0] === '--help' ? 0 : 64;
  }
  const { command, rest } = found;
  let values: Record<string, string | string[] | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: rest,
      options: { ...command.options, json: { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    process.stderr.write(`svc ${command.name}: ${(err as Error).message}\n`);
    return 64;
  }
  const json = values.json === true;
  delete values.json;
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

process.exitCode = await main(process.argv.slice(2));
