// The admin area's stylesheet and script, read once and served by the app itself under a
// content-hashed path, so they can be cached for a long time and the CSP can say 'self'.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { packageFile } from '../package-files.js';

function load(name: string, type: string) {
  const body = readFileSync(packageFile('src', 'admin', 'assets', name));
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { body, type, path: `/admin/assets/${hash}/${name}` };
}

const CSS = load('admin.css', 'text/css; charset=utf-8');
const JS = load('admin.js', 'text/javascript; charset=utf-8');

export const ASSET_PATHS = { css: CSS.path, js: JS.path } as const;

export function registerAssets(app: FastifyInstance): void {
  for (const asset of [CSS, JS]) {
    // The plugin is registered under /admin; the route is relative to it.
    app.get(asset.path.slice('/admin'.length), { schema: { hide: true } }, async (_req, reply) =>
      reply
        .header('content-type', asset.type)
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff')
        .send(asset.body),
    );
  }
}
