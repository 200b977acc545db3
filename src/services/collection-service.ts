import type { Static } from 'typebox';
import type { AppContext } from '../context.js';
import type { DB } from '../db/database.js';
import { diffFields, listChange } from '../domain/activity.js';
import { ALL_ASSETS, type AssetSight } from '../domain/asset-visibility.js';
import { notFound } from '../errors.js';
import { assetIdsInWorkspace } from '../repositories/assets.js';
import * as repo from '../repositories/collections.js';
import { trashCollection } from '../repositories/trash.js';
import type {
  CollectionCreateBody,
  CollectionDetailView,
  CollectionListQuery,
  CollectionPatchBody,
  CollectionView,
  PageView,
} from '../contracts/catalog.js';
import { requireRole } from './access.js';
import { findRole } from '../repositories/workspaces.js';
import { readOne, writeCustomFields } from './custom-fields/custom-values.js';
import { ActivityService } from './activity-service.js';
import type { Caller } from './auth-service.js';
import { badReference, loadAuthorized, listWindow, requirePermanentDeletion } from './catalog-access.js';
import { requireSight } from './visibility.js';

const collectionSubject = (c: { id: number; name: string }) => ({ kind: 'collection' as const, id: c.id, name: c.name });

export function toCollectionView(c: repo.CollectionRecord): CollectionView {
  return {
    id: c.id,
    workspace_id: c.workspace_id,
    name: c.name,
    description: c.description,
    visibility: c.visibility,
    tags: c.tags,
    asset_count: c.asset_count,
    created_at: c.created_at,
    modified_at: c.modified_at,
  };
}

/**
 * Curated, ordered lists of assets of one workspace. Membership changes run
 * in a transaction holding the workspace row lock and bump modified_at.
 */
export class CollectionService {
  constructor(private readonly ctx: AppContext) {}

  async list(caller: Caller, q: Static<typeof CollectionListQuery>): Promise<PageView<CollectionView>> {
    // asset_count as the caller sees the members: a viewer's leaves out others' private assets (domain/asset-visibility.ts).
    const sight = await requireSight(this.ctx.db, q.workspaceId, caller.id);
    const w = listWindow(q, 'collections');
    const { items, total } = await repo.listCollections(this.ctx.db, q.workspaceId, w, sight);
    return { items: items.map(toCollectionView), page: w.page, per_page: w.per_page, total };
  }

  async create(caller: Caller, body: Static<typeof CollectionCreateBody>): Promise<CollectionDetailView> {
    await requireRole(this.ctx.db, body.workspace_id, caller.id, 'manager');
    return this.ctx.db.transaction().execute(async (trx) => {
      const id = await repo.insertCollection(trx, {
        workspace_id: body.workspace_id,
        name: body.name,
        description: body.description ?? '',
        visibility: body.visibility ?? 0,
        tags: body.tags ?? [],
        now: this.ctx.now(),
      });
      const subject = collectionSubject({ id, name: body.name });
      await ActivityService.record(trx, { workspaceId: body.workspace_id, actor: caller, action: 'collection.create', subject, at: this.ctx.now() });
      return this.detail(trx, id, ALL_ASSETS);
    });
  }

  /** asset_ids and asset_count as the caller sees the members (domain/asset-visibility.ts). */
  async get(caller: Caller, id: number): Promise<CollectionDetailView> {
    const c = await this.load(caller, id, 'viewer');
    return this.detail(this.ctx.db, id, await requireSight(this.ctx.db, c.workspace_id, caller.id));
  }

  async update(caller: Caller, id: number, patch: Static<typeof CollectionPatchBody>): Promise<CollectionDetailView> {
    const c = await this.load(caller, id, 'manager');
    const ws = c.workspace_id;
    return this.ctx.db.transaction().execute(async (trx) => {
      await this.ctx.database.support.lockRow(trx, 'workspaces', ws);
      const before = (await repo.findCollection(trx, id, ALL_ASSETS)) ?? c;
      const { custom_fields: customFields, ...fields } = patch;
      // Custom fields (issue #30) first: a value refused leaves the whole PATCH undone.
      const role = (await findRole(trx, ws, caller.id)) ?? 'viewer';
      const custom = customFields ? await writeCustomFields(trx, ws, 'collection', id, role, customFields) : undefined;
      await repo.updateCollection(trx, ws, id, fields, this.ctx.now());
      const changes = diffFields<repo.CollectionPatch>(before, fields, ['name', 'description', 'visibility', 'tags']);
      if (custom) changes.custom_fields = custom;
      const subject = collectionSubject({ ...before, ...patch });
      await ActivityService.recordChanges(trx, { workspaceId: ws, actor: caller, action: 'collection.update', subject, changes, at: this.ctx.now() });
      return this.detail(trx, id, ALL_ASSETS);
    });
  }

