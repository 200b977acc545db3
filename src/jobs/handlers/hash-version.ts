import type { FileHashService } from '../../services/file-hash-service.js';
import { HASH_BACKFILL, HASH_VERSION } from '../kinds.js';
import { defineHandler } from '../types.js';

/** The SHA-256 of a version's file (issue #19); a store that fails is retried like any job. */
export const hashVersion = (fileHashes: FileHashService) => defineHandler(HASH_VERSION, ({ versionId }) => fileHashes.hashVersion(versionId));

/** One batch of the backfill of versions stored before hashing existed (issue #19). */
export const hashBackfill = (fileHashes: FileHashService) => defineHandler(HASH_BACKFILL, ({ afterId }) => fileHashes.backfill(afterId));
