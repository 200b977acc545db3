import type { Transaction } from 'kysely';
import type { AppContext } from '../context.js';
import type { DB } from '../db/database.js';
import type { Database } from '../db/schema.js';
import { diffFields, diffMap, type Changes } from '../domain/activity.js';
import { fileTypeOf } from '../domain/file-types.js';
import { appError } from '../errors.js';
import { HASH_VERSION, MAKE_RENDITIONS, MAKE_VIDEO_PREVIEW, READ_EMBEDDED_METADATA } from '../jobs/kinds.js';
import type { JobQueue } from '../jobs/queue.js';
import * as assets from '../repositories/assets.js';
import { deleteUploadingAsset } from '../repositories/asset-uploads.js';
import * as versions from '../repositories/versions.js';
import { assetKey, versionKey } from '../storage/keys.js';
import { ActivityService, assetSubject, type Actor } from './activity-service.js';

/** The facts of a stored file; `mime_type` is its final (sniffed) type, which replaces the one reserved with. */
export interface VersionFile {
  mime_type: string;
  file_size: number;
  width: number | null;
  height: number | null;
  /** Known only when a restore copies a counted version; otherwise the rendition job counts the pages. */
  page_count?: number | null;
  /**
   * SHA-256 of the file (hex) when the upload hashed the bytes as they arrived (a file sent through the server):
   * recorded at once, and no version.sha256 job reads the file again for it.
   */
  sha256?: string;
}

/** A new version's metadata: the current metadata merged with the upload's (seed 9), or a restored version's. */
export type MetadataChange = { merge: Record<string, unknown> } | { replace: Record<string, unknown> };

/** Who made a version and, for a restore, the version it copies (recorded on the version and in the activity log). */
export interface VersionOrigin {
  actor: Actor;
  restoredFrom?: { id: number; number: number };
}

/** The version object's `restored_from`: the source of a restore, null for uploads. */
export function restoredFromOf(v: versions.VersionRecord): { id: number; version: string } | null {
  return v.restored_from_id !== null && v.restored_from_number !== null ? { id: v.restored_from_id, version: `v${v.restored_from_number}` } : null;
}

/** The facts of an asset's current version that the activity log compares when another one becomes current. */
function currentFacts(v: versions.VersionRecord) {
  return { version: `v${v.number}`, file_name: v.file_name, file_size: v.file_size, mime_type: v.mime_type, restored_from: restoredFromOf(v) };
}
const CURRENT_FACTS = ['version', 'file_name', 'file_size', 'mime_type', 'restored_from'] as const;

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
   * (seed 2.3); later versions at a key of their own, derived from their id. `db`: the
   * transaction that creates the asset, for v1 only (later versions take a transaction of their own).
   */
  async reserve(
    asset: { id: number; workspace_id: number; display_file_name: string },
    file: { file_name: string; mime_type: string; created_by: string; display_file_name?: string } & Partial<VersionFile>,
    first: boolean,
    db: DB = this.ctx.db,
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
    if (first) return versions.insertUploadingVersion(db, values);
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
   * and queues its renditions (made for that type), the reading of its embedded metadata and, for a video, its web-playable
   * preview in the same commit. Records the change in the activity log:
   * asset.upload for v1, version.upload or version.restore after it. Call `notify()` after the commit.
   */
  async promote(
    trx: Transaction<Database>,
    versionId: number,
    file: VersionFile,
    metadata: MetadataChange,
    origin: VersionOrigin,
  ): Promise<versions.VersionRecord> {
    const reserved = await versions.findVersion(trx, versionId);
    if (!reserved) throw appError('NOT_FOUND', 'The version was deleted while its file was being stored');
    await this.ctx.database.support.lockRow(trx, 'assets', reserved.asset_id);
    const asset = await assets.findAsset(trx, reserved.asset_id);
    if (!asset) throw appError('NOT_FOUND', 'The asset was deleted while its file was being stored');
    const current = await versions.findVersion(trx, versionId);
    if (current?.status === 'ready') return current;

    const number = (await versions.lastVersionNumber(trx, asset.id)) + 1;
    const [previous] = await versions.currentVersionsOf(trx, [asset.id]);
    // The asset's metadata is the current version's (edits land there); the outgoing version keeps it.
    await versions.demoteCurrentVersion(trx, asset.id, asset.metadata);
    const meta = 'replace' in metadata ? metadata.replace : { ...asset.metadata, ...metadata.merge };
    const source = { restored_from_id: origin.restoredFrom?.id ?? null, restored_from_number: origin.restoredFrom?.number ?? null };
    await versions.markVersionCurrent(trx, versionId, { number, ...file, metadata: meta, ...source });
    // A video also gets a web-playable preview (issue #15), in a job of its own: the poster never waits for a transcode.
    const videoPreview = this.ctx.config.convert.videoPreviews && fileTypeOf(file.mime_type) === 'video';
    if (videoPreview) await versions.setVideoPreviewStatus(trx, versionId, 'pending', null);
    const promoted: versions.VersionRecord = {
      ...reserved,
      ...file,
      ...source,
      number,
      status: 'ready',
      is_current: 1,
      metadata: meta,
      ...(videoPreview ? { video_preview_status: 'pending' as const, video_preview_note: null } : {}),
    };
    const now = this.ctx.now();
    await versions.applyVersionToAsset(trx, asset.id, promoted, now);
    await this.jobs.enqueue(trx, MAKE_RENDITIONS, { versionId });
    await this.jobs.enqueue(trx, READ_EMBEDDED_METADATA, { versionId });
    if (file.sha256 === undefined) await this.jobs.enqueue(trx, HASH_VERSION, { versionId });
    if (videoPreview) await this.jobs.enqueue(trx, MAKE_VIDEO_PREVIEW, { versionId });
    const changes: Changes = diffFields(previous ? currentFacts(previous) : null, currentFacts(promoted), CURRENT_FACTS);
    const metadataChange = diffMap(asset.metadata, meta);
    if (metadataChange) changes.metadata = metadataChange;
    await ActivityService.record(trx, {
      workspaceId: asset.workspace_id,
      actor: origin.actor,
      action: origin.restoredFrom ? 'version.restore' : number === 1 ? 'asset.upload' : 'version.upload',
      subject: assetSubject(asset),
      changes,
      at: now,
    });
    return promoted;
  }

  /** promote() in a transaction of its own, then wakes the worker. */
  async promoteNow(versionId: number, file: VersionFile, metadata: MetadataChange, origin: VersionOrigin): Promise<versions.VersionRecord> {
    const promoted = await this.ctx.db.transaction().execute((trx) => this.promote(trx, versionId, file, metadata, origin));
    this.notify();
    return promoted;
  }

  /**
   * Wakes this process's job worker after a commit that promoted versions. `upload`: the commit answers an upload
   * request, and the worker yields to the uploads that may follow (JobQueue.uploaded).
   */
  notify(upload = false): void {
    if (upload) this.jobs.uploaded();
    else this.jobs.notify();
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
