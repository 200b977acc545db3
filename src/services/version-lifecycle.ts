import type { AppContext } from '../context.js';
import type { DB } from '../db/database.js';
import { appError } from '../errors.js';
import { MAKE_RENDITIONS } from '../jobs/kinds.js';
import type { JobQueue } from '../jobs/queue.js';
import * as assets from '../repositories/assets.js';
import { deleteUploadingAsset } from '../repositories/asset-uploads.js';
import * as versions from '../repositories/versions.js';
import { assetKey, versionKey } from '../storage/keys.js';

/** The facts of a stored file; `mime_type` is its final (sniffed) type, which replaces the one reserved with. */
export interface VersionFile {
  mime_type: string;
  file_size: number;
  width: number | null;
  height: number | null;
}

/** A new version's metadata: the current metadata merged with the upload's (seed 9), or a restored version's. */
export type MetadataChange = { merge: Record<string, unknown> } | { replace: Record<string, unknown> };

/**
 * How a file becomes a version, shared by every way in (multipart flow, server upload,
 * version upload, restore): `reserve` hands out an 'uploading' version and its key before
 * the bytes are stored; `promote` labels it and makes it current once they are.
 */
export class VersionLifecycle {
  constructor(
    private readonly ctx: AppContext,
    private readonly jobs: JobQueue,
  ) {}

  /**
   * An 'uploading' version of the asset. v1 of a new asset is stored at the asset's own key
   * (seed 2.3); later versions at a key of their own, derived from their id.
   */
  async reserve(
    asset: { id: number; workspace_id: number; display_file_name: string },
    file: { file_name: string; mime_type: string; created_by: string; display_file_name?: string } & Partial<VersionFile>,
    first: boolean,
  ): Promise<versions.VersionRecord> {
    const values = {
      ...file,
      asset_id: asset.id,
      workspace_id: asset.workspace_id,
      // The name the asset is shown under when this file arrives (a restore keeps the restored version's).
      display_file_name: file.display_file_name ?? asset.display_file_name,
      storage_key: assetKey(asset.workspace_id, asset.id),
      created_at: this.ctx.now(),
    };
    if (first) return versions.insertUploadingVersion(this.ctx.db, values);
    return this.ctx.db.transaction().execute(async (trx) => {
      const reserved = await versions.insertUploadingVersion(trx, values);
      const key = versionKey(asset.workspace_id, asset.id, reserved.id);
      await versions.setVersionKey(trx, reserved.id, key);
      return { ...reserved, storage_key: key };
    });
  }

  /**
   * Inside the caller's transaction: under the asset's row lock, gives the version the next
   * label (seed 9), makes it the one current version (seed 3) with its final file facts (its
   * sniffed type replaces the claim it was reserved with), lets the asset's file facts follow it
   * and queues its renditions (made for that type) in the same commit. Call `notify()` after the commit.
   */
  async promote(trx: DB, versionId: number, file: VersionFile, metadata: MetadataChange): Promise<versions.VersionRecord> {
    const reserved = await versions.findVersion(trx, versionId);
    if (!reserved) throw appError('NOT_FOUND', 'The version was deleted while its file was being stored');
    await this.ctx.database.support.lockRow(trx, 'assets', reserved.asset_id);
    const asset = await assets.findAsset(trx, reserved.asset_id);
    if (!asset) throw appError('NOT_FOUND', 'The asset was deleted while its file was being stored');
    const current = await versions.findVersion(trx, versionId);
    if (current?.status === 'ready') return current;

    const number = (await versions.lastVersionNumber(trx, asset.id)) + 1;
    // The asset's metadata is the current version's (edits land there); the outgoing version keeps it.
    await versions.demoteCurrentVersion(trx, asset.id, asset.metadata);
    const meta = 'replace' in metadata ? metadata.replace : { ...asset.metadata, ...metadata.merge };
    await versions.markVersionCurrent(trx, versionId, { number, ...file, metadata: meta });
    const promoted: versions.VersionRecord = { ...reserved, ...file, number, status: 'ready', is_current: 1, metadata: meta };
    await versions.applyVersionToAsset(trx, asset.id, promoted, this.ctx.now());
    await this.jobs.enqueue(trx, MAKE_RENDITIONS, { versionId });
    return promoted;
  }

  /** promote() in a transaction of its own, then wakes the worker. */
  async promoteNow(versionId: number, file: VersionFile, metadata: MetadataChange): Promise<versions.VersionRecord> {
    const promoted = await this.ctx.db.transaction().execute((trx) => this.promote(trx, versionId, file, metadata));
    this.notify();
    return promoted;
  }

  /** Wakes this process's job worker after a commit that promoted versions. */
  notify(): void {
    this.jobs.notify();
  }

  /**
   * Drops an upload that will not complete: a new asset goes whole while it is still
   * 'uploading' (its version with it); for an existing asset only the reserved version goes.
   */
  async discard(db: DB, assetId: number, versionId: number | null): Promise<void> {
    await deleteUploadingAsset(db, assetId);
    if (versionId !== null) await versions.deleteUploadingVersion(db, versionId);
  }
}
