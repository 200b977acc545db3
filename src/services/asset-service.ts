import type { Static } from 'typebox';
import type { Transaction } from 'kysely';
import type { AppContext } from '../context.js';
import type { Database } from '../db/schema.js';
import { diffFields, diffMap, type FieldChange } from '../domain/activity.js';
import { EDITABLE_METADATA_FIELDS, type EditableMetadataField } from '../domain/embedded-metadata.js';
import type { FileType, Orientation } from '../domain/file-types.js';
import * as assets from '../repositories/assets.js';
import { findEmbeddedMetadata } from '../repositories/embedded-metadata.js';
import * as collections from '../repositories/collections.js';
import * as trash from '../repositories/trash.js';
import { folderExistsInWorkspace } from '../repositories/folders.js';
import type { AssetDetailView, AssetListItemView, AssetListQuery, AssetPatchBody, AssetView, PageView } from '../contracts/catalog.js';
import { ActivityService, assetSubject } from './activity-service.js';
import type { Caller } from './auth-service.js';
import { badReference, folderFilter, listWindow, requirePermanentDeletion } from './catalog-access.js';
import { loadVisibleAsset, requireSight } from './visibility.js';
import { findRole } from '../repositories/workspaces.js';
import { readCustomFields, readOne, writeCustomFields } from './custom-fields/custom-values.js';

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
    page_count: a.page_count,
    sha256: a.sha256,
    unreadable: a.unreadable_reason !== null,
    unreadable_reason: a.unreadable_reason,
    tags: a.tags,
    visibility: a.visibility,
    metadata: a.metadata,
    created_by: a.created_by,
    created_at: a.created_at,
    modified_at: a.modified_at,
    taken_at: a.taken_at,
    camera_make: a.camera_make,
    camera_model: a.camera_model,
    lens: a.lens,
    iso: a.iso,
    exposure: a.exposure,
    aperture: a.aperture,
    focal_length: a.focal_length,
    gps_lat: a.gps_lat,
    gps_lon: a.gps_lon,
    duration: a.duration,
    color_space: a.color_space,
    caption: a.caption,
    creator: a.creator,
    copyright: a.copyright,
    usage_terms: a.usage_terms,
    keywords: a.keywords,
    metadata_edited: a.metadata_edited.filter((f): f is EditableMetadataField => (EDITABLE_METADATA_FIELDS as readonly string[]).includes(f)),
    metadata_version_id: a.metadata_version_id,
  };
}

/**
 * A PATCH's edits of the embedded fields (issue #12): blank text clears a field (null), and every field sent joins
 * `metadata_edited`, so that reading the file again leaves it as the user set it.
 */
function embeddedEdits(before: assets.AssetRecord, patch: Static<typeof AssetPatchBody>): assets.AssetPatch {
  const edits: assets.AssetPatch = {};
  const sent = EDITABLE_METADATA_FIELDS.filter((f) => patch[f] !== undefined);
  if (sent.length === 0) return edits;
  for (const field of sent) edits[field] = patch[field]?.trim() ? patch[field] : null;
  edits.metadata_edited = [...new Set([...before.metadata_edited, ...sent])];
  return edits;
}

export class AssetService {
  constructor(private readonly ctx: AppContext) {}

  async list(caller: Caller, q: Static<typeof AssetListQuery>): Promise<PageView<AssetListItemView>> {
    const { db } = this.ctx;
    const sight = await requireSight(db, q.workspaceId, caller.id);
    const folderId = folderFilter(q.folder_id);
    if (q.recursive && typeof folderId !== 'number') {
      throw badReference('recursive', 'recursive=true lists the folders below one folder and needs folder_id=<folder id>');
    }
    if (typeof folderId === 'number' && !(await folderExistsInWorkspace(db, q.workspaceId, folderId))) {
      throw badReference('folder_id', `folder ${folderId} does not exist in workspace ${q.workspaceId}`);
    }
    const w = listWindow(q, 'assets');
    // A viewer's page and total hold the public assets and their own private ones (domain/asset-visibility.ts).
    const { items, total } = await assets.listAssets(db, q.workspaceId, folderId, w, sight, q.recursive === true);
    // Custom fields (issue #30) of the page's assets, in one read.
    const custom = await readCustomFields(db, q.workspaceId, 'asset', items.map((a) => a.id));
    return { items: items.map((a) => ({ ...toAssetView(a), ...custom.get(a.id)! })), page: w.page, per_page: w.per_page, total };
  }

