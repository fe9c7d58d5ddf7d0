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
    include: ['test/core/**/*.test.ts'],
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
