// BASE_URL/calendar/<token>.ics (docs/calendars.md): the secret-URL iCalendar feeds Google and
// Apple Calendar subscribe to. An encapsulated plugin registered by src/app.ts at /calendar.
// No credential: the token in the path is one, so every answer is no-store, no-referrer and
// noindex, and anything that opens no feed (malformed, rotated, the other mode, never issued)
// is the same plain 404. ETag / If-None-Match spare a client the body when nothing changed.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { openCalendarFeed } from '../schema/calendars/index.js';
import type { Services } from '../services.js';

function secretUrlHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('x-robots-tag', 'noindex, nofollow')
    .header('x-content-type-options', 'nosniff');
}

export default async function calendarFeeds(app: FastifyInstance, opts: { services: Services }): Promise<void> {
  const { services } = opts;
  // A wildcard, not a parameter: a parameter longer than Fastify's maxParamLength would miss
  // this route and get the API's 404, without the headers a secret URL's answer needs.
  app.get<{ Params: { '*': string } }>('/*', { schema: { hide: true } }, async (req, reply) => {
    secretUrlHeaders(reply);
    const file = req.params['*'];
    const feed = file.endsWith('.ics')
      ? await openCalendarFeed(services.dbs, services.config, file.slice(0, -4))
      : null;
    if (!feed) return reply.code(404).type('text/plain; charset=utf-8').send('No such calendar feed.\n');
    reply.header('etag', feed.etag);
    const given = req.headers['if-none-match'];
    if (given && given.split(',').some((t) => t.trim().replace(/^W\//, '') === feed.etag))
      return reply.code(304).send();
    return reply.type('text/calendar; charset=utf-8').send(feed.ics);
  });
}