  /** One asset with its embedded tag set (GET and PATCH /dam/assets/:id). */
  async get(caller: Caller, id: number): Promise<AssetDetailView> {
    const asset = await this.load(caller, id, 'viewer');
    const [embedded, custom] = await Promise.all([findEmbeddedMetadata(this.ctx.db, asset.id), readOne(this.ctx.db, asset.workspace_id, 'asset', asset.id)]);
    return { ...toAssetView(asset), embedded_metadata: embedded, ...custom };
  }

  async update(caller: Caller, id: number, body: Static<typeof AssetPatchBody>): Promise<AssetDetailView> {
    const asset = await this.load(caller, id, 'manager');
    const ws = asset.workspace_id;
    if (typeof body.folder_id === 'number' && !(await folderExistsInWorkspace(this.ctx.db, ws, body.folder_id))) {
      throw badReference('folder_id', `folder ${body.folder_id} does not exist in this asset's workspace`);
    }
    await this.ctx.db.transaction().execute(async (trx) => {
      // The values before the change, read under the row lock so that the log's `before` is what this write replaced.
      await this.ctx.database.support.lockRow(trx, 'assets', id);
      const before = (await assets.findAsset(trx, id)) ?? asset;
      const { custom_fields: customFields, ...fields } = body;
      const patch: assets.AssetPatch = { ...fields, ...embeddedEdits(before, fields) };
      // Custom fields (issue #30) are checked and written first: a value refused leaves the whole PATCH undone.
      const role = (await findRole(trx, ws, caller.id)) ?? 'viewer';
      const custom = customFields ? await writeCustomFields(trx, ws, 'asset', id, role, customFields) : undefined;
      await assets.updateAsset(trx, ws, id, patch, this.ctx.now());
      await this.recordEdit(trx, caller, before, patch, custom);
    });
    return this.get(caller, id);
  }

  /** A folder change is a move (asset.move); the other fields an edit (asset.update): one entry each, when they changed. */
  private async recordEdit(trx: Transaction<Database>, caller: Caller, before: assets.AssetRecord, patch: assets.AssetPatch, custom?: FieldChange): Promise<void> {
    const entry = { workspaceId: before.workspace_id, actor: caller, subject: assetSubject({ ...before, ...patch }), at: this.ctx.now() };
    const edited = diffFields<assets.AssetPatch>(before, patch, ['display_file_name', 'tags', 'visibility', ...EDITABLE_METADATA_FIELDS]);
    const metadata = patch.metadata && diffMap(before.metadata, patch.metadata);
    if (metadata) edited.metadata = metadata;
    if (custom) edited.custom_fields = custom;
    await ActivityService.recordChanges(trx, { ...entry, action: 'asset.update', changes: edited });
    await ActivityService.recordChanges(trx, { ...entry, action: 'asset.move', changes: diffFields<assets.AssetPatch>(before, patch, ['folder_id']) });
  }

  /**
   * Moves the asset to the trash (it keeps its collection memberships, hidden until restored), or with
   * `permanent` (admins) deletes it: foreign keys take it out of collections, whose positions are then closed up.
   */
  async remove(caller: Caller, id: number, permanent = false): Promise<void> {
    const asset = await this.load(caller, id, 'manager');
    const ws = asset.workspace_id;
    const entry = { workspaceId: ws, actor: caller, subject: assetSubject(asset), at: this.ctx.now() };
    if (!permanent) {
      await this.ctx.db.transaction().execute(async (trx) => {
        await trash.trashAssets(trx, ws, [id], { deleted_at: this.ctx.now(), deleted_by: caller.id });
        await ActivityService.record(trx, { ...entry, action: 'asset.trash' });
      });
      return;
    }
    await requirePermanentDeletion(this.ctx.db, ws, caller.id);
    await this.ctx.db.transaction().execute(async (trx) => {
      const touched = await collections.collectionsContaining(trx, ws, id);
      await assets.deleteAsset(trx, ws, id);
      await collections.renumber(trx, ws, touched);
      await ActivityService.record(trx, { ...entry, action: 'asset.delete' });
    });
  }

  /**
   * An asset still 'uploading' is not in the catalog yet, one in the trash no longer, and another's private asset is
   * not a viewer's to know of: 404 like a missing one.
   */
  private load(caller: Caller, id: number, min: 'viewer' | 'manager'): Promise<assets.AssetRecord> {
    return loadVisibleAsset(this.ctx.db, id, caller.id, min);
  }
}
