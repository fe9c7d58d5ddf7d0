// Keeps the README and docs/ readable as a clone shows them (issue 41 §8): the README's part before
// its reference is short, no table row is too long to read in raw Markdown, and the README says how
// long the test command takes, with the figure docs/performance.md last measured.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const readme = read('README.md');
const docs = readdirSync(join(root, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`);

/** The README's lines before its `## Reference` heading. */
function beforeReference(): string[] {
  const lines = readme.split('\n');
  const at = lines.indexOf('## Reference');
  expect(at, 'README.md has a "## Reference" heading').toBeGreaterThan(0);
  return lines.slice(0, at);
}

/** Table rows (outside fenced code) longer than `max` characters, as "file:line (length)". */
function longRows(file: string, max: number): string[] {
  let fenced = false;
  return read(file)
    .split('\n')
    .flatMap((line, i) => {
      if (line.startsWith('```')) fenced = !fenced;
      return !fenced && /^\s*\|/.test(line) && line.length > max ? [`${file}:${i + 1} (${line.length})`] : [];
    });
}

describe('README.md and docs/ as a newcomer reads them', () => {
  it("the README's part before its reference is at most 120 lines", () => {
    expect(beforeReference().length).toBeLessThanOrEqual(120);
  });

  it.each(['README.md', ...docs])('no table row of %s is over 300 characters', (file) => {
    expect(longRows(file, 300)).toEqual([]);
  });

  it('the README says how long the test command takes, as docs/performance.md last measured it', () => {
    const intro = beforeReference().join('\n');
    const said = intro.match(/npm test\b[^\n]*?about (\d+) minutes/);
    expect(said, 'the line of `npm test` before the reference names its duration').not.toBeNull();
    // The last row of "The test suite's time" holds the latest wall clock, as "21 min 11".
    const perf = read('docs/performance.md');
    const section = perf.slice(perf.indexOf("\n## The test suite's time\n"));
    const runs = [...section.slice(0, section.indexOf('\n## ', 5)).matchAll(/\|\s*(\d+) min (\d+)\s*\|/g)];
    expect(runs.length).toBeGreaterThan(0);
    const [, min, sec] = runs.at(-1)!;
    expect(Number(said![1])).toBe(Math.round(Number(min) + Number(sec) / 60));
  });
});
