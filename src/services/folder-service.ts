import type { Transaction } from 'kysely';
import type { Static } from 'typebox';
import type { AppContext } from '../context.js';
import type { DB } from '../db/database.js';
import type { Database } from '../db/schema.js';
import { diffFields } from '../domain/activity.js';
import { appError } from '../errors.js';
import { renumber } from '../repositories/collections.js';
import * as folders from '../repositories/folders.js';
import { trashFolderTree } from '../repositories/trash.js';
import type { FolderCreateBody, FolderDetailView, FolderListItemView, FolderListQuery, FolderPatchBody, FolderView, PageView } from '../contracts/catalog.js';
import { findRole } from '../repositories/workspaces.js';
import { readOne, writeCustomFields } from './custom-fields/custom-values.js';
import { requireRole } from './access.js';
import { ActivityService } from './activity-service.js';
import type { Caller } from './auth-service.js';
import { badReference, folderFilter, loadAuthorized, listWindow, requirePermanentDeletion } from './catalog-access.js';
import { requireSight } from './visibility.js';

export function toFolderView(f: folders.FolderRecord): FolderView {
  return {
    id: f.id,
    workspace_id: f.workspace_id,
    parent_id: f.parent_id,
    name: f.name,
    visibility: f.visibility,
    tags: f.tags,
    created_at: f.created_at,
    modified_at: f.modified_at,
  };
}

const folderSubject = (f: { id: number; name: string }) => ({ kind: 'folder' as const, id: f.id, name: f.name });

export interface FolderDeletion {
  id: number;
  deleted_folders: number;
  deleted_assets: number;
}

/**
 * Folders nest through parent_id inside one workspace. Changes to the tree
 * (create under a parent, move, delete) run in a transaction holding the
 * workspace row lock, so that two concurrent moves cannot build a cycle.
 */
export class FolderService {
  constructor(private readonly ctx: AppContext) {}

  async list(caller: Caller, q: Static<typeof FolderListQuery>): Promise<PageView<FolderListItemView>> {
    const { db } = this.ctx;
    const sight = await requireSight(db, q.workspaceId, caller.id);
    const parentId = folderFilter(q.parent_id);
    if (typeof parentId === 'number' && !(await folders.folderExistsInWorkspace(db, q.workspaceId, parentId))) {
      throw badReference('parent_id', `folder ${parentId} does not exist in workspace ${q.workspaceId}`);
    }
    const w = listWindow(q, 'folders');
    const { items, total } = await folders.listFolders(db, q.workspaceId, parentId, w);
    // What is in each folder of the page (issue #27): a viewer's asset_count leaves out the private assets they do not see.
    const counts = await folders.contentCounts(db, q.workspaceId, items.map((f) => f.id), sight);
    return {
      items: items.map((f) => ({ ...toFolderView(f), asset_count: counts.assets.get(f.id) ?? 0, folder_count: counts.folders.get(f.id) ?? 0 })),
      page: w.page,
      per_page: w.per_page,
      total,
    };
  }

  async create(caller: Caller, body: Static<typeof FolderCreateBody>): Promise<FolderView> {
    const ws = body.workspace_id;
    await requireRole(this.ctx.db, ws, caller.id, 'manager');
    const created = await this.inTreeLock(ws, async (trx) => {
      const parentId = body.parent_id ?? null;
      if (parentId !== null) await this.assertParentInWorkspace(trx, ws, parentId);
      const folder = await folders.insertFolder(trx, {
        workspace_id: ws,
        parent_id: parentId,
        name: body.name,
        visibility: body.visibility ?? 0,
        tags: body.tags ?? [],
        now: this.ctx.now(),
      });
      await ActivityService.record(trx, { workspaceId: ws, actor: caller, action: 'folder.create', subject: folderSubject(folder), at: this.ctx.now() });
      return folder;
    });
    return toFolderView(created);
  }

  /** One folder with its custom fields (GET and PATCH /dam/folders/:id). */
  async get(caller: Caller, id: number): Promise<FolderDetailView> {
    const folder = await this.load(caller, id, 'viewer');
    return { ...toFolderView(folder), ...(await readOne(this.ctx.db, folder.workspace_id, 'folder', id)) };
  }

