// Keeps ARCHITECTURE.md's map and docs/performance.md's figures true to the code: every subject
// folder of src/schema is named in the map's section on the domain, every section of
// docs/performance.md a comment in src names exists, and measured figures stay in that file,
// not in code comments, where nothing re-measures them.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' ? [] : sources(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

/** The text of a Markdown section: from its heading to the next heading of its level or above. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`no heading ${heading}`);
  const level = /^#+/.exec(heading)![0].length;
  const rest = markdown.slice(start + heading.length + 2);
  const next = new RegExp(`\\n#{1,${level}} `).exec(rest);
  return next ? rest.slice(0, next.index) : rest;
}

/** A file's comments, each comment's lines joined into one line of text. */
function comments(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\/\*[\s\S]*?\*\/|(?:^[ \t]*\/\/.*\n?)+|\/\/.*$/gm)) {
    out.push(
      m[0]
        .replace(/^\s*(\/\*+|\*\/|\*|\/\/)/gm, ' ')
        .replace(/\*\/\s*$/, '')
        .replace(/\s+/g, ' ')
        .trim(),
    );
  }
  return out;
}

// A time in µs, a share of CPU, a speed-up: what a profile or a benchmark measured.
const figure =
  /\d[\d.,]* ?µs\b|\d+(?:\.\d+)? ?% of (?:its|the|a|the server's|the request's) CPU|\d[\d.]*x (?:faster|slower)|\d+(?:\.\d+)? ms of (?:the request's )?CPU|\d+(?:\.\d+)? times (?:faster|slower)|\breq\/s\b/;

describe('ARCHITECTURE.md', () => {
  it('names every subject folder of src/schema in its section on the domain', () => {
    const text = section(read('ARCHITECTURE.md'), '### `src/schema` — the domain');
    const named = new Set([...text.matchAll(/`([a-z0-9-]+)\/`/g)].map((m) => m[1]!));
    const folders = readdirSync(join(root, 'src/schema')).filter((name) =>
      statSync(join(root, 'src/schema', name)).isDirectory(),
    );
    expect(folders.length).toBeGreaterThan(20);
    expect(folders.filter((f) => !named.has(f))).toEqual([]);
    // And names no folder that is gone.
    expect([...named].filter((n) => !folders.includes(n) && n !== 'sample-data')).toEqual([]);
  });

  it('gives every subject folder of src/schema its level in .dependency-cruiser.cjs', () => {
    // The rule subjects-do-not-loop: one per level, from the level's subjects (ARCHITECTURE.md).
    const config = read('.dependency-cruiser.cjs');
    const levels = /const SUBJECT_LEVELS = \[([\s\S]*?)\n\];/.exec(config)![1]!;
    const listed = [...levels.matchAll(/'([a-z0-9-]+)'/g)].map((m) => m[1]!);
    const folders = readdirSync(join(root, 'src/schema')).filter((name) =>
      statSync(join(root, 'src/schema', name)).isDirectory(),
    );
    expect(folders.filter((f) => !listed.includes(f))).toEqual([]);
    expect(listed.filter((n) => !folders.includes(n))).toEqual([]);
    expect(new Set(listed).size).toBe(listed.length);
  });
});

describe('docs/performance.md', () => {
  const headings = new Set([...read('docs/performance.md').matchAll(/^#{2,4} (.+)$/gm)].map((m) => m[1]!.trim()));
  const files = sources(join(root, 'src')).map((path) => ({
    path: relative(root, path),
    comments: comments(readFileSync(path, 'utf8')),
  }));

  it('has every section a comment in src names', () => {
    const wrong: string[] = [];
    let links = 0;
    for (const { path, comments: list } of files) {
      for (const c of list) {
        for (const m of c.matchAll(/docs\/performance\.md(, "([^"]+)")?/g)) {
          links++;
          if (m[2] === undefined) wrong.push(`${path}: "${c.slice(m.index, m.index + 60)}" names no section`);
          else if (!headings.has(m[2])) wrong.push(`${path}: no section "${m[2]}"`);
        }
      }
    }
    expect(links).toBeGreaterThan(10);
    expect(wrong).toEqual([]);
  });

  it('holds the measured figures: no comment in src carries one of its own', () => {
    const found: string[] = [];
    for (const { path, comments: list } of files) {
      for (const c of list) {
        const m = figure.exec(c);
        if (m) found.push(`${path}: …${c.slice(Math.max(0, m.index - 40), m.index + 30)}…`);
      }
    }
    expect(found).toEqual([]);
  });

  it('the figure rule sees the figures that were moved', () => {
    // The comments this file's check moved out, as they were: the scan must find each.
    const moved = [
      "// Each text's name is hashed once: a booking sends a dozen statements, and their SHA-1s cost\n// 2% of its CPU.\nconst a = 1;\n",
      "/**\n * about 0.25 ms of CPU a statement over the driver's: on POST /bookings, 1.4 ms of the\n * request's CPU for BEGIN\n */\n",
      '  // One clock read for both (a Date.now() is ~0.1 µs here).\n',
      '// parsing; execute() measured 1.7x faster than going through yoga\n',
    ];
    for (const text of moved) {
      const list = comments(text);
      expect(list).toHaveLength(1);
      expect(figure.test(list[0]!)).toBe(true);
    }
    expect(figure.test('a month of slots through GraphQL (see docs/performance.md, "Availability bodies")')).toBe(
      false,
    );
  });
});
