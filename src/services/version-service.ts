import type { AppContext } from '../context.js';
import { faultOf, storeFailure as answerStoreFailure } from '../faults/classify.js';
import { retryAfterFault, writeNowOrLater } from '../faults/retry-later.js';
import { uploadedFileName } from '../domain/file-names.js';
import { fileTypeOf } from '../domain/file-types.js';
import { METADATA_LIMITS, jsonLimitViolation } from '../http/json-limits.js';
import { appError, notFound } from '../errors.js';
import type { SpooledFile } from '../http/multipart.js';
import type { MediaGrant, MediaLinks } from '../media/links.js';
import { probeImage } from '../media/probe.js';
import { sniffFile } from '../media/sniff.js';
import * as assets from '../repositories/assets.js';
import * as deletions from '../repositories/object-deletions.js';
import * as versions from '../repositories/versions.js';
import type { AssetView } from '../contracts/catalog.js';
import type { PreviewView, VersionView, VideoPreviewView } from '../contracts/versions.js';
import { StoreError, type ObjectStore } from '../storage/object-store.js';
import { ActivityService } from './activity-service.js';
import type { Caller } from './auth-service.js';
import * as quota from './quota-service.js';
import { authorizeAsset, loadVisibleAsset } from './visibility.js';
import { toAssetView } from './asset-service.js';
import { fileNameFor, streamDownload, versionValidator, type DownloadConditions, type DownloadResult } from './downloads.js';
import { restoredFromOf, type VersionLifecycle } from './version-lifecycle.js';
import type { MetadataWriteback } from './metadata-writeback.js';

/** seed 5.5: viewers list, download and preview; managers and admins also upload, restore and delete. */
type MinRole = 'viewer' | 'manager';

function storeFailure(err: unknown): never {
  throw err instanceof StoreError || faultOf(err) ? answerStoreFailure(err) : err;
}

/** The optional `metadata` form field: a JSON object merged into the current metadata (seed 9). */
export function parseMetadataField(raw: string | undefined): Record<string, unknown> {
  if (raw === undefined || raw.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw appError('VALIDATION_ERROR', 'metadata must be a JSON object', { field: 'metadata' });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw appError('VALIDATION_ERROR', 'metadata must be a JSON object', { field: 'metadata' });
  }
  // The same limits as a JSON body's metadata (PATCH /dam/assets/:id): the field is up to 64 KiB of text.
  const problem = jsonLimitViolation(value, METADATA_LIMITS);
  if (problem) throw appError('VALIDATION_ERROR', `metadata ${problem}`, { field: 'metadata' });
  return value as Record<string, unknown>;
}

/**
 * Asset versions (seed 2.5, 3, 4.5, 9). Every way a file reaches an asset goes through
 * VersionLifecycle; this service answers the version endpoints and keeps their rules:
 * the current version cannot be deleted, a restore adds a new version, and a version's
 * objects are never shared (a restore copies the file to a key of its own).
 */
export class VersionService {
  constructor(
    private readonly ctx: AppContext,
    private readonly store: ObjectStore,
    private readonly lifecycle: VersionLifecycle,
    private readonly links: MediaLinks,
    private readonly writeback: MetadataWriteback,
  ) {}

  /** Newest first. */
  async list(caller: Caller, assetId: number): Promise<VersionView[]> {
    const asset = await this.loadAsset(caller, assetId, 'viewer');
    const listed = await versions.listVersions(this.ctx.db, asset.id);
    return listed.map((v) => this.view(v, asset, { userId: caller.id }));
  }

