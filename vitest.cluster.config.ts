import { defineConfig } from 'vitest/config';

/**
 * `npm run test:cluster` (issue #18): the built server (dist/) as two API and two worker processes
 * on one PostgreSQL database and one s3rver bucket. Not part of `npm test` (vitest.config.ts
 * excludes test/cluster/): it needs the build and PostgreSQL, and takes a minute or two.
 */
export default defineConfig({
  test: {
    name: 'cluster',
    environment: 'node',
    include: ['test/cluster/**/*.test.ts'],
    pool: 'forks',
    // The steps share one cluster and run in order.
    fileParallelism: false,
    testTimeout: 90_000,
    hookTimeout: 120_000,
  },
});
