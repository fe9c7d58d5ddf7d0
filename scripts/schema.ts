// The published GraphQL schema (docs/graphql.md, "Schema changes and CI").
//   npm run schema          writes schema.graphql from the code
//   npm run schema:check    fails on a breaking change against the previous schema that
//                           schema-breaks.allowed does not declare
// The base of the check: `--base <rev>` or SCHEMA_BASE; else, on a branch, where it left main
// (`git merge-base HEAD main`); on main itself (or a detached checkout), the previous commit (HEAD~1). No schema.graphql
// at the base (before the file existed): nothing to compare, the check passes.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { schema } from '../src/schema/index.js';
import {
  ALLOWED_BREAKS_FILE,
  parseAllowedBreaks,
  printPublishedSchema,
  PUBLISHED_SCHEMA_FILE,
  schemaChanges,
  undeclaredBreaks,
} from '../src/schema/published-schema.js';

const out = (s: string) => process.stdout.write(`${s}\n`);

function git(...args: string[]): string | undefined {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

function baseRevision(argv: string[]): string | undefined {
  const i = argv.indexOf('--base');
  if (i >= 0 && argv[i + 1]) return argv[i + 1];
  if (process.env.SCHEMA_BASE) return process.env.SCHEMA_BASE;
  // A branch (not main, not a detached checkout) is judged from where it left main, its
  // uncommitted changes included; main itself against its previous commit.
  const branch = git('rev-parse', '--abbrev-ref', 'HEAD');
  const forkPoint = branch && branch !== 'main' && branch !== 'HEAD' ? git('merge-base', 'HEAD', 'main') : undefined;
  return forkPoint || git('rev-parse', '--verify', '--quiet', 'HEAD~1');
}

function check(argv: string[]): number {
  const base = baseRevision(argv);
  const before = base ? git('show', `${base}:${PUBLISHED_SCHEMA_FILE}`) : undefined;
  if (before === undefined) {
    out(`schema:check: no ${PUBLISHED_SCHEMA_FILE} at ${base ?? 'any previous commit'}; nothing to compare`);
    return 0;
  }
  const changes = schemaChanges(before, printPublishedSchema(schema));
  const allowed = existsSync(ALLOWED_BREAKS_FILE)
    ? parseAllowedBreaks(readFileSync(ALLOWED_BREAKS_FILE, 'utf8'))
    : new Set<string>();
  const label = `${base!.slice(0, 12)}:${PUBLISHED_SCHEMA_FILE}`;
  for (const c of changes.dangerous) out(`dangerous (allowed): ${c}`);
  for (const c of changes.breaking.filter((b) => allowed.has(b))) out(`declared break: ${c}`);
  const refused = undeclaredBreaks(changes, allowed);
  if (refused.length === 0) {
    out(`schema:check: no undeclared breaking change against ${label}`);
    return 0;
  }
  process.stderr.write(
    [
      `schema:check: ${refused.length} breaking change(s) of the GraphQL schema against ${label}:`,
      ...refused.map((c) => `  ${c}`),
      '',
      'Make the change additive (a new field beside the old one, the old one @deprecated), or, for a',
      `declared break (docs/graphql.md, "Schema changes and CI"), add these lines to ${ALLOWED_BREAKS_FILE}:`,
      ...refused,
      '',
    ].join('\n'),
  );
  return 1;
}

const [command = 'write', ...rest] = process.argv.slice(2);
if (command === 'write') {
  writeFileSync(PUBLISHED_SCHEMA_FILE, printPublishedSchema(schema));
  out(`wrote ${PUBLISHED_SCHEMA_FILE}`);
} else if (command === 'check') {
  process.exitCode = check(rest);
} else {
  process.stderr.write('usage: tsx scripts/schema.ts [write | check [--base <rev>]]\n');
  process.exitCode = 64;
}
