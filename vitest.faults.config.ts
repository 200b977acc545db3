import { defineConfig } from 'vitest/config';

/**
 * `npm run test:faults` (issue #37): faults injected into the built server (dist/) in a process of its own, under load:
 * a full disk (a tmpfs the suite mounts), PostgreSQL restarting (a cluster of its own, restarted with pg_ctlcluster),
 * an object store that errs, stalls or loses packets (a fault-injecting proxy before s3rver). Prints a table of what
 * each fault did (report.ts). Not part of `npm test`: it needs root (mount, pg_ctlcluster), the build and PostgreSQL.
 */
export default defineConfig({
  test: {
    name: 'faults',
    environment: 'node',
    include: ['test/faults/**/*.test.ts'],
    globalSetup: ['test/faults/report.ts'],
    pool: 'forks',
    // One fault at a time: each changes the machine (a mount, a PostgreSQL restart) or measures recovery times.
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 120_000,
  },
});
