import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import type { AppConfig } from '../../src/config.js';
import type { DatabaseHandle } from '../../src/db/database.js';
import type { DialectName } from '../../src/db/dialects/types.js';
import { loadPlansFile } from '../../src/payments/plans.js';
import { OSM_ATTRIBUTION, OSM_TILE_URL } from '../../src/domain/map-tiles.js';
import { openTestDatabase, tempDir } from './databases.js';

/** The plans file shipped with the project (config/plans.json): free, team and business. */
export const SHIPPED_PLANS = loadPlansFile(new URL('../../config/plans.json', import.meta.url).pathname);

export function testConfig(overrides: Partial<AppConfig> = {}): AppConfig {
  const dataDir = tempDir('dam-data-');
  const config: AppConfig = {
    env: 'test',
    port: 0,
    host: '127.0.0.1',
    dataDir,
    databaseUrl: 'sqlite::memory:',
    database: { connectTimeoutMs: 5000, statementTimeoutMs: 30_000 },
    jwtSecret: 'test-secret-test-secret-test-secret-0123456789',
    jwtSecretPrevious: [],
    role: 'all',
    redisUrl: undefined,
    // Off: test machines' disks may be nearly full; test/readiness.test.ts sets one.
    readyMinFreeBytes: 0,
    metricsToken: undefined,
    sessionTtl: 3600,
    allowRegistration: true,
    logLevel: 'silent',
    trustProxy: 1,
    loginRateLimit: 1000,
    loginRateWindowMs: 60_000,
    // High enough that no other test meets it; test/rate-limits.test.ts sets a small one.
    userRateLimit: 1_000_000,
    userRateWindowMs: 60_000,
    storage: { kind: 'local' } as const,
    publicUrl: 'http://127.0.0.1:0',
    uploadTtl: 24 * 3600,
    uploadMaxLifetime: 7 * 24 * 3600,
    partUrlTtl: 3600,
    minPartSize: 5 * 1024 * 1024,
    maxFileSize: 5 * 1024 ** 3,
    // Tests run jobs deterministically with app.jobs.drain(); the background loop polls too.
    jobs: { concurrency: 2, pollIntervalMs: 200, leaseSeconds: 300, maxAttempts: 5, retryBaseSeconds: 10 },
    ffmpegPath: undefined,
    pdftoppmPath: undefined,
    libreofficePath: undefined,
    mediaUrlTtl: 3600,
    social: { google: null },
    trashDays: 30,
    // The production defaults (issue #37); test/sweep-guard.test.ts sets small ones.
    sweeps: { maxPercent: 25, minCount: 100, batch: 500, orphanHours: 0 },
    searchFacetSample: 5_000,
    // The production default; test/bulk-search.test.ts sets a small one.
    bulkSearchMax: 10_000,
    // Not configured unless a test points it at test/helpers/fake-openai.ts.
    imageGen: null,
    proxy: { maxBytes: 20 * 1024 * 1024, ports: [80, 443], allowHosts: [], timeoutMs: 10_000, urlTtl: 3600, rateLimit: 600 },
    // No app links unless a test sets them (test/app-association.test.ts).
    appAssociation: { iosAppIds: [], android: null },
    // High enough that no other test meets them; test/shared-links-public.test.ts sets small ones.
    shares: { rateLimit: 100_000, linkRateLimit: 100_000, tokenTtl: 3600, logDays: 365 },
    // The production defaults; test/zip-*.test.ts sets small ones.
    zip: { downloadMaxEntries: 100_000, maxEntries: 10_000, maxUncompressed: 10 * 1024 ** 3, maxRatio: 100, linkTtl: 300 },
    // The production defaults; test/conversions.test.ts sets a small pixel limit.
    convert: { maxPixels: 100_000_000, timeoutMs: 3_600_000, videoPreviews: true },
    // No external drive unless a test points one at its fake (test/helpers/fake-gdrive.ts).
    drives: { google: null, dropbox: null, onedrive: null },
    // Payments off unless a test points Stripe at test/helpers/fake-stripe.ts (test/payments.test.ts).
    payments: { plans: SHIPPED_PLANS, stripe: null, graceDays: 7 },
    // No e-mail unless a test points it at test/helpers/smtp.ts.
    mail: null,
    inviteTtl: 7 * 24 * 3600,
    // The production defaults (issue #28); test/workspaces.test.ts and test/request-bounds.test.ts set small ones.
    maxWorkspacesPerUser: 10,
    bodyTimeoutMs: 30_000,
    uploadIdleTimeoutMs: 60_000,
    // The production default (OpenStreetMap); test/map-timeline.test.ts points it at its own tile server.
    map: { tileUrl: OSM_TILE_URL, attribution: OSM_ATTRIBUTION },
    ...overrides,
  };
  return Object.freeze(config);
}

export interface TestApp {
  app: FastifyInstance;
  database: DatabaseHandle;
  config: AppConfig;
  /** Moves the app's clock (Unix seconds) forward. */
  advanceClock(seconds: number): void;
  /** inject with an optional bearer token. */
  request(opts: InjectOptions & { token?: string }): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export async function startTestApp(
  /** logStream: receives the app's log lines (at config.logLevel); without it the app logs nothing. */
  options: { dialect?: DialectName; config?: Partial<AppConfig>; logStream?: { write(line: string): void } } = {},
): Promise<TestApp> {
  const database = await openTestDatabase(options.dialect ?? 'sqlite');
  const config = testConfig(options.config);
  let offset = 0;
  const app = await buildApp(config, {
    database,
    logger: options.logStream !== undefined,
    logStream: options.logStream,
    now: () => Math.floor(Date.now() / 1000) + offset,
  });
  await app.ready();
  return {
    app,
    database,
    config,
    advanceClock: (seconds) => {
      offset += seconds;
    },
    request: ({ token, headers, ...rest }) =>
      app.inject({ ...rest, headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } }),
    close: async () => {
      await app.close();
      await database.close();
    },
  };
}

/**
 * Closes a listening app at once: a keep-alive connection whose last response
 * finished a moment ago may not count as idle yet, and would hold close() up.
 */
async function closeListening(app: FastifyInstance): Promise<void> {
  const closing = app.close();
  app.server.closeAllConnections();
  await closing;
}

/** A free TCP port on 127.0.0.1 (for apps whose public URL must be known before they listen). */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * An app listening on 127.0.0.1 with DAM_PUBLIC_URL pointing at itself, for flows
 * where a client follows URLs the server hands out (presigned part uploads).
 * Pass `database`/`dataDir` of an earlier instance to simulate a restart.
 */
export async function startHttpTestApp(
  /** logStream: as for startTestApp. */
  options: { dialect?: DialectName; config?: Partial<AppConfig>; database?: DatabaseHandle; logStream?: { write(line: string): void } } = {},
): Promise<TestApp & { baseUrl: string }> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const database = options.database ?? (await openTestDatabase(options.dialect ?? 'sqlite'));
  const config = testConfig({ port, publicUrl: baseUrl, ...options.config });
  let offset = 0;
  const app = await buildApp(config, {
    database,
    logger: options.logStream !== undefined,
    logStream: options.logStream,
    now: () => Math.floor(Date.now() / 1000) + offset,
  });
  await app.listen({ port, host: '127.0.0.1' });
  return {
    app,
    database,
    config,
    baseUrl,
    advanceClock: (seconds) => {
      offset += seconds;
    },
    request: ({ token, headers, ...rest }) =>
      app.inject({ ...rest, headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } }),
    close: async () => {
      await closeListening(app);
      await database.close();
    },
  };
}
