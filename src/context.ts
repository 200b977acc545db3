import type { AppConfig } from './config.js';
import type { DatabaseHandle, DB } from './db/database.js';
import type { TokenSigner } from './services/tokens.js';
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
  /** Current time in Unix seconds; replaceable in tests. */
  now(): number;
}

export const unixNow = (): number => Math.floor(Date.now() / 1000);
