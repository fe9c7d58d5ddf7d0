// Keeps docs/ true to the code where a machine can tell: the error table, the event names, the
// routes of the OpenAPI document, the CLI commands, and links that resolve. Also keeps the
// repository self-contained: no document or comment may point at files a clone does not have.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/cli/catalog.js';
import { ERROR_STATUS } from '../../src/errors.js';
import { EVENT_TYPES } from '../../src/schema/events/events.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const docs = readdirSync(join(root, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`);

/** The rows of the first Markdown table after `heading` whose first cell is a `code span`. */
function tableAfter(markdown: string, heading: string): string[][] {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`no heading ${heading}`);
  const rows: string[][] = [];
  let inTable = false;
  for (const line of markdown.slice(start + heading.length + 2).split('\n')) {
    if (line.startsWith('|')) {
      inTable = true;
      rows.push(
        line
          .split(/(?<!\\)\|/)
          .slice(1, -1)
          .map((c) => c.trim()),
      );
    } else if (inTable) break;
  }
  return rows.filter((r) => /^`[^`]+`/.test(r[0] ?? ''));
}

/** Every `code span` of a table cell ("`A`, `B`" is two). */
const spans = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

describe('docs/api.md', () => {
  const api = read('docs/api.md');

  it('lists every error code of src/errors.ts with its HTTP status, and no other', () => {
    const documented = new Map<string, number>();
    for (const row of tableAfter(api, '## Errors')) {
      for (const code of spans(row[0]!)) documented.set(code, Number(row[1]));
    }
    expect(Object.fromEntries(documented)).toEqual(ERROR_STATUS);
  });

  it('every error code of the table is produced and checked by some test', () => {
    const tests = execFileSync('git', ['ls-files', 'test'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .filter((f) => f.endsWith('.ts') && !f.startsWith('test/docs/') && existsSync(join(root, f)))
      .map(read)
      .join('\n');
    const untested = Object.keys(ERROR_STATUS).filter((code) => !new RegExp(`\\b${code}\\b`).test(tests));
    expect(untested).toEqual([]);
  });

  describe('against the OpenAPI document', () => {
    let t: TestApp;
    let routes: string[];
    beforeAll(async () => {
      t = await createTestApp();
      const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
      const paths = res.json().paths as Record<string, Record<string, unknown>>;
      routes = Object.entries(paths)
        .filter(([path]) => path.startsWith('/api/v1/'))
        .flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`));
    }, 120_000);
    afterAll(async () => t?.close());

    it('documents every /api/v1 route', () => {
      expect(routes.length).toBeGreaterThan(40);
      const missing = routes.filter((r) => !new RegExp(`\`${r.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[\`?]`).test(api));
      expect(missing).toEqual([]);
    });

    it('documents no /api/v1 route that does not exist', () => {
      const documented = [...api.matchAll(/`(GET|POST|PATCH|PUT|DELETE) (\/api\/v1\/[^`?\s]+)/g)].map(
        (m) => `${m[1]} ${m[2]}`,
      );
      expect(documented.length).toBeGreaterThan(40);
      expect([...new Set(documented.filter((r) => !routes.includes(r)))]).toEqual([]);
    });
  });
});

