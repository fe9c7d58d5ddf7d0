import { createRequire } from 'node:module';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

const require = createRequire(import.meta.url);
// One graphql module for Pothos, yoga and the tests (two copies fail with graphql's "another module or realm" error).
const graphql = require.resolve('graphql/index.js');

// With DATABASE_URL (CI), everything runs on PostgreSQL and the core suite runs a second time
// on embedded PGlite; without it, everything runs on PGlite.
const embeddedProject: TestProjectInlineConfiguration = {
  extends: true,
  test: {
    name: 'pglite',
    // The core of the REST surface: the envelope, parsing and validation, credentials.
    include: [
      ...['body-serializer', 'error-envelopes', 'framework-errors', 'selection', 'timestamps', 'utf8'].map(
        (name) => `test/rest/${name}.test.ts`,
      ),
      'test/rest/v1/me.test.ts',
      'test/errors.test.ts',
      'test/auth/last-used.test.ts',
      'test/http/metrics.test.ts',
    ],
    env: { TEST_EMBEDDED: '1' },
  },
};

export default defineConfig({
  resolve: { alias: { graphql } },
  test: {
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
    projects: process.env.DATABASE_URL
      ? [{ extends: true, test: { name: 'postgres', include: ['test/**/*.test.ts'] } }, embeddedProject]
      : [{ extends: true, test: { name: 'pglite', include: ['test/**/*.test.ts'] } }],
  },
});
