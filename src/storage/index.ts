import path from 'node:path';
import type { AppConfig } from '../config.js';
import type { DB } from '../db/database.js';
import { getStoredCorsRules, listUploadParts, putStoredCorsRules, swapUploadPart } from '../repositories/uploads.js';
import { LocalStore } from './local-store.js';
import type { ObjectStore } from './object-store.js';
import { S3Store, type BodyFailureListener } from './s3-store.js';
import { UrlSigner } from './signed-url.js';
import type { SigningSecrets } from './signing-secrets.js';

/**
 * Chooses the object store from config; the local store keeps its parts and CORS rules in the database.
 * `bodyFailed`: told when an S3 object's body fails while it streams (issue #37: the store reset or stalled).
 */
export function createObjectStore(config: AppConfig, db: DB, now: () => number, secrets: SigningSecrets, bodyFailed?: BodyFailureListener): ObjectStore {
  if (config.storage.kind === 's3') return new S3Store(config.storage, bodyFailed);
  return new LocalStore(
    path.join(config.dataDir, 'storage'),
    {
      recordPart: (uploadId, part, file) => swapUploadPart(db, uploadId, part, file, now()),
      listParts: (uploadId) => listUploadParts(db, uploadId),
      getCorsRules: () => getStoredCorsRules(db),
      putCorsRules: (rules) => putStoredCorsRules(db, rules),
    },
    new UrlSigner(secrets, 'local-part-upload'),
    config.publicUrl,
    now,
  );
}
