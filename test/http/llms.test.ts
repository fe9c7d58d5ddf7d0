// Docs an agent can read (src/http/llms.ts, docs/api.md "Docs for agents"): /llms.txt links
// every page of docs/ by its Markdown, /llms-full.txt holds them all, each page answers at
// /docs/<page>.md, and nothing else does: no file outside the allow-list, whatever the path.
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describePage, PAGE_NAME, readDocs } from '../../src/http/llms.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { expectError } from '../helpers/domain.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DOCS = join(root, 'docs');
const BASE = 'https://book.example.com';
/** The page files of docs/, straight from the directory. */
const pageFiles = (dir: string) =>
  readdirSync(dir)
    .filter((f) => /^[a-z0-9-]+\.md$/.test(f))
    .sort();

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { BASE_URL: BASE } });
});
afterAll(async () => {
  await t?.close();
});

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

/** The `- [title](url): description` lines of an llms.txt. */
const linksOf = (text: string) =>
  [...text.matchAll(/^- \[([^\]]+)\]\(([^)]+)\): (.+)$/gm)].map((m) => ({ title: m[1]!, url: m[2]!, line: m[3]! }));

describe('GET /llms.txt', () => {
  it('is a title, a summary and a link to the Markdown of every docs page, each of which answers', async () => {
    const res = await get('/llms.txt', { host: 'evil.test' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    const lines = res.body.split('\n');
    expect(lines[0]).toBe('# Booking service');
    expect(lines[1]).toBe('');
    expect(lines[2]).toMatch(/^> What the booking service offers/);
    expect(res.body).toContain(`${BASE}/llms-full.txt`);
    const links = linksOf(res.body);
    // One link per page file, absolute from BASE_URL whatever the Host, first the index's order.
    expect(links.map((l) => l.url).sort()).toEqual(pageFiles(DOCS).map((f) => `${BASE}/docs/${f}`));
    expect(links[0]!.url).toBe(`${BASE}/docs/quickstart.md`);
    for (const link of links) {
      const name = link.url.slice(`${BASE}/docs/`.length);
      const markdown = readFileSync(join(DOCS, name), 'utf8');
      expect(markdown.split('\n')[0]).toBe(`# ${link.title}`);
      expect(link.line.length).toBeGreaterThan(10);
      expect(link.line).not.toMatch(/\]\(/);
      const page = await get(new URL(link.url).pathname);
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toBe('text/markdown; charset=utf-8');
      expect(page.body).toBe(markdown);
    }
    const api = links.find((l) => l.url.endsWith('/api.md'))!;
    expect(api.title).toBe('The REST API');
    expect(api.line).toBe(
      'Everything a company does with the booking service is reachable over JSON at `<BASE_URL>/api/v1`.',
    );
  });

  it('without BASE_URL, links the origin it was asked for and lets no shared cache keep it', async () => {
    const other = await createTestApp({ env: { BASE_URL: undefined } });
    try {
      const res = await other.app.inject({ method: 'GET', url: '/llms.txt', headers: { host: 'api.test:8443' } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['vary']).toMatch(/Host/);
      expect(linksOf(res.body).every((l) => l.url.startsWith('http://api.test:8443/docs/'))).toBe(true);
    } finally {
      await other.close();
    }
  });
});

describe('GET /llms-full.txt', () => {
  it("is every page's Markdown, in llms.txt's order", async () => {
    const res = await get('/llms-full.txt');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    const order = linksOf((await get('/llms.txt')).body).map((l) => l.url.split('/').pop()!);
    let at = -1;
    for (const name of order) {
      const markdown = readFileSync(join(DOCS, name), 'utf8').trimEnd();
      const found = res.body.indexOf(markdown);
      expect(found, name).toBeGreaterThan(at);
      at = found;
    }
    expect(order).toHaveLength(pageFiles(DOCS).length);
  });
});

describe('GET /docs/<page>.md', () => {
  it('serves no file outside the pages of docs/: traversal, encoded slashes, unknown names are 404 in the envelope', async () => {
    for (const url of [
      '/docs/nope.md',
      '/docs/README.md',
      '/docs/../package.json',
      '/docs/..%2Fpackage.json',
      '/docs/%2e%2e/package.json',
      '/docs/..%2f..%2fetc%2fpasswd',
      '/docs/quickstart',
      '/docs/api.md%00',
      '/docs/Cli.md',
      '/docs/api.md/',
      '/docs//api.md',
      '/docs/%2E%2E%2Fsrc%2Fconfig.ts',
      '/llms.txt/../package.json',
    ]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).toMatch(/^application\/json/);
      expectError(res, 404, 'NOT_FOUND');
    }
  });

  it("keeps Swagger UI's own /docs routes", async () => {
    const page = await get('/docs');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect((await get('/docs/json')).statusCode).toBe(200);
    expect((await get('/docs/static/swagger-ui.css')).statusCode).toBe(200);
  });
});

describe('readDocs', () => {
  it('links exactly the page files of docs/, so a new page appears without a list to edit', () => {
    const dir = mkdtempSync(join(tmpdir(), 'llms-'));
    try {
      for (const f of readdirSync(DOCS).filter((f) => f.endsWith('.md'))) copyFileSync(join(DOCS, f), join(dir, f));
      writeFileSync(
        join(dir, 'agents.md'),
        '# AI agents\n\nAgents book through the MCP server. More below.\n\n## Tools\n\nThe list.\n',
      );
      writeFileSync(join(dir, 'Not-a-page.md'), '# Shouted\n\nNot served.\n');
      const set = readDocs(dir);
      expect(set.pages.map((p) => p.name).sort()).toEqual(pageFiles(dir));
      expect(set.pages.map((p) => p.name)).toContain('agents.md');
      expect(set.pages.map((p) => p.name)).not.toContain('Not-a-page.md');
      expect(set.pages.find((p) => p.name === 'agents.md')).toMatchObject({
        title: 'AI agents',
        description: 'Agents book through the MCP server.',
      });
      // The real directory: the same rule.
      expect(
        readDocs(DOCS)
          .pages.map((p) => p.name)
          .sort(),
      ).toEqual(pageFiles(DOCS));
      expect(pageFiles(DOCS).every((f) => PAGE_NAME.test(f))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('describes a page by its first paragraph of prose, skipping tables, code and lists, links reduced to text', () => {
    const page = describePage(
      'x.md',
      '# The `x` page\n\n| a | b |\n| - | - |\n\n```sh\nnot this.\n```\n\n- nor this.\n\nSee [api.md](api.md#errors) first.\nThen more. And more.\n',
    );
    expect(page).toMatchObject({ title: 'The `x` page', description: 'See api.md first.' });
    expect(() => describePage('y.md', 'no title\n')).toThrow(/title/);
  });
});