  async update(caller: Caller, id: number, patch: Static<typeof FolderPatchBody>): Promise<FolderDetailView> {
    const folder = await this.load(caller, id, 'manager');
    const ws = folder.workspace_id;
    await this.inTreeLock(ws, async (trx) => {
      if (typeof patch.parent_id === 'number') {
        await this.assertParentInWorkspace(trx, ws, patch.parent_id);
        const chain = await folders.ancestorIds(trx, ws, patch.parent_id);
        if (chain.includes(id)) {
          throw badReference('parent_id', `folder ${patch.parent_id} is this folder or one of its subfolders; a folder cannot be its own ancestor`);
        }
      }
      const before = (await folders.findFolder(trx, id)) ?? folder;
      const { custom_fields: customFields, ...fields } = patch;
      // Custom fields (issue #30) first: a value refused leaves the whole PATCH undone.
      const role = (await findRole(trx, ws, caller.id)) ?? 'viewer';
      const custom = customFields ? await writeCustomFields(trx, ws, 'folder', id, role, customFields) : undefined;
      await folders.updateFolder(trx, ws, id, fields, this.ctx.now());
      // A parent change is a move (folder.move); name, visibility and tags an edit (folder.update; a rename shows in changes.name).
      const entry = { workspaceId: ws, actor: caller, subject: folderSubject({ ...before, ...patch }), at: this.ctx.now() };
      const edited = diffFields<folders.FolderPatch>(before, fields, ['name', 'visibility', 'tags']);
      if (custom) edited.custom_fields = custom;
      await ActivityService.recordChanges(trx, { ...entry, action: 'folder.update', changes: edited });
      await ActivityService.recordChanges(trx, { ...entry, action: 'folder.move', changes: diffFields<folders.FolderPatch>(before, patch, ['parent_id']) });
    });
    return this.get(caller, id);
  }

  /**
   * A folder with subfolders or assets is 409 NOT_EMPTY unless recursive, which takes the whole subtree and its
   * assets. They move to the trash as one batch (one deleted_at, restored together), or with `permanent`
   * (admins) are deleted at once.
   */
  async remove(caller: Caller, id: number, recursive: boolean, permanent = false): Promise<FolderDeletion> {
    const folder = await this.load(caller, id, 'manager');
    const ws = folder.workspace_id;
    if (permanent) await requirePermanentDeletion(this.ctx.db, ws, caller.id);
    return this.inTreeLock(ws, async (trx) => {
      if (!recursive) {
        const contents = await folders.countContents(trx, ws, id);
        if (contents.folders > 0 || contents.assets > 0) {
          throw appError(
            'NOT_EMPTY',
            `Folder ${id} is not empty (${contents.folders} subfolders, ${contents.assets} assets); pass ?recursive=true to delete it with its contents`,
          );
        }
      }
      const entry = { workspaceId: ws, actor: caller, subject: folderSubject(folder), at: this.ctx.now() };
      if (!permanent) {
        const trashed = await trashFolderTree(trx, ws, id, { deleted_at: this.ctx.now(), deleted_by: caller.id });
        await ActivityService.record(trx, { ...entry, action: 'folder.trash' });
        return { id, deleted_folders: trashed.folders, deleted_assets: trashed.assets };
      }
      const deleted = await folders.deleteFolderTree(trx, ws, id);
      if (deleted.assets > 0) await renumber(trx, ws);
      await ActivityService.record(trx, { ...entry, action: 'folder.delete' });
      return { id, deleted_folders: deleted.folders, deleted_assets: deleted.assets };
    });
  }

  private async assertParentInWorkspace(db: DB, ws: number, parentId: number): Promise<void> {
    if (!(await folders.folderExistsInWorkspace(db, ws, parentId))) {
      throw badReference('parent_id', `folder ${parentId} does not exist in this workspace`);
    }
  }

  private inTreeLock<T>(ws: number, fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return this.ctx.db.transaction().execute(async (trx) => {
      await this.ctx.database.support.lockRow(trx, 'workspaces', ws);
      return fn(trx);
    });
  }

  private load(caller: Caller, id: number, min: 'viewer' | 'manager'): Promise<folders.FolderRecord> {
    return loadAuthorized(this.ctx.db, 'Folder', () => folders.findFolder(this.ctx.db, id), caller.id, min);
  }
}
