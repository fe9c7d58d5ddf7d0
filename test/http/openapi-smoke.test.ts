// The domain routes appear in the generated OpenAPI document (docs/api.md).
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { createDomainApp } from '../helpers/domain.js';

let t: TestApp;
beforeAll(async () => {
  t = await createDomainApp();
});
afterAll(async () => t?.close());

it('lists every booking-domain route', async () => {
  const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
  expect(res.statusCode).toBe(200);
  const paths = Object.keys(res.json().paths);
  for (const p of [
    '/api/v1/employees',
    '/api/v1/employees/{id}/time-off/{timeOffId}',
    '/api/v1/services/{id}',
    '/api/v1/classes/{id}/cancel',
    '/api/v1/customers',
    '/api/v1/availability',
    '/api/v1/bookings/{id}/no-show',
    '/api/v1/events/{id}',
  ]) {
    expect(paths).toContain(p);
  }
});
