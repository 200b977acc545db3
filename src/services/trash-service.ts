import type { Transaction } from 'kysely';
import type { Static } from 'typebox';
import type { AppContext } from '../context.js';
import type { Database } from '../db/schema.js';
import type { Changes } from '../domain/activity.js';
import type { FileType } from '../domain/file-types.js';
import type { MediaGrant } from '../media/links.js';
import { renumber } from '../repositories/collections.js';
import * as trash from '../repositories/trash.js';
import { findWorkspace } from '../repositories/workspaces.js';
import type { PageView } from '../contracts/catalog.js';
import type {
  RestoreResultsView,
  TrashEmptiedView,
  TrashItemView,
  TrashListQuery,
  TrashRestoreBody,
} from '../contracts/trash.js';
import { requireRole } from './access.js';
import { ActivityService, type Actor } from './activity-service.js';
import type { Caller } from './auth-service.js';
import { badReference, pageWindow } from './catalog-access.js';
import { requireSight } from './visibility.js';
import { EXAMPLES, type SweepGuard } from './sweeps/sweep-guard.js';

/** thumbnail_url of the current version of each asset (VersionService.currentLinks), for the caller (`grant`). */
export type ThumbnailLinks = (assetIds: readonly number[], grant: MediaGrant) => Promise<Map<number, { thumbnail_url: string }>>;

const DAY = 86_400;
const LABEL: Record<trash.TrashKind, string> = { asset: 'Asset', folder: 'Folder', collection: 'Collection' };

/**
 * The trash of a workspace (issue #11): what DELETE moved there, listed, restored where it was,
 * emptied, and purged by housekeeping DAM_TRASH_DAYS after deletion. Deleting (trashing) itself is
 * done by the asset, folder and collection services; every change here holds the workspace row
 * lock, as folder tree changes do.
 */
export class TrashService {
  constructor(
    private readonly ctx: AppContext,
    private readonly thumbnails: ThumbnailLinks,
    private readonly guard: SweepGuard,
  ) {}

  async list(caller: Caller, q: Static<typeof TrashListQuery>): Promise<PageView<TrashItemView>> {
    // A viewer's trash holds the public assets and their own private ones, as their library does (domain/asset-visibility.ts).
    const sight = await requireSight(this.ctx.db, q.workspaceId, caller.id);
    const w = pageWindow(q);
    const { items, total } = await trash.listTrash(this.ctx.db, q.workspaceId, w, sight);
    const links = await this.thumbnails(
      items.filter((i) => i.kind === 'asset').map((i) => i.id),
      { userId: caller.id },
    );
    const keep = this.ctx.config.trashDays * DAY;
    const views = items.map(
      (i): TrashItemView => ({
        kind: i.kind,
        id: i.id,
        name: i.name,
        folder_id: i.folder_id,
        deleted_at: i.deleted_at,
        purge_at: i.deleted_at + keep,
        deleted_by: i.deleted_by === null ? null : i.deleted_by_name || i.deleted_by_email,
        file_type: i.file_type as FileType | null,
        mime_type: i.mime_type,
        file_size: i.file_size,
        thumbnail_url: i.kind === 'asset' ? (links.get(i.id)?.thumbnail_url ?? null) : null,
      }),
    );
    return { items: views, page: w.page, per_page: w.per_page, total };
  }

  /**
   * Brings items back where they were. A folder comes back with the subfolders and assets trashed
   * together with it (its batch); items trashed on their own before stay in the trash. Whatever is
   * restored gets its folder and the folders above it out of the trash too (the rows only, not their
   * other contents). An item whose folder is gone (deleted with permanent=true) is at the top level.
   */
  async restore(caller: Caller, body: Static<typeof TrashRestoreBody>): Promise<RestoreResultsView> {
    const ws = body.workspaceId;
    await requireRole(this.ctx.db, ws, caller.id, 'manager');
    if (!body.asset_ids && !body.folder_ids && !body.collection_ids) {
      throw badReference('asset_ids', 'send at least one of asset_ids, folder_ids and collection_ids');
    }
    const asked: [trash.TrashKind, number[]][] = [
      ['folder', body.folder_ids ?? []],
      ['asset', body.asset_ids ?? []],
      ['collection', body.collection_ids ?? []],
    ];
    return this.inWorkspaceLock(ws, async (trx) => {
      // Read before anything is restored: an asset that comes back with its folder's batch is still a success.
      const trashed = new Map<trash.TrashKind, Map<number, { deleted_at: number; name: string }>>();
      for (const [kind, ids] of asked) trashed.set(kind, await trash.trashedAmong(trx, ws, kind, ids));
      const results: RestoreResultsView['results'] = [];
      for (const [kind, ids] of asked) {
        const found = trashed.get(kind)!;
        if (kind === 'folder') {
          for (const [id, item] of found) await trash.restoreFolderBatch(trx, ws, id, item.deleted_at);
        } else {
          await trash.restoreRows(trx, ws, kind, [...found.keys()]);
        }
        if (kind !== 'collection') {
          for (const parent of await trash.parentsOf(trx, ws, kind, [...found.keys()])) await trash.restoreFolderChain(trx, ws, parent);
        }
        for (const [id, item] of found) {
          const entry = { workspaceId: ws, actor: caller, subject: { kind, id, name: item.name }, at: this.ctx.now() };
          await ActivityService.record(trx, { ...entry, action: `${kind}.restore` });
        }
        for (const id of ids) {
          results.push(
            found.has(id)
              ? { kind, id, ok: true }
              : { kind, id, ok: false, code: 'NOT_FOUND', error: `${LABEL[kind]} ${id} is not in this workspace's trash` },
          );
        }
      }
      return { results };
    });
  }

