import { createRequire } from 'node:module';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

const require = createRequire(import.meta.url);
// One graphql module for Pothos, yoga and the tests (two copies fail with graphql's "another module or realm" error).
const graphql = require.resolve('graphql/index.js');

// The core of the REST surface, run a second time on embedded PGlite: the envelope, parsing and
// validation, credentials.
const EMBEDDED_CORE = [
  ...['body-serializer', 'error-envelopes', 'framework-errors', 'selection', 'timestamps', 'utf8'].map(
    (name) => `test/rest/${name}.test.ts`,
  ),
  'test/rest/v1/me.test.ts',
  'test/errors.test.ts',
  'test/auth/last-used.test.ts',
  'test/http/metrics.test.ts',
];

// The core subset (TEST_SUBSET=core): what CI runs on the other supported Node (README, "Node
// versions"), about two minutes of the suite that cross every layer: the REST core above,
// tenant isolation and the model-based soak run, the booking rule and its races, OAuth's token
// endpoints, GraphQL, the in-process queue's timers, the server process itself.
const CORE = [
  ...EMBEDDED_CORE,
  'test/frozen.test.ts',
  'test/schema/availability/tenant-isolation.test.ts',
  'test/schema/availability/refusals.test.ts',
  'test/schema/bookings/concurrency.test.ts',
  'test/soak/*.test.ts',
  'test/auth/oauth/oauth-token-endpoints.test.ts',
  'test/http/graphql.test.ts',
  'test/workers/long-timeout.test.ts',
  'test/server/server-process.test.ts',
];

const embeddedProject: TestProjectInlineConfiguration = {
  extends: true,
  test: { name: 'pglite', include: EMBEDDED_CORE, env: { TEST_EMBEDDED: '1' } },
};

/**
 * With DATABASE_URL (CI), everything runs on PostgreSQL and the embedded core a second time on
 * PGlite; without it, everything runs on PGlite. TEST_SUBSET=core runs only the core subset.
 */
function projects(): TestProjectInlineConfiguration[] {
  const onPostgres = Boolean(process.env.DATABASE_URL);
  if (process.env.TEST_SUBSET === 'core')
    return [{ extends: true, test: { name: onPostgres ? 'core' : 'core-pglite', include: CORE } }];
  return onPostgres
    ? [{ extends: true, test: { name: 'postgres', include: ['test/**/*.test.ts'] } }, embeddedProject]
    : [{ extends: true, test: { name: 'pglite', include: ['test/**/*.test.ts'] } }];
}

export default defineConfig({
  resolve: { alias: { graphql } },
  test: {
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    // One module graph per worker: its files run one after another in one long-lived process, as
    // a server serves one company after another. State that one file leaves in a module shows in
    // the next (ARCHITECTURE.md, Process state), and the suite does not import everything anew
    // for each of its 170 files.
    isolate: false,
    reporters: ['default'],
    projects: projects(),
  },
});
