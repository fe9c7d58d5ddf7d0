// The site root (GET /): a small HTML page linking the admin area, the API reference and
// GraphQL, instead of the API's JSON 404; no script, nothing loaded from elsewhere, a strict
// CSP. It is driven in Chromium by test/http/graphiql-chromium.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_SECRET_KEY, type TestApp } from '../helpers/app.js';

let t: TestApp & { db: Awaited<ReturnType<typeof createTestApp>>['db'] };
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const links = (html: string) => [...html.matchAll(/<a href="([^"]+)">/g)].map((m) => m[1]);

describe('GET /', () => {
  it('is a page linking the admin area, the API reference and GraphQL', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(
      "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.body).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(res.body).toContain('<title>Booking API</title>');
    expect(links(res.body)).toEqual(['/admin', '/docs', '/openapi.json', '/graphql']);
    // Nothing from elsewhere, no script.
    expect(res.body).not.toMatch(/<script|https?:\/\/|src=/i);
    const head = await t.app.inject({ method: 'HEAD', url: '/' });
    expect(head.statusCode).toBe(200);
  });

  it('names GraphiQL where it is served (development) and the endpoint elsewhere', async () => {
    const dev = await createTestApp({ db: t.db, env: { NODE_ENV: 'development' } });
    const prod = await createTestApp({ db: t.db, env: { NODE_ENV: 'production', SECRET_KEY: TEST_SECRET_KEY } });
    try {
      expect((await dev.app.inject({ method: 'GET', url: '/' })).body).toContain('<a href="/graphql">GraphiQL</a>');
      const res = await prod.app.inject({ method: 'GET', url: '/', remoteAddress: '127.0.0.1' });
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('<a href="/graphql"><code>/graphql</code></a>');
      expect(res.body).not.toContain('GraphiQL');
    } finally {
      await dev.close();
      await prod.close();
    }
  });
});
