// The site root: a small page that says what this server is and links its three faces for
// people (the admin area, the API reference, GraphQL), instead of the API's JSON 404. Plain
// HTML with no script and no external asset, in the shell of the sign-in pages.
import type { FastifyInstance } from 'fastify';
import { Page, renderDocument, sendPage } from '../auth/pages/html.js';

export function homePage(opts: { graphiql: boolean }): string {
  return renderDocument(
    <Page title="Booking API">
      <h1>Booking API</h1>
      <p>Appointment bookings for salons, clinics and gyms, over REST and GraphQL.</p>
      <ul>
        <li>
          <a href="/admin">Admin area</a>: companies, API keys, OAuth apps, webhooks and the sandbox.
        </li>
        <li>
          <a href="/docs">API reference</a>: every <code>/api/v1</code> operation, also as{' '}
          <a href="/openapi.json">OpenAPI</a>.
        </li>
        <li>
          {opts.graphiql ? (
            <>
              <a href="/graphql">GraphiQL</a>: run GraphQL queries in the browser (development only).
            </>
          ) : (
            <>
              <a href="/graphql">
                <code>/graphql</code>
              </a>
              : the GraphQL endpoint, with the same keys and tokens as the REST API.
            </>
          )}
        </li>
      </ul>
    </Page>,
  );
}

export function registerHome(app: FastifyInstance, opts: { graphiql: boolean }): void {
  const html = homePage(opts);
  app.get('/', { schema: { hide: true } }, async (_req, reply) => sendPage(reply, 200, html));
}
