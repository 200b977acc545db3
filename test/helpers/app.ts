import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import type { AppConfig } from '../../src/config.js';
import type { DatabaseHandle } from '../../src/db/database.js';
import type { DialectName } from '../../src/db/dialects/types.js';
import { openTestDatabase, tempDir } from './databases.js';

export function testConfig(overrides: Partial<AppConfig> = {}): AppConfig {
  const dataDir = tempDir('dam-data-');
  return Object.freeze({
    env: 'test',
    port: 0,
    host: '127.0.0.1',
    dataDir,
    databaseUrl: 'sqlite::memory:',
    jwtSecret: 'test-secret-test-secret-test-secret-0123456789',
    sessionTtl: 3600,
    allowRegistration: true,
    logLevel: 'silent',
    loginRateLimit: 1000,
    loginRateWindowMs: 60_000,
    ...overrides,
  });
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
  options: { dialect?: DialectName; config?: Partial<AppConfig> } = {},
): Promise<TestApp> {
  const database = await openTestDatabase(options.dialect ?? 'sqlite');
  const config = testConfig(options.config);
  let offset = 0;
  const app = await buildApp(config, {
    database,
    logger: false,
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