  /** seed 3: the new version is current, the previous current becomes history; a thumbnail job is queued. */
  async upload(caller: Caller, assetId: number, file: SpooledFile, metadataField: string | undefined): Promise<VersionView> {
    const asset = await this.loadAsset(caller, assetId, 'manager');
    const metadata = parseMetadataField(metadataField);
    // The part's Content-Type is only the client's claim: the bytes decide where they can (src/media/sniff.ts).
    const mimeType = await sniffFile(file.path, file.mimetype);
    const dimensions = mimeType.startsWith('image/') ? await probeImage(file.path) : undefined;
    // Refused (402) before anything is reserved or stored when the file does not fit the plan.
    const promoted = await quota.withStorage(this.ctx, asset.workspace_id, file.size, async () => {
      const reserved = await this.lifecycle.reserve(
        asset,
        { file_name: uploadedFileName(file.filename, asset.file_name), mime_type: mimeType, created_by: caller.name || caller.email },
        false,
      );
      try {
        // Spooled, so never written to again (the local store may link it) and already hashed (no hash job).
        await this.store.putFile(reserved.storage_key, file.path, mimeType, { unchanging: true });
      } catch (err) {
        // The reserved version goes with the file (later, should the full disk refuse the database's write too: issue #37).
        const discard = () => this.lifecycle.discard(this.ctx.db, asset.id, reserved.id);
        await writeNowOrLater('discarding a version that could not be stored', discard, this.ctx.faults.log);
        throw answerStoreFailure(err, 'Storing the file failed');
      }
      try {
        return await this.lifecycle.promoteNow(
          reserved.id,
          { mime_type: mimeType, file_size: file.size, width: dimensions?.width ?? null, height: dimensions?.height ?? null, sha256: file.sha256 },
          { merge: metadata },
          { actor: caller },
        );
      } catch (err) {
        // Stored but not recorded, the database gone (issue #37): the reserved version goes once it is back, its key
        // queuing the object's deletion; a version whose commit answer was lost is ready and stays.
        retryAfterFault(err, 'discarding a version that could not be recorded', () => this.lifecycle.discard(this.ctx.db, asset.id, reserved.id), this.ctx.faults.log);
        throw err;
      }
    });
    return this.view({ ...promoted, thumbnail_key: null }, { ...asset, metadata: promoted.metadata }, { userId: caller.id });
  }

  /** seed 3, 9: a new version (next label) with the restored version's file and metadata becomes current. */
  async restore(caller: Caller, versionId: number): Promise<AssetView> {
    const source = await this.loadVersion(caller, versionId, 'manager');
    if (source.is_current === 1) throw appError('CONFLICT', `Version v${source.number} is already the current version`);
    const asset = await assets.findAsset(this.ctx.db, source.asset_id);
    if (!asset) throw notFound('Version');
    // A restore stores a copy: it counts toward the plan's storage like an upload of the same file.
    await quota.withStorage(this.ctx, asset.workspace_id, source.file_size, async () => {
      const reserved = await this.lifecycle.reserve(
        asset,
        { file_name: source.file_name, display_file_name: source.display_file_name, mime_type: source.mime_type, created_by: caller.name || caller.email },
        false,
      );
      try {
        await this.store.copy(source.storage_key, reserved.storage_key);
      } catch (err) {
        await this.lifecycle.discard(this.ctx.db, asset.id, reserved.id);
        storeFailure(err);
      }
      await this.lifecycle.promoteNow(
        reserved.id,
        { mime_type: source.mime_type, file_size: source.file_size, width: source.width, height: source.height, page_count: source.page_count },
        { replace: source.metadata },
        { actor: caller, restoredFrom: { id: source.id, number: source.number ?? 0 } },
      );
    });
    const updated = await assets.findAsset(this.ctx.db, asset.id);
    if (!updated) throw notFound('Asset');
    return toAssetView(updated);
  }

  /** `embedMetadata`: the asset's current metadata written into this version's file (./metadata-writeback.ts). */
  async download(caller: Caller, versionId: number, conditions: DownloadConditions, embedMetadata = false): Promise<DownloadResult> {
    const v = await this.loadVersion(caller, versionId, 'viewer');
    // The URL names the version: its bytes never change, so its dates are strong validators too.
    const file = { key: v.storage_key, fileName: fileNameFor(v.file_name, v.mime_type), mimeType: v.mime_type, validator: versionValidator(v, true) };
    if (embedMetadata) {
      const asset = await assets.findAsset(this.ctx.db, v.asset_id);
      if (!asset) throw notFound('Version');
      return this.writeback.download(asset, file, conditions);
    }
    return streamDownload(this.store, file.key, { ...file, conditions });
  }

  async preview(caller: Caller, versionId: number): Promise<PreviewView> {
    const v = await this.loadVersion(caller, versionId, 'viewer');
    const preview = await versions.findRendition(this.ctx.db, v.id, 'preview');
    if (preview) return { url: this.links.signed(v.id, 'preview', { userId: caller.id }), mime_type: preview.mime_type, width: preview.width, height: preview.height };
    if (v.preview_status === 'pending') {
      throw appError('NOT_FOUND', `The preview of version v${v.number} is still being made; try again shortly`, { preview_status: 'pending' });
    }
    const why = v.preview_note ?? 'no preview can be made for this file';
    throw appError('NOT_FOUND', `Version v${v.number} has no preview: ${why}`, { preview_status: v.preview_status });
  }

