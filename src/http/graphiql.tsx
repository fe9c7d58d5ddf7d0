// GraphiQL at /graphql (development only, src/app.ts), served whole from the installed
// @graphql-yoga/render-graphiql: yoga's default page loads its scripts from a CDN and is blank
// offline. Its script, stylesheet, Monaco's workers and a small start script are served by this
// app under content-hashed paths (cached for good, like the admin assets), so no request leaves
// the host and the page's CSP can allow scripts from 'self' only.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { GraphiQLOptions } from 'graphql-yoga';
import { renderDocument } from '../auth/pages/html.js';
import { packageFile } from '../package-files.js';

const JS = 'text/javascript; charset=utf-8';

interface Asset {
  path: string;
  type: string;
  body: Buffer;
}

function asset(name: string, type: string, body: string | Buffer): Asset {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 12);
  return { path: `/graphiql/assets/${hash}/${name}`, type, body: bytes };
}

/**
 * Monaco (GraphiQL's editor) runs its language services in workers and creates style elements
 * at run time, which 'unsafe-inline' styles must allow; scripts and workers stay 'self' only.
 */
export const GRAPHIQL_CSP =
  "default-src 'none'; script-src 'self'; worker-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

/** The headers of the GraphiQL page (yoga sets only its content type). */
export const GRAPHIQL_PAGE_HEADERS = {
  'content-security-policy': GRAPHIQL_CSP,
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
} as const;

export type GraphiQLRenderer = (options: GraphiQLOptions) => string;

/**
 * What GraphiQL opens with: an example query whose comment says where the key goes, and a
 * Headers tab, open, holding the header to fill in (a newcomer's first query otherwise answers
 * UNAUTHORIZED with no word why).
 */
export const GRAPHIQL_OPTIONS: GraphiQLOptions = {
  title: 'GraphiQL · Booking API',
  defaultQuery: `# Your API key goes in the Headers tab below, replacing svc_sk_test_... in
#   { "Authorization": "Bearer svc_sk_test_..." }
# (npm start prints a sandbox key). Then run the query with the play button or Ctrl-Enter.
# The schema is in the Docs pane; docs/graphql.md explains it.
query Example {
  me {
    name
    mode
    timezone
  }
}
`,
  headers: JSON.stringify({ Authorization: 'Bearer svc_sk_test_...' }, null, 2),
  defaultEditorToolsVisibility: 'headers',
};

/**
 * Registers the asset routes and returns yoga's `renderGraphiQL`. The bundle (9 MB of
 * JavaScript) is loaded only here, so production never holds it in memory.
 */
export async function registerGraphiQL(app: FastifyInstance): Promise<GraphiQLRenderer> {
  const bundle = await import('@graphql-yoga/render-graphiql/graphiql');
  const script = asset('graphiql.js', JS, bundle.js);
  const overrides = readFileSync(packageFile('src', 'http', 'assets', 'graphiql-overrides.css'), 'utf8');
  const style = asset('graphiql.css', 'text/css; charset=utf-8', `${bundle.css}\n${overrides}`);
  const start = asset('graphiql-start.js', JS, readFileSync(packageFile('src', 'http', 'assets', 'graphiql-start.js')));
  const icon = asset(
    'favicon.ico',
    'image/x-icon',
    Buffer.from(bundle.favicon.replace(/^data:[^,]*;base64,/, ''), 'base64'),
  );
  // The labels are Monaco's names for its workers.
  const workers = {
    editorWorkerService: asset('editor.worker.js', JS, bundle.editorWorkerService),
    json: asset('json.worker.js', JS, bundle.jsonWorker),
    graphql: asset('graphql.worker.js', JS, bundle.graphqlWorker),
  };
  for (const a of [script, style, start, icon, ...Object.values(workers)]) {
    app.get(a.path, { schema: { hide: true } }, async (_req, reply) =>
      reply
        .header('content-type', a.type)
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff')
        .send(a.body),
    );
  }
  const workerUrls = Object.fromEntries(Object.entries(workers).map(([label, a]) => [label, a.path]));
  return (options) =>
    renderDocument(
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>{options.title ?? 'GraphiQL'}</title>
          <link rel="icon" href={icon.path} />
          <link rel="stylesheet" href={style.path} />
          <script src={script.path} defer />
          <script src={start.path} defer />
        </head>
        <body id="body" class="no-focus-outline">
          <noscript>GraphiQL needs JavaScript. The endpoint itself answers POST /graphql without it.</noscript>
          <div id="graphiql" data-options={JSON.stringify(options)} data-workers={JSON.stringify(workerUrls)} />
        </body>
      </html>,
    );
}
