// Cursor pagination stays exact while records are inserted between pages, and
// Idempotency-Key replays, refuses reuse with another body, and refuses a key in flight.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountWithKeys } from '../helpers/factories.js';
import type { TestApp } from '../helpers/app.js';
import {
  blankCompany,
  createDomainApp,
  expectError,
  futureHour,
  ok,
  post,
  salon,
  type World,
} from '../helpers/domain.js';

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
});
afterAll(async () => t?.close());

describe('cursor pagination', () => {
  it('walks every record exactly once while others are inserted between pages', async () => {
    const c = await blankCompany(t.dbs, w);
    const initial: string[] = [];
    for (let i = 0; i < 23; i++)
      initial.push((await post(t.app, '/api/v1/customers', c.auth, { name: `C${i}`, email: `c${i}@example.com` }))._id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: { statusCode: number; json(): any } = await t.app.inject({
        method: 'GET',
        url: `/api/v1/customers?limit=5${cursor ? `&cursor=${cursor}` : ''}`,
        headers: c.auth,
      });
      expect(res.statusCode).toBe(200);
      const body: any = res.json();
      expect(body.meta.pagination.limit).toBe(5);
      seen.push(...body.data.map((x: { _id: string }) => x._id));
      cursor = body.meta.pagination.nextCursor;
      expect(body.meta.pagination.hasMore).toBe(cursor !== null);
      // Someone adds two customers between every page.
      await post(t.app, '/api/v1/customers', c.auth, { name: 'late', email: `late${pages}a@example.com` });
      await post(t.app, '/api/v1/customers', c.auth, { name: 'late', email: `late${pages}b@example.com` });
      pages++;
    } while (cursor);
    expect(pages).toBe(5);
    // Newest first; every record that existed when the walk began, once, in order.
    expect(seen).toEqual([...initial].reverse());
  });

  it('default limit 20, and limits outside 1–100 or a forged cursor are 400s', async () => {
    const c = await blankCompany(t.dbs, w);
    const res = ok(await t.app.inject({ method: 'GET', url: '/api/v1/bookings', headers: c.auth }));
    expect(res).toEqual([]);
    const meta = (await t.app.inject({ method: 'GET', url: '/api/v1/bookings', headers: c.auth })).json().meta;
    expect(meta.pagination).toEqual({ limit: 20, hasMore: false, nextCursor: null });
    for (const q of [
      'limit=0',
      'limit=101',
      'limit=1000000000000',
      'limit=-1',
      'limit=abc',
      'limit=2.5',
      'cursor=nope',
      'cursor=' + Buffer.from('c1.zzz').toString('base64url'),
      'foo=bar',
    ]) {
      expectError(
        await t.app.inject({ method: 'GET', url: `/api/v1/customers?${q}`, headers: c.auth }),
        400,
        'VALIDATION_ERROR',
      );
    }
  });
});

