// The SDK drifts from the document in no way its typecheck would not see: the SDK's sources
// are compiled (tsc -p, as the build does) against types generated afresh from the document
// the app serves now, and fail to compile against a document with an operation the SDK has no
// method for.
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationsModule, typesFor } from '../../scripts/sdk.mjs';
import { OPERATIONS, type KnownErrorCode, type WebhookEvent } from '../../sdk/src/index.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { ROOT } from '../helpers/server-process.js';

const run = promisify(execFile);
let t: TestApp;
let doc: { paths: Record<string, Record<string, { operationId?: string }>> };
const dirs: string[] = [];

beforeAll(async () => {
  t = await createTestApp();
  doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
});
afterAll(async () => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  await t?.close();
});

/** Compiles the SDK's sources with types generated from `document`: tsc's exit code and output. */
async function typecheckAgainst(document: unknown): Promise<{ code: number; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'sdk-drift-'));
  dirs.push(dir);
  cpSync(join(ROOT, 'sdk/src'), join(dir, 'src'), {
    recursive: true,
    filter: (src) => !src.includes(`${join('src', 'generated')}`),
  });
  cpSync(join(ROOT, 'sdk/src/generated'), join(dir, 'src/generated'), { recursive: true });
  writeFileSync(join(dir, 'src/generated/openapi.ts'), await typesFor(document));
  writeFileSync(join(dir, 'src/generated/operations.ts'), operationsModule(document));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: join(ROOT, 'sdk/tsconfig.json'),
      compilerOptions: { noEmit: true, rootDir: 'src' },
      include: ['src'],
    }),
  );
  try {
    const { stdout } = await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir]);
    return { code: 0, output: stdout };
  } catch (e) {
    const err = e as { code: number; stdout: string };
    return { code: err.code, output: err.stdout };
  }
}

describe('the SDK and the document', () => {
  it('compiles against types generated from the document the app serves now, and with one more operation does not', async () => {
    const extra = structuredClone(doc);
    extra.paths['/api/v1/widgets'] = {
      get: {
        operationId: 'listWidgets',
        responses: { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } } },
      } as { operationId: string },
    };
    const [now, drifted] = await Promise.all([typecheckAgainst(doc), typecheckAgainst(extra)]);
    expect(now.output).toBe('');
    expect(now.code).toBe(0);
    expect(drifted.code).not.toBe(0);
    expect(drifted.output).toContain('listWidgets');
  }, 60_000);

  it('types the error codes and the webhook events the document lists (checked by tsc)', () => {
    const code: KnownErrorCode = 'SLOT_UNAVAILABLE';
    // @ts-expect-error a code no operation lists
    const unknownCode: KnownErrorCode = 'NO_SUCH_CODE';
    const type: WebhookEvent['event'] = 'booking.created';
    // @ts-expect-error an event the webhooks section does not list
    const unknownType: WebhookEvent['event'] = 'booking.nothing';
    expect([code, unknownCode, type, unknownType]).toHaveLength(4);
  });

  it('was built from the same operations (npm run generate is fresh)', () => {
    const served = Object.values(doc.paths)
      .flatMap((item) => Object.values(item).map((op) => op.operationId))
      .filter((id): id is string => typeof id === 'string')
      .sort();
    expect(Object.keys(OPERATIONS).sort()).toEqual(served);
  });
});
