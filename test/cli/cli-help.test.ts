// The command line's front (docs/cli.md): help on stdout with exit 0, `--version`, every
// command's options and an example in its help, "did you mean" for a mistyped command, and
// usage errors as exit 64. None of it needs a database: help answers from the catalog alone.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOG, GROUPS } from '../../src/cli/catalog.js';
import { ROOT, runCli } from '../helpers/server-process.js';

// A configuration that cannot work: help must not need one.
const env = { DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none', REDIS_URL: 'redis://127.0.0.1:1' };

describe('svc help', () => {
  it('`svc`, `svc --help` and `svc help` list every command on stdout and exit 0', async () => {
    const outputs = await Promise.all([runCli([], env), runCli(['--help'], env), runCli(['help'], env)]);
    for (const res of outputs) {
      expect(res.code).toBe(0);
      expect(res.stderr).toBe('');
      expect(res.stdout).toMatch(/^Usage: svc /);
      for (const spec of CATALOG) expect(res.stdout).toContain(`  ${spec.name.split(' ')[0]}`);
    }
    expect(outputs[1].stdout).toBe(outputs[0].stdout);
    for (const group of Object.keys(GROUPS).filter((g) => CATALOG.some((c) => c.name.startsWith(`${g} `))))
      expect(outputs[0].stdout).toContain(GROUPS[group]);
  });

  it('--version prints the package version', async () => {
    const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    for (const flag of ['--version', '-V']) {
      const res = await runCli([flag], env);
      expect(res).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
    }
  });

  it('every command: `svc help <command>` equals `<command> --help`, with every option and an example', async () => {
    for (const spec of CATALOG) {
      const words = spec.name.split(' ');
      const [viaHelp, viaFlag] = await Promise.all([
        runCli(['help', ...words], env),
        runCli([...words, '--help'], env),
      ]);
      expect(viaHelp.code, spec.name).toBe(0);
      expect(viaHelp.stdout, spec.name).toBe(viaFlag.stdout);
      expect(viaHelp.stdout).toMatch(new RegExp(`^Usage: svc ${spec.name} `));
      expect(viaHelp.stdout.replace(/\s+/g, ' ')).toContain(spec.summary);
      // Help wraps long descriptions at the terminal's width.
      const flat = viaHelp.stdout.replace(/\s+/g, ' ');
      for (const [name, o] of Object.entries(spec.options)) {
        // commander reads a value name ending in "..." as a list of values.
        expect(o.value ?? '', `${spec.name} --${name}`).not.toMatch(/\.\.\.$/);
        expect(flat, `${spec.name} --${name}`).toContain(`--${name}`);
        expect(flat, `${spec.name} --${name}`).toContain(o.description);
      }
      expect(viaHelp.stdout).toContain('--json');
      expect(spec.examples.length, spec.name).toBeGreaterThan(0);
      expect(viaHelp.stdout).toContain(`Examples:\n  $ ${spec.examples[0]}`);
    }
  }, 60_000);

  it.each([
    ['a mistyped command', ['acount', 'create'], /unknown command 'acount'\n\(Did you mean account\?\)/],
    ['a mistyped subcommand', ['key', 'creat', '--name', 'x'], /unknown command 'creat'\n\(Did you mean create\?\)/],
    ['a mistyped command after help', ['help', 'sandbox', 'wip'], /unknown command 'wip'\n\(Did you mean wipe\?\)/],
    [
      'a mistyped option',
      ['key', 'create', '--compnay', 'x'],
      /unknown option '--compnay'\n\(Did you mean --company\?\)/,
    ],
    ['an option without its value', ['key', 'create', '--company'], /option '--company <id>' argument missing/],
    ['an argument where none is taken', ['migrate', 'now'], /too many arguments/],
    ['a group without its command', ['key'], /Usage: svc key /],
  ])('%s: stderr names it, nothing on stdout, exit 64', async (_, args, message) => {
    const res = await runCli(args, env);
    expect(res.code).toBe(64);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(message);
  });
});