  /** seed 3: only history versions may be deleted. Their objects go at once; a failure is left to the deletion queue. */
  async remove(caller: Caller, versionId: number): Promise<{ id: number }> {
    const v = await this.loadVersion(caller, versionId, 'manager');
    if (v.is_current === 1) throw appError('CONFLICT', `Version v${v.number} is the current version and cannot be deleted; restore or upload another first`);
    const renditions = await versions.renditionKeysOf(this.ctx.db, v.id);
    await this.ctx.db.transaction().execute(async (trx) => {
      if (!(await versions.deleteHistoryVersion(trx, v.id))) {
        throw appError('CONFLICT', `Version v${v.number} became the current version meanwhile and cannot be deleted`);
      }
      const subject = { kind: 'version' as const, id: v.id, name: `v${v.number}` };
      await ActivityService.record(trx, { workspaceId: v.workspace_id, actor: caller, action: 'version.delete', subject, assetId: v.asset_id, at: this.ctx.now() });
    });
    for (const key of [v.storage_key, ...renditions]) {
      try {
        await this.store.delete(key);
        await deletions.forgetObjectDeletionsOfKey(this.ctx.db, key);
      } catch {
        // The triggers queued the key; housekeeping retries.
      }
    }
    return { id: v.id };
  }

  /**
   * thumbnail_url and file_url of the current version of each asset, for other resources (search documents, the
   * trash), under `grant`: the caller the resource answers (media URLs serve while their grant holds, media/links.ts).
   */
  async currentLinks(assetIds: readonly number[], grant: MediaGrant): Promise<Map<number, { thumbnail_url: string; file_url: string }>> {
    const current = await versions.currentVersionsOf(this.ctx.db, assetIds);
    return new Map(current.map((v) => [v.asset_id, { thumbnail_url: this.thumbnailUrl(v, grant), file_url: this.links.signed(v.id, 'file', grant) }]));
  }

  private view(v: versions.ListedVersion, asset: assets.AssetRecord, grant: MediaGrant): VersionView {
    return {
      id: v.id,
      version: `v${v.number}`,
      asset_id: v.asset_id,
      file_name: v.file_name,
      display_file_name: v.display_file_name,
      file_size: v.file_size,
      mime_type: v.mime_type,
      created_at: new Date(v.created_at * 1000).toISOString(),
      created_by: v.created_by,
      thumbnail_url: this.thumbnailUrl(v, grant),
      file_url: this.links.signed(v.id, 'file', grant),
      is_current: v.is_current === 1,
      // Edits to the asset's metadata land on the asset; they are the current version's (seed 9).
      metadata: v.is_current === 1 ? asset.metadata : v.metadata,
      preview_status: v.preview_status,
      page_count: v.page_count,
      sha256: v.sha256,
      restored_from: restoredFromOf(v),
      video_preview: this.videoPreview(v, grant),
    };
  }

  /** issue #15: the playable preview of a video version: a transcode, or the file itself when it already plays everywhere. */
  private videoPreview(v: versions.VersionRecord, grant: MediaGrant): VideoPreviewView | null {
    switch (v.video_preview_status) {
      case null:
        return null;
      case 'ready':
        return { status: 'ready', url: this.links.signed(v.id, 'video', grant), mime_type: 'video/mp4', source: 'transcode', note: null };
      case 'original':
        return { status: 'ready', url: this.links.signed(v.id, 'file', grant), mime_type: 'video/mp4', source: 'original', note: null };
      default:
        return { status: v.video_preview_status, url: null, mime_type: null, source: null, note: v.video_preview_note };
    }
  }

  private thumbnailUrl(v: versions.ListedVersion, grant: MediaGrant): string {
    return v.thumbnail_key ? this.links.signed(v.id, 'thumbnail', grant) : this.links.icon(fileTypeOf(v.mime_type));
  }

  /**
   * An asset still 'uploading' (not in the catalog yet), in the trash, of another workspace or another's private asset
   * the caller may not see (domain/asset-visibility.ts): 404 like a missing one.
   */
  private loadAsset(caller: Caller, id: number, min: MinRole): Promise<assets.AssetRecord> {
    return loadVisibleAsset(this.ctx.db, id, caller.id, min);
  }

  /** A version of an asset in the trash, or of a private asset the caller may not see, is 404 too, as its asset is. */
  private async loadVersion(caller: Caller, id: number, min: MinRole): Promise<versions.VersionRecord> {
    const found = await versions.findVersion(this.ctx.db, id);
    const asset = found?.status === 'ready' ? await assets.findAsset(this.ctx.db, found.asset_id) : undefined;
    await authorizeAsset(this.ctx.db, 'Version', asset && assets.inCatalog(asset) ? asset : undefined, caller.id, min);
    return found!;
  }
}