describe('docs/webhooks.md', () => {
  const webhooks = read('docs/webhooks.md');

  it('documents exactly the event types of the code', () => {
    const documented = tableAfter(webhooks, '## Events').flatMap((r) => spans(r[0]!));
    expect([...documented].sort()).toEqual([...EVENT_TYPES].sort());
  });

  it('every event type the code writes is one of EVENT_TYPES', () => {
    const src = execFileSync('git', ['ls-files', 'src'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .filter((f) => f.endsWith('.ts') && existsSync(join(root, f)))
      .map(read)
      .join('\n');
    // recordEvent(tx, { type: '...' }), recordBookingEvent(tx, b, '...'), event.create({ type: '...' }).
    const written = new Set([
      ...[...src.matchAll(/\btype: '([a-z_]+(?:\.[a-z_]+)?)',/g)]
        .map((m) => m[1]!)
        .filter((t) => t.includes('.') || t === 'ping'),
      ...[...src.matchAll(/recordBookingEvent\([^)]*?'([a-z_]+\.[a-z_]+)'/g)].map((m) => m[1]!),
    ]);
    expect(written.size).toBeGreaterThan(5);
    expect([...written].filter((t) => !(EVENT_TYPES as readonly string[]).includes(t))).toEqual([]);
  });
});

describe('docs/cli.md', () => {
  it('documents exactly the commands of the CLI', () => {
    const documented = tableAfter(read('docs/cli.md'), '## Commands').map(
      (r) => /^`svc ([a-z][a-z-]*(?: [a-z][a-z-]*)?)/.exec(r[0]!)?.[1],
    );
    expect([...documented].sort()).toEqual(CATALOG.map((c) => c.name).sort());
  });
});

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, -1 for repeats. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of markdown.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6} (.+)$/gm)) {
    const base = m[1]!
      .replace(/`/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

describe('links', () => {
  const files = ['README.md', ...docs, ...(existsSync(join(root, 'ARCHITECTURE.md')) ? ['ARCHITECTURE.md'] : [])];

  it.each(files)('every relative link of %s resolves to a file and heading of the repository', (file) => {
    const text = read(file).replace(/```[\s\S]*?```/g, '');
    const broken: string[] = [];
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!;
      if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const targetFile = path === '' ? file : relative(root, resolve(dirname(join(root, file)), path));
      if (!existsSync(join(root, targetFile))) {
        broken.push(target);
        continue;
      }
      if (anchor !== undefined && targetFile.endsWith('.md') && !anchors(read(targetFile)).has(anchor))
        broken.push(target);
    }
    expect(broken).toEqual([]);
  });
});

describe('the repository is self-contained', () => {
  // Spelt in pieces, so that this file does not contain what it looks for.
  const outside = [
    ['..', 'shared'].join('/'),
    ...['API', 'STYLE', 'STACK'].map((n) => `${n}.md`),
    ['interface', 'spec'].join('-'),
  ];

  it('no file (documents, code, comments, tests, scripts) points at files outside the repository', () => {
    // Applied migrations are left as they are: their checksums are recorded in every database.
    const files = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .filter(
        (f) => f && !f.startsWith('prisma/migrations/') && f !== 'package-lock.json' && existsSync(join(root, f)),
      );
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((f) => outside.filter((o) => read(f).includes(o)).map((o) => `${f}: ${o}`));
    expect(found).toEqual([]);
  });
});

describe('ARCHITECTURE.md: test/ mirrors src/', () => {
  // Folders that test the repository as a whole, or hold no tests: named in ARCHITECTURE.md.
  const WHOLE = ['bench', 'docs', 'fuzz', 'helpers', 'sdk', 'soak'];

  it('every test file sits where the code it proves sits', () => {
    const tests = execFileSync('git', ['ls-files', 'test'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .filter((f) => f.endsWith('.test.ts') && existsSync(join(root, f)));
    const misplaced = tests.filter((f) => {
      const parts = f.split('/').slice(1);
      if (WHOLE.includes(parts[0]!)) return false;
      if (parts.length === 1) {
        // test/<name>.test.ts proves src/<name>.ts (test/demo-after-wipe.test.ts: src/demo.ts).
        const name = parts[0]!.replace(/\.test\.ts$/, '');
        return !readdirSync(join(root, 'src')).some((s) => s.endsWith('.ts') && name.startsWith(s.slice(0, -3)));
      }
      const dir = parts.slice(0, -1).join('/');
      // test/<dir>/ proves src/<dir>/, or (test/server/) the root file src/<dir>.ts.
      return !existsSync(join(root, 'src', dir)) && !existsSync(join(root, 'src', `${dir}.ts`));
    });
    expect(misplaced).toEqual([]);
  });
});
