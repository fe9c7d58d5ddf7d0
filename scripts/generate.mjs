// Runs `prisma generate` where Prisma's CLI cannot download its native schema engine.
// Generation does not need that engine, but the CLI insists that the binary exists, so point
// it at any executable (Prisma 7's engines cannot be downloaded here). Skips the work when
// the schema has not changed since the last generation. Then generates the SDK's types from the
// OpenAPI document and compiles the SDK into sdk/dist/ (scripts/sdk.mjs; each skipped when its
// inputs have not changed), and compiles the server and the CLI into dist/ (scripts/build.mjs),
// which is fast enough to do every time.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const schema = readFileSync('prisma/schema.prisma');
const pkg = readFileSync('package-lock.json');
const stamp = createHash('sha256')
  .update(schema)
  .update(pkg)
  .update(readFileSync('scripts/rows-generator.mjs'))
  .digest('hex');
const stampFile = 'src/generated/.stamp';
const fresh =
  existsSync(stampFile) &&
  readFileSync(stampFile, 'utf8') === stamp &&
  existsSync('src/generated/prisma/client.ts') &&
  existsSync('src/generated/rows.ts');
if (!fresh) generate();
const sdk = await import('./sdk.mjs');
if (await sdk.generateTypes()) sdk.buildSdk();
await import('./build.mjs');

function generate() {
  execFileSync(process.execPath, ['node_modules/prisma/build/index.js', 'generate'], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      PATH: `${process.cwd()}/node_modules/.bin:${process.env.PATH}`,
      PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? '/bin/true',
      PRISMA_HIDE_UPDATE_MESSAGE: '1',
    },
  });
  writeFileSync(stampFile, stamp);
}