  /** Deletes everything in the workspace's trash for good; the files are queued for deletion (housekeeping removes them). */
  async empty(caller: Caller, workspaceId: number): Promise<TrashEmptiedView> {
    await requireRole(this.ctx.db, workspaceId, caller.id, 'admin');
    const deleted = await this.inWorkspaceLock(workspaceId, (trx) => this.deleteTrashed(trx, workspaceId, null, caller));
    return { deleted_assets: deleted.assets, deleted_folders: deleted.folders, deleted_collections: deleted.collections };
  }

  /**
   * Housekeeping: deletes what has been in any trash for more than DAM_TRASH_DAYS, at most DAM_SWEEP_BATCH assets a run
   * (the rest next run), and in a workspace where that is more than DAM_SWEEP_MAX_PERCENT of its assets only once an
   * instance admin confirmed it (SweepGuard, issue #37). Returns how many rows went.
   */
  async purgeExpired(): Promise<number> {
    const cutoff = this.ctx.now() - this.ctx.config.trashDays * DAY;
    let budget = this.guard.batch;
    let purged = 0;
    for (const ws of await trash.workspacesWithTrashBefore(this.ctx.db, cutoff)) {
      if (budget <= 0) break;
      const expired = await trash.expiredTrashAssets(this.ctx.db, ws, cutoff, EXAMPLES);
      if (expired.count > 0) {
        const total = await trash.countWorkspaceAssets(this.ctx.db, ws);
        const plan = {
          sweep: 'trash' as const,
          workspaceId: ws,
          count: expired.count,
          total,
          summary: `would delete ${expired.count} of the workspace's ${total} assets (in the trash for more than ${this.ctx.config.trashDays} days)`,
          examples: expired.first.map((a) => `asset ${a.id} ${a.name}`),
        };
        if (!(await this.guard.allows(plan))) continue;
      }
      const limit = budget;
      const deleted = await this.inWorkspaceLock(ws, (trx) => this.deleteTrashed(trx, ws, cutoff, null, limit));
      budget -= deleted.assets;
      purged += deleted.assets + deleted.folders + deleted.collections;
    }
    await this.guard.settle('trash', async (ws) => (await trash.expiredTrashAssets(this.ctx.db, ws, cutoff, 0)).count > 0);
    return purged;
  }

  /**
   * Deletes trashed rows (all, or up to `cutoff`, then at most `limit` assets) and logs how many of each kind went: emptied by
   * `actor`, or purged (actor null).
   */
  private async deleteTrashed(trx: Transaction<Database>, ws: number, cutoff: number | null, actor: Actor, limit?: number) {
    const deleted = cutoff !== null && limit !== undefined ? await trash.deleteExpiredTrashBatch(trx, ws, cutoff, limit) : await trash.deleteTrashed(trx, ws, cutoff);
    // Trashed members kept their positions; close the gaps they leave.
    if (deleted.assets > 0) await renumber(trx, ws);
    // A purge run that found nothing left (another process was first) leaves no activity entry.
    if (!actor && deleted.assets + deleted.folders + deleted.collections === 0) return deleted;
    const changes: Changes = {};
    for (const [field, count] of Object.entries(deleted)) if (count > 0) changes[field] = { before: count, after: 0 };
    const workspace = await findWorkspace(trx, ws);
    await ActivityService.recordChanges(trx, {
      workspaceId: ws,
      actor,
      action: actor ? 'workspace.empty_trash' : 'workspace.purge_trash',
      subject: { kind: 'workspace', id: ws, name: workspace?.name ?? '' },
      changes,
      at: this.ctx.now(),
    });
    return deleted;
  }

  private inWorkspaceLock<T>(ws: number, fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return this.ctx.db.transaction().execute(async (trx) => {
      await this.ctx.database.support.lockRow(trx, 'workspaces', ws);
      return fn(trx);
    });
  }
}
