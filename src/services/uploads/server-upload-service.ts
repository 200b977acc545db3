import path from 'node:path';
import { storeFailure } from '../../faults/classify.js';
import { retryAfterFault, writeNowOrLater } from '../../faults/retry-later.js';
import type { AppContext } from '../../context.js';
import { uploadedFileName } from '../../domain/file-names.js';
import { appError } from '../../errors.js';
import type { SpooledFile } from '../../http/multipart.js';
import { probeImage } from '../../media/probe.js';
import { sniffFile } from '../../media/sniff.js';
import * as assets from '../../repositories/assets.js';
import * as lifecycle from '../../repositories/asset-uploads.js';
import { folderExistsInWorkspace } from '../../repositories/folders.js';
import type { ObjectStore } from '../../storage/object-store.js';
import { assetKey } from '../../storage/keys.js';
import type { Caller } from '../auth-service.js';
import { requireRole } from '../access.js';
import * as quota from '../quota-service.js';
import { toAssetView } from '../asset-service.js';
import type { AssetView } from '../../contracts/catalog.js';
import type { VersionLifecycle } from '../version-lifecycle.js';

export interface ServerUploadInput {
  file: SpooledFile;
  workspaceId: number;
  folder_id?: number;
  tags?: string;
  visibility?: number;
  display_file_name?: string;
}

/** Tags arrive as a form field: a JSON array of strings, or a comma-separated list. */
export function parseTagsField(raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === '') return [];
  let tags: unknown = raw.split(',');
  if (raw.trim().startsWith('[')) {
    try {
      tags = JSON.parse(raw);
    } catch {
      throw appError('VALIDATION_ERROR', 'tags must be a JSON array of strings or a comma-separated list', { field: 'tags' });
    }
  }
  if (!Array.isArray(tags) || !tags.every((t) => typeof t === 'string')) {
    throw appError('VALIDATION_ERROR', 'tags must be a JSON array of strings or a comma-separated list', { field: 'tags' });
  }
  const clean = [...new Set(tags.map((t: string) => t.trim()).filter(Boolean))];
  if (clean.length > 100 || clean.some((t) => t.length > 100)) {
    throw appError('VALIDATION_ERROR', 'tags: at most 100 tags of at most 100 characters', { field: 'tags' });
  }
  return clean;
}

/**
 * seed 4.6 POST /api/upload-asset: a file sent through this server (for clients
 * that cannot do the multipart flow), stored under the same key layout.
 */
export class ServerUploadService {
  constructor(
    private readonly ctx: AppContext,
    private readonly store: ObjectStore,
    private readonly versions: VersionLifecycle,
  ) {}

  async upload(caller: Caller, input: ServerUploadInput): Promise<AssetView> {
    await requireRole(this.ctx.db, input.workspaceId, caller.id, 'manager');
    // Only a file our multipart hook spooled (to $DAM_DATA_DIR/tmp, src/routes/uploads/server-upload.ts): a JSON body
    // naming another path (e.g. the JWT secret) must never reach the store.
    if (path.dirname(path.resolve(input.file.path)) !== path.join(this.ctx.config.dataDir, 'tmp')) {
      throw appError('VALIDATION_ERROR', 'file must be a file part of a multipart/form-data body', { field: 'file' });
    }
    const tags = parseTagsField(input.tags);
    if (input.folder_id !== undefined && !(await folderExistsInWorkspace(this.ctx.db, input.workspaceId, input.folder_id))) {
      throw appError('VALIDATION_ERROR', `folder_id ${input.folder_id} is not a folder of workspace ${input.workspaceId}`, { field: 'folder_id' });
    }
    // The part's Content-Type is only the client's claim: the bytes decide where they can (src/media/sniff.ts).
    const mimeType = await sniffFile(input.file.path, input.file.mimetype);
    const dimensions = mimeType.startsWith('image/') ? await probeImage(input.file.path) : undefined;
    // Plan limits (issue #17): refused with 402 before the asset exists or any byte is stored.
    await quota.assertAssets(this.ctx, input.workspaceId);
    return quota.withStorage(this.ctx, input.workspaceId, input.file.size, () => this.storeFile(caller, input, tags, mimeType, dimensions));
  }

  private async storeFile(
    caller: Caller,
    input: ServerUploadInput,
    tags: string[],
    mimeType: string,
    dimensions: { width: number; height: number } | undefined,
  ): Promise<AssetView> {
    // The asset and its reserved v1 in one commit (one write to the database's log instead of two per file).
    const { asset, version } = await this.ctx.db.transaction().execute(async (trx) => {
      const inserted = await assets.insertAsset(trx, {
        workspace_id: input.workspaceId,
        folder_id: input.folder_id ?? null,
        file_name: uploadedFileName(input.file.filename),
        display_file_name: input.display_file_name,
        mime_type: mimeType,
        file_size: input.file.size,
        width: dimensions?.width ?? null,
        height: dimensions?.height ?? null,
        tags,
        visibility: input.visibility ?? 0,
        created_by: caller.name || caller.email,
        // The uploader; for a ZIP or drive import (which store each file through here) the user who asked for it.
        uploaded_by: caller.id,
        created_at: this.ctx.now(),
        status: 'uploading',
      });
      // seed 9: the file is the asset's v1.
      const reserved = await this.versions.reserve(inserted, { file_name: inserted.file_name, mime_type: mimeType, created_by: inserted.created_by }, true, trx);
      return { asset: inserted, version: reserved };
    });
    const key = assetKey(input.workspaceId, asset.id);
    try {
      // The spooled file is only removed after this, never written to again: the local store may link it.
      await this.store.putFile(key, input.file.path, mimeType, { unchanging: true });
    } catch (err) {
      // The rows go with the file (later, should the full disk refuse the database's write too: issue #37).
      const discard = () => lifecycle.deleteUploadingAsset(this.ctx.db, asset.id);
      await writeNowOrLater('discarding an upload that could not be stored', discard, this.ctx.faults.log);
      throw storeFailure(err, 'Storing the file failed');
    }
    let ready: assets.AssetRecord | undefined;
    try {
      ready = await this.ctx.db.transaction().execute(async (trx) => {
        await lifecycle.setStorageKey(trx, asset.id, key);
        const file = { mime_type: mimeType, file_size: input.file.size, width: asset.width, height: asset.height };
        await lifecycle.markAssetReady(trx, asset.id, file, asset.created_at);
        // Hashed as it was spooled: duplicate detection knows the file at once, and no job reads it again for that.
        await this.versions.promote(trx, version.id, { ...file, sha256: input.file.sha256 }, { merge: {} }, { actor: caller });
        // The answer is read before the commit: after it, nothing may fail the request (issue #37: a 503 for an
        // upload that was recorded would have the client upload it again).
        return assets.findAsset(trx, asset.id);
      });
    } catch (err) {
      // The database went away with the file stored but not recorded (issue #37): once it is back, the asset still
      // 'uploading' goes with its version, whose key queues the object's deletion. A commit whose answer was lost left
      // a ready asset, which this leaves alone.
      retryAfterFault(err, 'discarding an upload that could not be recorded', () => this.versions.discard(this.ctx.db, asset.id, null), this.ctx.faults.log);
      throw err;
    }
    this.versions.notify(true);
    if (!ready) throw appError('NOT_FOUND', 'The asset was deleted while it was being stored');
    return toAssetView(ready);
  }
}
