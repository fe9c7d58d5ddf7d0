// `svc`: the operator's CLI (docs/cli.md). This file parses the command line with commander
// and answers help, `--version` and mistakes by itself, from the catalog alone; only a command
// that runs loads run.ts, and with it the configuration, the database and the domain. So help
// answers at once, and `svc worker` costs what the workers cost.
//
// Exit statuses: 0 done (help included), 1 a refusal, 64 a mistake on the command line (an
// unknown command or option, a missing value), 70 our fault, 75 try again (run.ts).
import { Command as Program, CommanderError, Option } from 'commander';
import packageJson from '../../package.json' with { type: 'json' };
import { CATALOG, GROUPS, type CommandSpec } from './catalog.js';

type Values = Record<string, string | string[] | boolean | undefined>;

const EX_USAGE = 64;

/** commander's option key: `--key-id` is `keyId`. */
const keyOf = (name: string) => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

function addOptions(cmd: Program, spec: CommandSpec): void {
  for (const [name, o] of Object.entries(spec.options)) {
    const flags = o.type === 'boolean' ? `--${name}` : `--${name} <${o.value ?? 'value'}>`;
    const option = new Option(flags, `${o.description}${o.required ? ' (required)' : ''}`);
    if (o.multiple) option.argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);
    cmd.addOption(option);
  }
  cmd.option('--json', 'print one JSON object on stdout and nothing else');
}

function examples(spec: CommandSpec): string {
  return spec.examples.length ? `\nExamples:\n${spec.examples.map((e) => `  $ ${e}`).join('\n')}\n` : '';
}

export function buildProgram(run: (spec: CommandSpec, values: Values, json: boolean) => Promise<number>) {
  let exitCode = 0;
  const program = new Program('svc')
    .description('The booking service operator command line (docs/cli.md).')
    .version(packageJson.version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help for a command')
    // `svc help <words>` is read as `svc <words> --help` (main), so commander's own suggestions
    // answer a mistyped name there too; this entry only lists it.
    .helpCommand('help [command...]', 'show help for a command: svc help key create')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => process.stdout.write(s),
      writeErr: (s) => process.stderr.write(s),
    })
    .addHelpText(
      'after',
      '\nRun `svc help <command>` or `svc <command> --help` for its options and an example.\n' +
        'Exit status: 0 done, 1 refused, 64 usage error, 70 internal error, 75 try again.\n',
    );
  const groups = new Map<string, Program>();
  const leaves = new Map<string, Program>();
  for (const spec of CATALOG) {
    const words = spec.name.split(' ');
    let parent = program;
    if (words.length === 2) {
      const groupName = words[0]!;
      let group = groups.get(groupName);
      if (!group) {
        group = program
          .command(groupName)
          .description(GROUPS[groupName] ?? groupName)
          .helpCommand(false)
          .showSuggestionAfterError(true)
          .exitOverride();
        groups.set(groupName, group);
      }
      parent = group;
    }
    const cmd = parent
      .command(words.at(-1)!)
      .description(spec.summary)
      .exitOverride()
      .showSuggestionAfterError(true)
      .addHelpText('after', examples(spec))
      .action(async (...args: unknown[]) => {
        // With an argument (`svc trigger <event>`), commander passes it first, then the options.
        const opts = args[spec.argument ? 1 : 0] as Record<string, unknown>;
        const values: Values = spec.argument ? { [spec.argument.name]: args[0] as string } : {};
        for (const name of Object.keys(spec.options)) {
          const v = opts[keyOf(name)];
          if (v !== undefined) values[name] = v as Values[string];
        }
        exitCode = await run(spec, values, opts.json === true);
      });
    if (spec.argument) cmd.argument(`<${spec.argument.name}>`, spec.argument.description);
    addOptions(cmd, spec);
    leaves.set(spec.name, cmd);
  }
  return { program, exitCode: () => exitCode };
}

/**
 * `svc help a b` is `svc a b --help` when a and b name a command; otherwise `svc a b` without
 * --help, so that commander reports the unknown word with its "did you mean".
 */
function helpArgs(program: Program, words: string[]): string[] {
  let cmd = program;
  for (const word of words) {
    const next = cmd.commands.find((c) => c.name() === word);
    if (!next) return words;
    cmd = next;
  }
  return [...words, '--help'];
}

export async function main(argv: string[]): Promise<number> {
  const { program, exitCode } = buildProgram(async (spec, values, json) => {
    // A command of an integrator's machine talks to the API, and needs neither database nor domain.
    if (spec.apiClient) {
      const { runApiCommand } = await import('./api-run.js');
      return runApiCommand(spec, values, json);
    }
    const { runCommand } = await import('./run.js');
    return runCommand(spec.name, values, json);
  });
  if (argv.length === 0) {
    program.outputHelp();
    return 0;
  }
  const args = argv[0] === 'help' ? helpArgs(program, argv.slice(1)) : argv;
  try {
    await program.parseAsync(args, { from: 'user' });
    return exitCode();
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    // Help and --version end the parse by "exiting" 0; a group named without its command
    // (`svc key`) shows the group's help on stderr, which is a usage error.
    return err.exitCode === 0 ? 0 : EX_USAGE;
  }
}

// `svc --help | head`: a reader that stops early is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});
process.exitCode = await main(process.argv.slice(2));