  /** To the trash (members stay, for a restore), or with `permanent` (admins) deleted at once. */
  async remove(caller: Caller, id: number, permanent = false): Promise<void> {
    const c = await this.load(caller, id, 'manager');
    const entry = { workspaceId: c.workspace_id, actor: caller, subject: collectionSubject(c), at: this.ctx.now() };
    if (!permanent) {
      await this.ctx.db.transaction().execute(async (trx) => {
        await trashCollection(trx, c.workspace_id, id, { deleted_at: this.ctx.now(), deleted_by: caller.id });
        await ActivityService.record(trx, { ...entry, action: 'collection.trash' });
      });
      return;
    }
    await requirePermanentDeletion(this.ctx.db, c.workspace_id, caller.id);
    await this.ctx.db.transaction().execute(async (trx) => {
      await repo.deleteCollection(trx, c.workspace_id, id);
      await ActivityService.record(trx, { ...entry, action: 'collection.delete' });
    });
  }

  /** Appends in the given order; ids already in the collection keep their place. Every id must be an asset of the collection's workspace. */
  async addAssets(caller: Caller, id: number, assetIds: number[]): Promise<CollectionDetailView> {
    const c = await this.load(caller, id, 'manager');
    const ws = c.workspace_id;
    return this.ctx.db.transaction().execute(async (trx) => {
      await this.ctx.database.support.lockRow(trx, 'workspaces', ws);
      const known = await assetIdsInWorkspace(trx, ws, assetIds);
      const unknown = assetIds.filter((a) => !known.has(a));
      if (unknown.length > 0) {
        throw badReference('asset_ids', `no asset ${unknown.join(', ')} in this collection's workspace`);
      }
      const present = new Set(await repo.collectionAssetIds(trx, ws, id, ALL_ASSETS));
      const fresh = assetIds.filter((a) => !present.has(a));
      if (fresh.length > 0) {
        await repo.appendAssets(trx, id, fresh, await repo.nextPosition(trx, id), this.ctx.now());
        await repo.updateCollection(trx, ws, id, {}, this.ctx.now());
        const entry = { workspaceId: ws, actor: caller, subject: collectionSubject(c), at: this.ctx.now() };
        await ActivityService.record(trx, { ...entry, action: 'collection.add_assets', changes: { asset_ids: listChange(fresh, 'added') } });
      }
      return this.detail(trx, id, ALL_ASSETS);
    });
  }

  /** Removes the given ids; ids that are not in the collection are ignored (the call is idempotent). */
  async removeAssets(caller: Caller, id: number, assetIds: number[]): Promise<CollectionDetailView> {
    const c = await this.load(caller, id, 'manager');
    const ws = c.workspace_id;
    return this.ctx.db.transaction().execute(async (trx) => {
      await this.ctx.database.support.lockRow(trx, 'workspaces', ws);
      const present = new Set(await repo.collectionAssetIds(trx, ws, id, ALL_ASSETS));
      const leaving = assetIds.filter((a) => present.has(a));
      if ((await repo.removeAssets(trx, id, assetIds)) > 0) {
        await repo.renumber(trx, ws, [id]);
        await repo.updateCollection(trx, ws, id, {}, this.ctx.now());
      }
      if (leaving.length > 0) {
        const entry = { workspaceId: ws, actor: caller, subject: collectionSubject(c), at: this.ctx.now() };
        await ActivityService.record(trx, { ...entry, action: 'collection.remove_assets', changes: { asset_ids: listChange(leaving, 'removed') } });
      }
      return this.detail(trx, id, ALL_ASSETS);
    });
  }

  /** Managers' and admins' answers (every change is theirs) see every member: ALL_ASSETS. */
  private async detail(db: DB, id: number, sight: AssetSight): Promise<CollectionDetailView> {
    const c = await repo.findCollection(db, id, sight);
    if (!c) throw notFound('Collection'); // deleted concurrently
    const assetIds = await repo.collectionAssetIds(db, c.workspace_id, id, sight);
    return { ...toCollectionView(c), asset_ids: assetIds, ...(await readOne(db, c.workspace_id, 'collection', id)) };
  }

  private load(caller: Caller, id: number, min: 'viewer' | 'manager'): Promise<repo.CollectionRecord> {
    return loadAuthorized(this.ctx.db, 'Collection', () => repo.findCollection(this.ctx.db, id, ALL_ASSETS), caller.id, min);
  }
}
