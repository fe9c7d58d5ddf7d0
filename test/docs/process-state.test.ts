// Keeps ARCHITECTURE.md's "Process state" true to the code: every module-level value that
// outlives a request is allowed by the lint rule only under a name of that table
// (`-- process state: <name>`), and every entry of the table that names a file still has that
// state in it. So a new cache cannot land without its row (key, bound, cross-instance
// invalidation, why it cannot carry one company's data into another's answer).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' ? [] : sources(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

/** The table's rows under "## Process state": name, and the files its second cell names. */
function table(): Map<string, string[]> {
  const text = readFileSync(join(root, 'ARCHITECTURE.md'), 'utf8');
  const start = text.indexOf('\n## Process state\n');
  expect(start).toBeGreaterThan(0);
  const end = text.indexOf('\n## ', start + 1);
  const rows = new Map<string, string[]>();
  for (const line of text.slice(start, end).split('\n')) {
    if (!line.startsWith('| ') || line.startsWith('| name') || line.startsWith('| ---')) continue;
    const cells = line.split('|').map((c) => c.trim());
    rows.set(
      cells[1]!,
      [...cells[2]!.matchAll(/`(src\/[^`]+)`/g)].map((m) => m[1]!),
    );
  }
  return rows;
}

/** Every `process state: <name>` the code declares, with the files that declare it. */
function declared(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const file of sources(join(root, 'src'))) {
    for (const m of readFileSync(file, 'utf8').matchAll(/no-restricted-syntax -- process state: ([^\n]+)/g)) {
      const name = m[1]!.trim();
      if (!out.has(name)) out.set(name, new Set());
      out.get(name)!.add(relative(root, file));
    }
  }
  return out;
}

describe('ARCHITECTURE.md, Process state', () => {
  const rows = table();
  const code = declared();

  it('lists every piece of module state the code declares, in the file the row names', () => {
    expect(code.size).toBeGreaterThan(10);
    for (const [name, files] of code) {
      expect(rows.has(name), `"${name}" (${[...files].join(', ')}) is not a row of the table`).toBe(true);
      for (const file of files) expect(rows.get(name), `row "${name}" does not name ${file}`).toContain(file);
    }
  });

  it('names only files that exist, and no module state the code no longer has', () => {
    for (const [name, files] of rows) {
      expect(files.length, `row "${name}" names no file`).toBeGreaterThan(0);
      for (const file of files) expect(statSync(join(root, file)).isFile(), file).toBe(true);
      // A row the lint rule knows (module state) must still be declared where it says.
      if (code.has(name)) for (const file of code.get(name)!) expect(files).toContain(file);
    }
  });
});
