// The top-level events list as a Relay connection (docs/graphql.md, Lists): newest first by
// default, paged with first/after and last/before on its cursors; with afterPosition, the events
// dispatched after that position, oldest first, and the page's endCursor goes on in that order.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startWorkers, type Workers } from '../../../src/workers/runtime.js';
import type { TestApp } from '../../helpers/app.js';
import { blankCompany, createDomainApp, post, type World } from '../../helpers/domain.js';
import { createAccountWithKeys } from '../../helpers/factories.js';

let t: TestApp;
let w: World;
let workers: Workers;
beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
  workers = await startWorkers(t.services, { consume: false });
});
afterAll(async () => {
  await workers?.stop();
  await t?.close();
});

const PAGE = `query($first: Int, $after: String, $last: Int, $afterPosition: EventPosition) {
  events(first: $first, after: $after, last: $last, afterPosition: $afterPosition, type: "customer.created") {
    totalCount
    edges { cursor node { _id position data } }
    pageInfo { hasNextPage endCursor }
  }
}`;

async function page(auth: Record<string, string>, variables: Record<string, unknown>) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/graphql',
    headers: auth,
    payload: { query: PAGE, variables },
  });
  return res.json();
}
const names = (body: any) => body.data.events.edges.map((e: any) => e.node.data.name);

it('pages newest first by cursor, and oldest first after a position', async () => {
  const c = await blankCompany(t.dbs, w);
  for (const name of ['Ada', 'Bo', 'Cy'])
    await post(t.app, '/api/v1/customers', c.auth, { name, email: `${name}@example.com` });
  await workers.idle();

  const first = await page(c.auth, { first: 2 });
  expect(names(first)).toEqual(['Cy', 'Bo']);
  expect(first.data.events.totalCount).toBe(3);
  expect(first.data.events.pageInfo.hasNextPage).toBe(true);
  const second = await page(c.auth, { first: 2, after: first.data.events.pageInfo.endCursor });
  expect(names(second)).toEqual(['Ada']);
  expect(second.data.events.pageInfo.hasNextPage).toBe(false);

  const ada = second.data.events.edges[0].node.position as number;
  const resumed = await page(c.auth, { first: 1, afterPosition: ada });
  expect(names(resumed)).toEqual(['Bo']);
  expect(resumed.data.events.totalCount).toBe(2);
  const next = await page(c.auth, { first: 1, after: resumed.data.events.pageInfo.endCursor });
  expect(names(next)).toEqual(['Cy']);
  expect(next.data.events.pageInfo.hasNextPage).toBe(false);

  const backward = await page(c.auth, { last: 1, afterPosition: ada });
  expect(backward.errors[0].extensions).toMatchObject({ code: 'VALIDATION_ERROR' });
  expect(backward.errors[0].extensions.details).toEqual([
    { path: 'last', message: 'cannot page backward in position order' },
  ]);
});
