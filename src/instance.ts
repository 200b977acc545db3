import type { AppConfig } from './config.js';
import type { DatabaseHandle } from './db/database.js';
import { resolveSigningSecrets } from './services/signing-secrets.js';
import type { SigningSecrets } from './storage/signing-secrets.js';
import { checkDataDirMarker } from './storage/data-dir-marker.js';

/**
 * What a process settles with the others at start, after migrations and before any service is
 * built (issue #18): the local store's shared data dir, then the one signing secret.
 */
export async function prepareInstance(config: AppConfig, database: DatabaseHandle): Promise<SigningSecrets> {
  if (config.storage.kind === 'local') await checkDataDirMarker(database.db, config.dataDir);
  return resolveSigningSecrets(config, database);
}
