import { defineConfig } from 'vitest/config';

/**
 * `npm run test:security` (issue #28): the denial-of-service cases of docs/SECURITY.md replayed against
 * the built server (dist/) in a process of its own, measured from outside: its open sockets and CPU
 * seconds (/proc) and the bytes its data dir takes on disk. Not part of `npm test` (vitest.config.ts
 * excludes test/security/): it needs the build and Linux, and its timings need the machine to itself.
 */
export default defineConfig({
  test: {
    name: 'security',
    environment: 'node',
    include: ['test/security/**/*.test.ts'],
    pool: 'forks',
    // One file at a time: each starts its own server, and CPU and disk are measured per scenario.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 90_000,
  },
});
