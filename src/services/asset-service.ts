import type { Static } from 'typebox';
import type { AppContext } from '../context.js';
import type { FileType, Orientation } from '../domain/file-types.js';
import * as assets from '../repositories/assets.js';
import * as collections from '../repositories/collections.js';
import { folderExistsInWorkspace } from '../repositories/folders.js';
import type { AssetListQuery, AssetPatchBody, AssetView, PageView } from '../routes/catalog-schemas.js';
import { requireRole } from './access.js';
import type { Caller } from './auth-service.js';
import { badReference, folderFilter, loadAuthorized, pageWindow } from './catalog-access.js';

/** The API shape of an asset (AssetSchema). storage_key and other internals stay out. */
export function toAssetView(a: assets.AssetRecord): AssetView {
  return {
    id: a.id,
    workspace_id: a.workspace_id,
    folder_id: a.folder_id,
    display_file_name: a.display_file_name,
    file_name: a.file_name,
    file_type: a.file_type as FileType,
    mime_type: a.mime_type,
    file_size: a.file_size,
    width: a.width,
    height: a.height,
    orientation: a.orientation as Orientation | null,
    tags: a.tags,
    visibility: a.visibility,
    metadata: a.metadata,
    created_by: a.created_by,
    created_at: a.created_at,
    modified_at: a.modified_at,
  };
}

export class AssetService {
  constructor(private readonly ctx: AppContext) {}

  async list(caller: Caller, q: Static<typeof AssetListQuery>): Promise<PageView<AssetView>> {
    const { db } = this.ctx;
    await requireRole(db, q.workspaceId, caller.id, 'viewer');
    const folderId = folderFilter(q.folder_id);
    if (typeof folderId === 'number' && !(await folderExistsInWorkspace(db, q.workspaceId, folderId))) {
      throw badReference('folder_id', `folder ${folderId} does not exist in workspace ${q.workspaceId}`);
    }
    const w = pageWindow(q);
    const { items, total } = await assets.listAssets(db, q.workspaceId, folderId, w);
    return { items: items.map(toAssetView), page: w.page, per_page: w.per_page, total };
  }

  async get(caller: Caller, id: number): Promise<AssetView> {
    return toAssetView(await this.load(caller, id, 'viewer'));
  }

  async update(caller: Caller, id: number, patch: Static<typeof AssetPatchBody>): Promise<AssetView> {
    const asset = await this.load(caller, id, 'manager');
    const ws = asset.workspace_id;
    if (typeof patch.folder_id === 'number' && !(await folderExistsInWorkspace(this.ctx.db, ws, patch.folder_id))) {
      throw badReference('folder_id', `folder ${patch.folder_id} does not exist in this asset's workspace`);
    }
    await assets.updateAsset(this.ctx.db, ws, id, patch, this.ctx.now());
    return this.get(caller, id);
  }

  /** Deletes the asset; foreign keys take it out of collections, whose positions are then closed up. */
  async remove(caller: Caller, id: number): Promise<void> {
    const asset = await this.load(caller, id, 'manager');
    const ws = asset.workspace_id;
    await this.ctx.db.transaction().execute(async (trx) => {
      const touched = await collections.collectionsContaining(trx, ws, id);
      await assets.deleteAsset(trx, ws, id);
      await collections.renumber(trx, ws, touched);
    });
  }

  /** An asset still 'uploading' is not in the catalog yet: 404 like a missing one. */
  private load(caller: Caller, id: number, min: 'viewer' | 'manager'): Promise<assets.AssetRecord> {
    const ready = async () => {
      const found = await assets.findAsset(this.ctx.db, id);
      return found?.status === 'ready' ? found : undefined;
    };
    return loadAuthorized(this.ctx.db, 'Asset', ready, caller.id, min);
  }
}
