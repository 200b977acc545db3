import { createHash } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import type { Static } from 'typebox';
import type { AppContext } from '../context.js';
import { HASH_BACKFILL, HASH_VERSION } from '../jobs/kinds.js';
import type { JobQueue } from '../jobs/queue.js';
import * as hashes from '../repositories/file-hashes.js';
import * as versions from '../repositories/versions.js';
import type { CheckDuplicatesBody, DuplicatesView } from '../contracts/duplicates.js';
import type { ObjectStore } from '../storage/object-store.js';
import type { Caller } from './auth-service.js';
import { requireSight } from './visibility.js';

/** Versions a backfill job queues at a time; it then queues itself for the next batch. */
export const BACKFILL_BATCH = 200;

/**
 * Duplicate detection (issue #19): the SHA-256 of every stored file, read once from the store (local or S3,
 * streamed) by a job after the version is stored, so uploads never wait for it; and the lookup of hashes a
 * client is about to upload.
 */
export class FileHashService {
  constructor(
    private readonly ctx: AppContext,
    private readonly store: ObjectStore,
    private readonly jobs: JobQueue,
  ) {}

  /** HASH_VERSION: hashes the version's file unless it is gone, not stored yet, or already hashed. */
  async hashVersion(versionId: number): Promise<void> {
    const version = await versions.findVersion(this.ctx.db, versionId);
    if (!version || version.status !== 'ready' || version.sha256 !== null) return;
    const hash = createHash('sha256');
    const body = await this.store.read(version.storage_key);
    let read = 0;
    body.stream.on('data', (chunk: Buffer) => {
      read += chunk.length;
    });
    await pipeline(body.stream, hash);
    // A short read (a store answering before the object is whole, a cut stream) must not record a wrong
    // hash that would call unrelated files duplicates: the job fails and is retried with back-off.
    if (read !== Number(version.file_size)) {
      throw new Error(`read ${read} bytes of version ${version.id} from the store, expected ${version.file_size}: not hashed`);
    }
    await hashes.saveVersionHash(this.ctx.db, version, hash.digest('hex'));
  }

  /** HASH_BACKFILL: queues the hashing of the next batch of versions without a hash, then the next batch itself. */
  async backfill(afterId: number): Promise<void> {
    await this.ctx.db.transaction().execute(async (trx) => {
      const ids = await hashes.versionsWithoutHash(trx, afterId, BACKFILL_BATCH);
      for (const versionId of ids) await this.jobs.enqueue(trx, HASH_VERSION, { versionId });
      if (ids.length === BACKFILL_BATCH) await this.jobs.enqueue(trx, HASH_BACKFILL, { afterId: ids[ids.length - 1]! });
    });
    this.jobs.notify();
  }

  /**
   * POST /dam/assets/check-duplicates: which of the hashes the workspace's library already has, with the assets, of those
   * the caller sees: a viewer learns nothing of others' private assets, not even that one holds a file (asset-visibility.ts).
   */
  async checkDuplicates(caller: Caller, body: Static<typeof CheckDuplicatesBody>): Promise<DuplicatesView> {
    const sight = await requireSight(this.ctx.db, body.workspaceId, caller.id);
    const wanted = [...new Set(body.hashes)];
    const found = new Map<string, number[]>();
    for (const row of await hashes.assetsWithHashes(this.ctx.db, body.workspaceId, wanted, sight)) {
      found.set(row.sha256, [...(found.get(row.sha256) ?? []), row.id]);
    }
    return { duplicates: wanted.filter((h) => found.has(h)).map((sha256) => ({ sha256, asset_ids: found.get(sha256)! })) };
  }
}
