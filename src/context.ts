import type { AppConfig } from './config.js';
import type { DatabaseHandle, DB } from './db/database.js';
import type { TokenSigner } from './services/tokens.js';
import type { FaultMonitor } from './faults/monitor.js';
import type { SigningSecrets } from './storage/signing-secrets.js';

/**
 * What every service needs, built once per app by buildApp. Passed explicitly
 * (no global singletons) so tests can build several apps side by side.
 */
export interface AppContext {
  readonly config: AppConfig;
  readonly database: DatabaseHandle;
  readonly db: DB;
  readonly tokens: TokenSigner;
  /** Resolved once at start (DAM_JWT_SECRET or the database's); every signer is built from these, never from config. */
  readonly secrets: SigningSecrets;
  /** Faults (issue #37: disk full, database or object store unavailable): one incident each, logged once and counted. */
  readonly faults: FaultMonitor;
  /** Current time in Unix seconds; replaceable in tests. */
  now(): number;
}

export const unixNow = (): number => Math.floor(Date.now() / 1000);
