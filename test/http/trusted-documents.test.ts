// Trusted documents at /graphql (docs/graphql.md, "Trusted documents"): a document of the
// manifest runs by its SHA-256 or its documentId; GRAPHQL_TRUSTED_DOCUMENTS_ONLY refuses any
// other; a bad manifest stops start-up; REST, which runs its operations in process, is
// unaffected.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { loadTrustedDocuments } from '../../src/http/trusted-documents.js';
import { schema } from '../../src/schema/index.js';
import { createServices } from '../../src/services.js';
import { createTestApp, testConfig, type TestApp } from '../helpers/app.js';
import { createTestDatabases, type TestDatabases } from '../helpers/db.js';
import { bearer, createAccountWithKeys } from '../helpers/factories.js';

const ME = 'query Me { me { name timezone } }';
const ME_HASH = createHash('sha256').update(ME).digest('hex');
const dir = mkdtempSync(join(tmpdir(), 'trusted-'));
const manifest = (name: string, content: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
};
const MANIFEST = manifest('ok.json', { [ME_HASH]: ME, 'dashboard-me-v1': ME });

let db: TestDatabases;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
const apps: TestApp[] = [];
beforeAll(async () => {
  db = await createTestDatabases();
  const first = await createTestApp({ db });
  apps.push(first);
  w = await createAccountWithKeys(first.dbs);
});
afterAll(async () => {
  for (const a of apps) await a.close();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

async function app(env: Record<string, string>) {
  const t = await createTestApp({ db, env });
  apps.push(t);
  return t;
}
const gql = (t: TestApp, payload: object) =>
  t.app.inject({ method: 'POST', url: '/graphql', headers: bearer(w.testKey.key), payload });
const expected = () => ({ data: { me: { name: w.test.name, timezone: w.test.timezone } } });

describe('GRAPHQL_TRUSTED_DOCUMENTS_ONLY', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await app({ GRAPHQL_TRUSTED_DOCUMENTS: MANIFEST, GRAPHQL_TRUSTED_DOCUMENTS_ONLY: 'true' });
  });

  it('runs a trusted document by its SHA-256 (extensions.persistedQuery)', async () => {
    const res = await gql(t, { extensions: { persistedQuery: { version: 1, sha256Hash: ME_HASH } } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(expected());
  });

  it('runs a trusted document by its documentId, with variables and operationName', async () => {
    const res = await gql(t, { documentId: 'dashboard-me-v1', operationName: 'Me', variables: {} });
    expect(res.json()).toEqual(expected());
  });

  it('refuses any other document, even one of the manifest sent as text', async () => {
    for (const query of [ME, '{ me { name } }']) {
      const res = await gql(t, { query });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0].extensions.code).toBe('PERSISTED_QUERY_REQUIRED');
    }
  });

  it('refuses an id the manifest lacks, and a request with no id at all', async () => {
    const unknown = await gql(t, { documentId: 'nope' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    const none = await gql(t, { variables: {} });
    expect(none.statusCode).toBe(400);
    expect(none.json().errors[0].extensions.code).toBe('PERSISTED_QUERY_REQUIRED');
  });

  it('leaves REST alone: its routes run their own operations in process', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(w.testKey.key) });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.name).toBe(w.test.name);
  });
});

describe('GRAPHQL_TRUSTED_DOCUMENTS without _ONLY', () => {
  it('runs trusted documents by id and any other document as before', async () => {
    const t = await app({ GRAPHQL_TRUSTED_DOCUMENTS: MANIFEST });
    expect((await gql(t, { extensions: { persistedQuery: { version: 1, sha256Hash: ME_HASH } } })).json()).toEqual(
      expected(),
    );
    expect((await gql(t, { query: ME })).json()).toEqual(expected());
  });

  it('is off by default: a documentId is an unexpected parameter', async () => {
    const res = await gql(apps[0]!, { documentId: 'dashboard-me-v1' });
    expect(res.statusCode).toBe(400);
  });
});

describe('a bad manifest stops start-up', () => {
  const STALE = manifest('stale.json', { old: '{ me { gone } }' });
  it.each([
    ['not JSON', manifest('bad.json', '{ nope'), 'not a readable JSON file'],
    ['a list', manifest('list.json', [ME]), 'must be a JSON object'],
    ['a document that is not a string', manifest('num.json', { a: 1 }), 'a: the document must be a string'],
    ['a hash of another document', manifest('hash.json', { [ME_HASH]: '{ me { name } }' }), 'is not the SHA-256'],
    ['a field the schema lacks', STALE, 'old: Cannot query field "gone"'],
    ['a syntax error', manifest('syntax.json', { x: '{ me {' }), 'x: Syntax Error'],
  ])('%s', (_name, path, message) => {
    expect(() => loadTrustedDocuments(path, schema)).toThrow(message);
  });

  it('refuses to build the app', async () => {
    const services = await createServices(testConfig({ DATABASE_URL: db.url, GRAPHQL_TRUSTED_DOCUMENTS: STALE }), {
      dbs: db.dbs,
    });
    try {
      await expect(buildApp(services)).rejects.toThrow(`GRAPHQL_TRUSTED_DOCUMENTS (${STALE}): old: Cannot query field`);
    } finally {
      await services.close();
    }
  });

  it('and the configuration names a missing file, or _ONLY without a manifest', () => {
    expect(() => loadConfig({ GRAPHQL_TRUSTED_DOCUMENTS: join(dir, 'missing.json') })).toThrow(
      'GRAPHQL_TRUSTED_DOCUMENTS: must be a readable JSON file',
    );
    expect(() => loadConfig({ GRAPHQL_TRUSTED_DOCUMENTS_ONLY: 'true' })).toThrow(
      'GRAPHQL_TRUSTED_DOCUMENTS_ONLY: needs GRAPHQL_TRUSTED_DOCUMENTS',
    );
  });
});
