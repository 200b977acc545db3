import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { AppConfig } from '../config.js';
import type { DatabaseHandle } from '../db/database.js';
import { insertSettingIfAbsent } from '../repositories/instance-settings.js';
import type { SigningSecrets } from '../storage/signing-secrets.js';

/**
 * The secret offered when the database has none yet: the one an earlier version generated into the
 * data dir (so that upgrading keeps sessions and sealed drive tokens valid), else a new random one.
 */
function firstSecret(dataDir: string): string {
  const file = path.join(dataDir, 'jwt-secret');
  const kept = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
  return kept.length >= 32 ? kept : randomBytes(48).toString('base64url');
}

/** The name of the generated secret in the `settings` table. */
export const SECRET_SETTING = 'instance.jwt_secret';

/**
 * DAM_JWT_SECRET when given (or, on SQLite, the secret config generated into the data dir).
 * Otherwise (PostgreSQL) the one secret of the database: the first process to start inserts a
 * random one under the `settings` primary key, every process (that one included) reads back the
 * stored value, so a cluster never runs with two secrets.
 */
export async function resolveSigningSecrets(config: AppConfig, database: DatabaseHandle): Promise<SigningSecrets> {
  const current = config.jwtSecret ?? (await insertSettingIfAbsent(database.db, SECRET_SETTING, firstSecret(config.dataDir)));
  return Object.freeze({ current, previous: Object.freeze(config.jwtSecretPrevious.filter((s) => s !== current)) });
}
