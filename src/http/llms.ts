// Docs an agent can read (docs/api.md, "Docs for agents"): BASE_URL/llms.txt (the llms.txt
// convention: a title, a summary, then a link to each page's Markdown with one line on what it
// says), BASE_URL/llms-full.txt (every page's Markdown, in the same order) and each page of
// docs/ at /docs/<page>.md. The pages are read once, when the app is built, from the docs/
// the package ships; each becomes a route of its own, so a request names a route, never a
// file: `..`, encoded slashes and unknown names find no route and get the envelope's 404.
// What is kept is frozen strings, the same for every request and every company.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { deepFreeze } from '../frozen.js';
import { packageFile } from '../package-files.js';

/** The names a page may have; anything else in docs/ (README.md, folders) is not served. */
export const PAGE_NAME = /^[a-z0-9-]+\.md$/;

export interface DocsPage {
  /** The file's name in docs/, also its path under /docs/. */
  readonly name: string;
  /** The text of the page's first `# ` heading. */
  readonly title: string;
  /** The first sentence of the page's first paragraph, links reduced to their text. */
  readonly description: string;
  readonly markdown: string;
}

export interface DocsSet {
  /** The summary of llms.txt: docs/README.md's first paragraph. */
  readonly summary: string;
  /** In the order of docs/README.md's links, then the pages it does not link, by name. */
  readonly pages: readonly DocsPage[];
}

const TITLE = 'Booking service';

/** The paragraphs of a Markdown text outside code fences: runs of non-blank lines. */
function paragraphs(markdown: string): string[][] {
  const out: string[][] = [];
  let current: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      if (current.length) out.push(current);
      current = [];
      continue;
    }
    if (fenced) continue;
    if (line.trim() === '') {
      if (current.length) out.push(current);
      current = [];
    } else current.push(line.trim());
  }
  if (current.length) out.push(current);
  return out;
}

/** A paragraph of prose: not a heading, table, list, quote, HTML or front matter. */
const isProse = (p: string[]) => !/^(#|\||[-*+] |\d+\. |>|<|---)/.test(p[0]!);

const plain = (text: string) =>
  text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();

/** The first sentence of a text: up to the first `.`, `!` or `?` followed by a space. */
const firstSentence = (text: string) => /^.*?[.!?](?=\s|$)/.exec(text)?.[0] ?? text;

export function describePage(name: string, markdown: string): DocsPage {
  const title = /^# +(.+?)\s*#*\s*$/m.exec(markdown)?.[1];
  if (!title) throw new Error(`docs/${name} has no "# " title`);
  const first = paragraphs(markdown).find(isProse);
  if (!first) throw new Error(`docs/${name} has no paragraph to describe it`);
  return { name, title: plain(title), description: firstSentence(plain(first.join(' '))), markdown };
}

/** Reads docs/: its README's summary and every page whose name PAGE_NAME allows. */
export function readDocs(dir: string): DocsSet {
  const index = readFileSync(join(dir, 'README.md'), 'utf8');
  const summary = paragraphs(index).find(isProse);
  if (!summary) throw new Error(`${dir}/README.md has no summary paragraph`);
  const names = readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && PAGE_NAME.test(e.name))
    .map((e) => e.name)
    .sort();
  const linked = [...index.matchAll(/\]\(([a-z0-9-]+\.md)\)/g)].map((m) => m[1]!);
  const order = [...new Set([...linked.filter((n) => names.includes(n)), ...names])];
  return deepFreeze({
    summary: plain(summary.join(' ')),
    pages: order.map((name) => describePage(name, readFileSync(join(dir, name), 'utf8'))),
  });
}

/** llms.txt for the origin the links start with. */
export function llmsTxt(docs: DocsSet, origin: string): string {
  const base = origin.replace(/\/+$/, '');
  return [
    `# ${TITLE}`,
    '',
    `> ${docs.summary}`,
    '',
    `Each link is the page's Markdown; ${base}/llms-full.txt is all of them in one file. The REST API's ` +
      `OpenAPI 3.1 document is ${base}/openapi.json.`,
    '',
    '## Docs',
    '',
    ...docs.pages.map((p) => `- [${p.title}](${base}/docs/${p.name}): ${p.description}`),
    '',
  ].join('\n');
}

/** llms-full.txt: every page's Markdown, in llms.txt's order. */
export const llmsFullTxt = (docs: DocsSet): string => docs.pages.map((p) => p.markdown.trimEnd() + '\n').join('\n');

export function registerLlms(app: FastifyInstance, config: Pick<Config, 'BASE_URL'>): void {
  const docs = readDocs(packageFile('docs'));
  const full = llmsFullTxt(docs);
  // With BASE_URL the links are fixed; without it, each answer's links are the origin it was
  // asked for, and no shared cache may keep it (as /openapi.json, src/http/docs.ts).
  const fixed = config.BASE_URL === undefined ? undefined : llmsTxt(docs, config.BASE_URL);
  const index = (req: FastifyRequest, reply: FastifyReply) => {
    if (fixed !== undefined) return fixed;
    reply.header('cache-control', 'no-store').header('vary', 'Host, X-Forwarded-Host, X-Forwarded-Proto');
    return llmsTxt(docs, `${req.protocol}://${req.host}`);
  };
  const text = 'text/plain; charset=utf-8';
  app.get('/llms.txt', { schema: { hide: true } }, async (req, reply) => reply.type(text).send(index(req, reply)));
  app.get('/llms-full.txt', { schema: { hide: true } }, async (_req, reply) => reply.type(text).send(full));
  for (const page of docs.pages) {
    app.get(`/docs/${page.name}`, { schema: { hide: true } }, async (_req, reply) =>
      reply.type('text/markdown; charset=utf-8').send(page.markdown),
    );
  }
}
