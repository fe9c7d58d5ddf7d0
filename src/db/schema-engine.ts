// Prisma's schema engine, WebAssembly build, driven through an embedded PGlite: the one way to
// diff schemas on these machines (the native engine cannot be downloaded, and the
// engine's introspection through adapter-pg fails). Used by scripts/migration-diff.ts to write
// migrations and by the drift test to prove migrations and schema.prisma agree.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { applyMigrations, readMigrations } from './migrate.js';
import { pgliteSession } from './sql.js';

interface Engine {
  diff(params: unknown): Promise<{ exitCode: number; stdout: string | null }>;
}

const NO_FILTER = { externalTables: [], externalEnums: [] };

/**
 * The engine reports a Rust panic through this global before it traps (Prisma's CLI sets it);
 * without it the report itself would throw a TypeError instead of the engine's message.
 */
const panics = {
  message: '',
  set_message(message: string) {
    panics.message = message;
  },
};

type EngineModule = { SchemaEngine: { new: (o: unknown, cb: unknown, a: unknown) => Promise<Engine> } };
// eslint-disable-next-line no-restricted-syntax -- process state: schema engine
let engineModule: Promise<EngineModule> | undefined;

/**
 * Once per process: the glue module is an ES module (imported once) that caches views of the
 * wasm memory, so pointing it at a second instance made every later call read garbage.
 */
function loadEngineModule(): Promise<EngineModule> {
  engineModule ??= instantiateEngineModule();
  return engineModule;
}

async function instantiateEngineModule(): Promise<EngineModule> {
  (globalThis as { PRISMA_WASM_PANIC_REGISTRY?: unknown }).PRISMA_WASM_PANIC_REGISTRY ??= panics;
  const require = createRequire(import.meta.url);
  const dir = dirname(require.resolve('@prisma/schema-engine-wasm'));
  // The glue module is both what the wasm imports and the engine's API.
  const glue = (await import(pathToFileURL(join(dir, 'schema_engine_bg.js')).href)) as WebAssembly.ModuleImports;
  const bg = glue as unknown as EngineModule & { __wbg_set_wasm(exports: WebAssembly.Exports): void };
  const module = await WebAssembly.compile(readFileSync(join(dir, 'schema_engine_bg.wasm')));
  const instance = await WebAssembly.instantiate(module, { './schema_engine_bg.js': glue });
  bg.__wbg_set_wasm(instance.exports);
  (instance.exports as { __wbindgen_start?: () => void }).__wbindgen_start?.();
  return bg;
}

/**
 * The SQL of a diff run with `exitCode: true`, as `prisma migrate diff --exit-code` defines it:
 * 0 no difference, 2 a difference; anything else is a failure and must not read as "no drift".
 */
export function diffScript(result: { exitCode: number; stdout: string | null }): string {
  if (result.exitCode === 0) return '';
  if (result.exitCode === 2 && result.stdout) return result.stdout;
  throw new Error(`the schema engine's diff failed (exit code ${result.exitCode}): ${result.stdout ?? 'no output'}`);
}

/**
 * Applies every migration to a fresh embedded database and returns the SQL that would bring
 * it to `schema` (empty when they agree). Hand-written rules Prisma cannot express
 * (exclusion and CHECK constraints) are invisible to the engine and so never count as drift.
 */
export async function diffMigrationsToSchema(schemaPath = 'prisma/schema.prisma'): Promise<string> {
  const schema = readFileSync(schemaPath, 'utf8');
  const db = await PGlite.create({ extensions: { btree_gist } });
  try {
    await applyMigrations(pgliteSession(db), { schema: 'public', migrations: await readMigrations() });
    const bg = await loadEngineModule();
    const files = [{ path: 'schema.prisma', content: schema }];
    const engine = await bg.SchemaEngine.new(
      { datamodels: [['schema.prisma', schema]] },
      () => undefined,
      bindMigrationAwareSqlAdapterFactory(new PrismaPGlite(db)),
    );
    const result = await engine.diff({
      from: { tag: 'schemaDatasource', files, configDir: process.cwd() },
      to: { tag: 'schemaDatamodel', files },
      script: true,
      exitCode: true,
      filters: NO_FILTER,
    });
    return diffScript(result);
  } catch (err) {
    if (panics.message) throw new Error(`the schema engine panicked: ${panics.message}`, { cause: err });
    throw err;
  } finally {
    panics.message = '';
    await db.close();
  }
}
