// /metrics (issue 2, item 9): request counts and latency by route pattern and status. The
// labelled series are cached per key (src/http/metrics.ts), so two routes and two statuses
// must still land in series of their own.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { bearer, createAccountWithKeys } from '../helpers/factories.js';

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;

beforeAll(async () => {
  t = await createTestApp();
  w = await createAccountWithKeys(t.dbs);
});
afterAll(async () => {
  await t?.close();
});

function sample(text: string, name: string, labels: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line === undefined ? undefined : Number(line.split(' ').pop());
}

it('counts requests and observes latency per method, route pattern and status', async () => {
  for (let i = 0; i < 3; i++) await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(w.liveKey.key) });
  await t.app.inject({ method: 'GET', url: '/api/v1/me' });
  await t.app.inject({ method: 'GET', url: '/api/v1/no-such-thing', headers: bearer(w.liveKey.key) });

  const res = await t.app.inject({ method: 'GET', url: '/metrics' });
  expect(res.statusCode).toBe(200);
  const text = res.body;
  expect(sample(text, 'http_requests_total', 'method="GET",route="/api/v1/me",status="200"')).toBe(3);
  expect(sample(text, 'http_requests_total', 'method="GET",route="/api/v1/me",status="401"')).toBe(1);
  expect(sample(text, 'http_requests_total', 'method="GET",route="unmatched",status="404"')).toBe(1);
  expect(sample(text, 'http_request_duration_seconds_count', 'method="GET",route="/api/v1/me",status="200"')).toBe(3);
  expect(
    sample(text, 'http_request_duration_seconds_bucket', 'le="+Inf",method="GET",route="/api/v1/me",status="200"'),
  ).toBe(3);
  // No raw URL becomes a label.
  expect(text).not.toContain('no-such-thing');
});