describe('Idempotency-Key', () => {
  it('replays the first result with Idempotent-Replayed: true and books once', async () => {
    const c = await blankCompany(t.dbs, w);
    const { service } = await salon(t.app, c.auth);
    const payload = {
      serviceId: service._id,
      startTime: futureHour(3),
      customer: { name: 'Ann', email: 'ann@example.com' },
    };
    const headers = { ...c.auth, 'idempotency-key': 'order-123' };
    const first = await t.app.inject({ method: 'POST', url: '/api/v1/bookings', headers, payload });
    expect(first.statusCode).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // Same body with keys in another order is the same request.
    const reordered = {
      customer: { email: 'ann@example.com', name: 'Ann' },
      startTime: payload.startTime,
      serviceId: service._id,
    };
    const second = await t.app.inject({ method: 'POST', url: '/api/v1/bookings', headers, payload: reordered });
    expect(second.statusCode).toBe(200);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toBe(first.body);
    expect(await t.dbs.test.prisma.booking.count({ where: { companyId: c.company.id } })).toBe(1);
    // An error result is kept as well: the same key replays the 409.
    const k2 = { ...c.auth, 'idempotency-key': 'order-124' };
    const conflict = await t.app.inject({ method: 'POST', url: '/api/v1/bookings', headers: k2, payload });
    expectError(conflict, 409, 'SLOT_UNAVAILABLE');
    const conflictAgain = await t.app.inject({ method: 'POST', url: '/api/v1/bookings', headers: k2, payload });
    expect(conflictAgain.statusCode).toBe(409);
    expect(conflictAgain.headers['idempotent-replayed']).toBe('true');
    expect(conflictAgain.body).toBe(conflict.body);
  });

  it("a replay is the first answer down to its request id: X-Request-Id is the body's meta.requestId", async () => {
    const c = await blankCompany(t.dbs, w);
    const { service } = await salon(t.app, c.auth);
    const payload = {
      serviceId: service._id,
      startTime: futureHour(5),
      customer: { name: 'Rid', email: 'rid@example.com' },
    };
    for (const key of ['rid-1', 'rid-2']) {
      // rid-2 is refused (the slot is taken by rid-1): an error answer is replayed the same way.
      const headers = { ...c.auth, 'idempotency-key': key };
      const first = await t.app.inject({ method: 'POST', url: '/api/v1/bookings', headers, payload });
      const again = await t.app.inject({
        method: 'POST',
        url: '/api/v1/bookings',
        headers: { ...headers, 'x-request-id': 'client-retry-42' },
        payload,
      });
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toBe(first.body);
      expect(again.json().meta.requestId).toBe(first.headers['x-request-id']);
      expect(again.headers['x-request-id']).toBe(again.json().meta.requestId);
    }
  });

  it('the same key with another body is IDEMPOTENCY_KEY_REUSED; other credentials have their own keys', async () => {
    const c = await blankCompany(t.dbs, w);
    const headers = { ...c.auth, 'idempotency-key': 'cust-1' };
    ok(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/customers',
        headers,
        payload: { name: 'A', email: 'a@example.com' },
      }),
    );
    expectError(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/customers',
        headers,
        payload: { name: 'B', email: 'b@example.com' },
      }),
      409,
      'IDEMPOTENCY_KEY_REUSED',
    );
    expectError(
      await t.app.inject({ method: 'POST', url: '/api/v1/employees', headers, payload: { name: 'A' } }),
      409,
      'IDEMPOTENCY_KEY_REUSED',
    );
    expect(await t.dbs.test.prisma.customer.count({ where: { companyId: c.company.id } })).toBe(1);
    const other = await blankCompany(t.dbs, w);
    ok(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/customers',
        headers: { ...other.auth, 'idempotency-key': 'cust-1' },
        payload: { name: 'B', email: 'b@example.com' },
      }),
    );
  });

  it('the same key while the first request runs is IDEMPOTENCY_KEY_IN_USE', async () => {
    const c = await blankCompany(t.dbs, w);
    const payload = { name: 'A', email: 'inflight@example.com' };
    // Ten identical requests at once: exactly one runs; the rest see it in flight or replay it.
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        t.app.inject({
          method: 'POST',
          url: '/api/v1/customers',
          headers: { ...c.auth, 'idempotency-key': 'race-1' },
          payload,
        }),
      ),
    );
    const fresh = results.filter((r) => r.statusCode === 200 && !r.headers['idempotent-replayed']);
    expect(fresh.length).toBe(1);
    for (const r of results) {
      if (r.statusCode === 200) expect(r.json().data._id).toBe(fresh[0]!.json().data._id);
      else expectError(r, 409, 'IDEMPOTENCY_KEY_IN_USE');
    }
    expect(await t.dbs.test.prisma.customer.count({ where: { companyId: c.company.id } })).toBe(1);
    // A record left in flight by a process that died answers IN_USE until it goes stale, then
    // the next retry takes it over and runs (here: the e-mail is taken by then, a CONFLICT).
    await t.dbs.test.prisma.idempotencyRecord.updateMany({
      where: { key: 'race-1' },
      data: { state: 'in_progress', responseBody: undefined },
    });
    const retry = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/customers',
        headers: { ...c.auth, 'idempotency-key': 'race-1' },
        payload,
      });
    expectError(await retry(), 409, 'IDEMPOTENCY_KEY_IN_USE');
    await t.dbs.test.prisma.idempotencyRecord.updateMany({
      where: { key: 'race-1' },
      data: { createdAt: new Date(Date.now() - 10 * 60_000) },
    });
    expectError(await retry(), 409, 'CONFLICT');
  });

  it('keeps the stored response sealed: a webhook secret and token are not in the row, and the replay still has them', async () => {
    const c = await blankCompany(t.dbs, w);
    const url = '/api/v1/webhook-endpoints';
    const payload = { url: 'http://127.0.0.1:9/hook', events: ['*'] };
    const headers = { ...c.auth, 'idempotency-key': 'sealed-create' };
    const first = await t.app.inject({ method: 'POST', url, headers, payload });
    expect(first.statusCode).toBe(200);
    const { secret, token, _id } = first.json().data;
    expect(secret).toMatch(/^whsec_/);
    expect(token).toEqual(expect.any(String));
    // Rotating the secret is a POST with its own key; its answer carries the new secret.
    const rotated = await t.app.inject({
      method: 'POST',
      url: `/api/v1/webhook-endpoints/${_id}/rotate-secret`,
      headers: { ...c.auth, 'idempotency-key': `rotate-${_id}` },
    });
    expect(rotated.statusCode).toBe(200);
    const newSecret = JSON.stringify(rotated.json().data).match(/whsec_[A-Za-z0-9+/=_-]+/)?.[0];
    expect(newSecret).toBeDefined();

    const rows = await t.dbs.test.prisma.idempotencyRecord.findMany({
      where: { key: { in: ['sealed-create', `rotate-${_id}`] } },
    });
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      const stored = JSON.stringify(row.responseBody);
      expect(row.state).toBe('completed');
      for (const s of [secret, token, newSecret!, 'whsec_', _id]) expect(stored).not.toContain(s);
    }
    // The replays are the first answers, byte for byte, secrets included.
    const again = await t.app.inject({ method: 'POST', url, headers, payload });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    const rotatedAgain = await t.app.inject({
      method: 'POST',
      url: `/api/v1/webhook-endpoints/${_id}/rotate-secret`,
      headers: { ...c.auth, 'idempotency-key': `rotate-${_id}` },
    });
    expect(rotatedAgain.headers['idempotent-replayed']).toBe('true');
    expect(rotatedAgain.body).toBe(rotated.body);
  });

  it('refuses a malformed key, and does not record requests refused before they start', async () => {
    const c = await blankCompany(t.dbs, w);
    for (const key of ['', 'x'.repeat(256), 'has space']) {
      expectError(
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/customers',
          headers: { ...c.auth, 'idempotency-key': key },
          payload: { name: 'A', email: 'k@example.com' },
        }),
        400,
        'VALIDATION_ERROR',
      );
    }
    const headers = { ...c.auth, 'idempotency-key': 'fix-and-retry' };
    expectError(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/customers',
        headers,
        payload: { name: 'A', email: 'k@example.com', extra: 1 },
      }),
      400,
      'VALIDATION_ERROR',
    );
    ok(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/customers',
        headers,
        payload: { name: 'A', email: 'k@example.com' },
      }),
    );
  });
});
