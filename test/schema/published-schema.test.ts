// schema.graphql is the schema the code builds (printed sorted), and the CI step
// `npm run schema:check` refuses a breaking change unless schema-breaks.allowed declares it.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/schema/index.js';
import {
  parseAllowedBreaks,
  printPublishedSchema,
  schemaChanges,
  undeclaredBreaks,
} from '../../src/schema/published-schema.js';

const root = resolve(import.meta.dirname, '../..');
const printed = printPublishedSchema(schema);

describe('schema.graphql', () => {
  it('is the schema the code builds', () => {
    const committed = readFileSync(join(root, 'schema.graphql'), 'utf8');
    // A plain boolean first, so the failure says what to do rather than only printing a diff.
    expect(
      committed === printed,
      'schema.graphql differs from the schema the code builds: run `npm run schema` and commit schema.graphql',
    ).toBe(true);
  });

  it('is printed in lexicographic order, whatever order the types were registered in', () => {
    const types = [...printed.matchAll(/^(?:type|enum|input|scalar|interface|union) (\w+)/gm)].map((m) => m[1]!);
    expect(types.length).toBeGreaterThan(20);
    expect(types).toEqual([...types].sort((a, b) => a.localeCompare(b, 'en')));
  });
});

describe('schemaChanges', () => {
  const before = 'type Query { a: String! b(x: Int): Int }\nenum E { ONE TWO }\ntype T { e: E }';

  it('names each breaking and dangerous change', () => {
    const after = 'type Query { a: Int! b(x: Int, y: Int): Int c: String }\nenum E { ONE TWO THREE }\ntype T { e: E }';
    expect(schemaChanges(before, after)).toEqual({
      breaking: ['FIELD_CHANGED_KIND: Query.a changed type from String! to Int!.'],
      dangerous: [
        'OPTIONAL_ARG_ADDED: An optional arg y on Query.b was added.',
        'VALUE_ADDED_TO_ENUM: THREE was added to enum type E.',
      ],
    });
  });

  it('finds nothing between a schema and itself, and nothing breaking in an addition', () => {
    expect(schemaChanges(printed, printed)).toEqual({ breaking: [], dangerous: [] });
    expect(schemaChanges(before, `${before}\ntype U { x: Int }`).breaking).toEqual([]);
  });

  it('lets through exactly the declared breaks', () => {
    const changes = schemaChanges(
      before,
      'type Query { a: String! b(x: Int): Int }\nenum E { ONE }\ntype T { e: Int }',
    );
    expect(changes.breaking).toEqual([
      'FIELD_CHANGED_KIND: T.e changed type from E to Int.',
      'VALUE_REMOVED_FROM_ENUM: TWO was removed from enum type E.',
    ]);
    const allowed = parseAllowedBreaks(
      '# issue 16: the declared break\n\n  FIELD_CHANGED_KIND: T.e changed type from E to Int.  \n',
    );
    expect(undeclaredBreaks(changes, allowed)).toEqual(['VALUE_REMOVED_FROM_ENUM: TWO was removed from enum type E.']);
  });
});

describe('npm run schema:check', () => {
  // A repository of its own whose one commit holds a schema with one more field than the code:
  // against it the code's schema removes that field.
  const repo = mkdtempSync(join(tmpdir(), 'schema-check-'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
  git('init', '-q');
  writeFileSync(
    join(repo, 'schema.graphql'),
    printed.replace(/^type Query \{\n/m, 'type Query {\n  retired: String\n'),
  );
  git('add', 'schema.graphql');
  git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'base');
  afterAll(() => rmSync(repo, { recursive: true, force: true }));

  const run = (...args: string[]) =>
    spawnSync(
      process.execPath,
      [
        '--import',
        pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href,
        join(root, 'scripts/schema.ts'),
        'check',
        ...args,
      ],
      {
        cwd: repo,
        encoding: 'utf8',
        env: { ...process.env, SCHEMA_BASE: '' },
      },
    );

  it('fails listing an undeclared break, and says how to declare it', () => {
    const r = run('--base', 'HEAD');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('1 breaking change(s)');
    expect(r.stderr).toContain('  FIELD_REMOVED: Query.retired was removed.');
    expect(r.stderr).toContain('schema-breaks.allowed');
  });

  it('passes when schema-breaks.allowed declares it', () => {
    writeFileSync(
      join(repo, 'schema-breaks.allowed'),
      '# the declared break\nFIELD_REMOVED: Query.retired was removed.\n',
    );
    try {
      const r = run('--base', 'HEAD');
      expect(r.stderr).toBe('');
      expect(r.stdout).toContain('declared break: FIELD_REMOVED: Query.retired was removed.');
      expect(r.status).toBe(0);
    } finally {
      rmSync(join(repo, 'schema-breaks.allowed'));
    }
  });

  it('passes, comparing nothing, when the base has no schema.graphql', () => {
    const r = run('--base', '4b825dc642cb6eb9a060e54bf8d69288fbee4904'); // git's empty tree
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('nothing to compare');
  });
});
