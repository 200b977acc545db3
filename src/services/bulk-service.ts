import type { Transaction } from 'kysely';
import type { AppContext } from '../context.js';
import type { Database } from '../db/schema.js';
import { diffFields } from '../domain/activity.js';
import * as assets from '../repositories/assets.js';
import { folderExistsInWorkspace } from '../repositories/folders.js';
import { trashAssets } from '../repositories/trash.js';
import type { BulkAction, BulkRequest, BulkResultsView } from '../contracts/bulk.js';
import type { ItemResult } from '../contracts/trash.js';
import { requireRole } from './access.js';
import { ActivityService, assetSubject } from './activity-service.js';
import type { Caller } from './auth-service.js';
import { badReference } from './catalog-access.js';
import type { SearchService } from './search-service.js';
import { checkSelection, searchedAssets } from './bulk-selection.js';

/** The most tags an asset may carry (as PATCH /dam/assets/:id allows). */
const MAX_TAGS = 100;

type Field = 'folder_id' | 'tags' | 'visibility';
/** The one field each action takes; the others must be absent. */
const FIELD_OF: Record<BulkAction, Field | null> = { delete: null, move: 'folder_id', tag: 'tags', untag: 'tags', set_visibility: 'visibility' };

/**
 * A search-based request's assets are written this many at a time, each chunk in its own transaction under the
 * workspace lock, so that other writers of the workspace wait for one chunk, not for ten thousand assets. An
 * asset_ids request (at most 1,000) is one chunk.
 */
const CHUNK = 1000;

/** Which field an action is missing, or carries without taking it: the first 400 of an ill-formed combination. */
function checkCombination(body: BulkRequest): void {
  checkSelection(body);
  const wanted = FIELD_OF[body.action];
  for (const field of ['folder_id', 'tags', 'visibility'] as const) {
    const present = body[field] !== undefined;
    if (field === wanted && !present) throw badReference(field, `required for action ${body.action}`);
    if (field !== wanted && present) throw badReference(field, `not taken by action ${body.action}`);
  }
}

/** The asset's tags after the action, or null when they would exceed MAX_TAGS. */
function retag(current: readonly string[], tags: readonly string[], action: 'tag' | 'untag'): string[] | null {
  if (action === 'untag') return current.filter((t) => !tags.includes(t));
  const merged = [...new Set([...current, ...tags])];
  return merged.length > MAX_TAGS ? null : merged;
}

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((t, i) => t === b[i]);

/**
 * POST /dam/assets/bulk (issue #11): one action on up to 1,000 assets of one workspace, in one
 * transaction under the workspace row lock, answered per asset. An id that is not a shown asset of
 * the workspace (missing, uploading, in the trash, or in another workspace: indistinguishable) is a
 * NOT_FOUND result and changes nothing; the others are acted on.
 * Or (issue #27) on every asset a search finds for the caller, less except_ids: the search is run
 * once, capped at DAM_BULK_SEARCH_MAX, and its assets acted on in chunks; the answer counts them and
 * lists only the failures.
 */
export class BulkService {
  constructor(
    private readonly ctx: AppContext,
    private readonly search: SearchService,
  ) {}

  async run(caller: Caller, body: BulkRequest): Promise<BulkResultsView> {
    checkCombination(body);
    await requireRole(this.ctx.db, body.workspaceId, caller.id, 'manager');
    if (body.asset_ids) return { results: await this.runChunk(caller, body, body.asset_ids) };
    const ids = await searchedAssets(this.ctx, this.search, caller, body);
    const failed: ItemResult[] = [];
    for (let at = 0; at < ids.length; at += CHUNK) {
      failed.push(...(await this.runChunk(caller, body, ids.slice(at, at + CHUNK))).filter((r) => !r.ok));
    }
    return { results: failed, matched: ids.length, succeeded: ids.length - failed.length };
  }

  /** The action on up to CHUNK ids, in one transaction under the workspace lock; a result per id in the order given. */
  private runChunk(caller: Caller, body: BulkRequest, assetIds: readonly number[]): Promise<ItemResult[]> {
    const ws = body.workspaceId;
    return this.ctx.db.transaction().execute(async (trx) => {
      await this.ctx.database.support.lockRow(trx, 'workspaces', ws);
      if (body.action === 'move' && typeof body.folder_id === 'number' && !(await folderExistsInWorkspace(trx, ws, body.folder_id))) {
        throw badReference('folder_id', `folder ${body.folder_id} does not exist in workspace ${ws}`);
      }
      const found = new Map((await assets.assetsInWorkspace(trx, ws, assetIds)).map((a) => [a.id, a]));
      const failed = await this.apply(trx, caller, body, [...found.values()]);
      return assetIds.map((id): ItemResult => {
        if (!found.has(id)) return { id, ok: false, code: 'NOT_FOUND', error: `Asset ${id} not found` };
        const error = failed.get(id);
        return error ? { id, ok: false, code: 'VALIDATION_ERROR', error } : { id, ok: true };
      });
    });
  }

  /** Applies the action to the assets found, logging each change as the single-asset routes do; returns the ids it could not act on, with why. */
  private async apply(trx: Transaction<Database>, caller: Caller, body: BulkRequest, targets: assets.AssetRecord[]): Promise<Map<number, string>> {
    const ws = body.workspaceId;
    const ids = targets.map((a) => a.id);
    const now = this.ctx.now();
    const failed = new Map<number, string>();
    const entry = (a: assets.AssetRecord) => ({ workspaceId: ws, actor: caller, subject: assetSubject(a), at: now });
    switch (body.action) {
      case 'delete':
        await trashAssets(trx, ws, ids, { deleted_at: now, deleted_by: caller.id });
        for (const a of targets) await ActivityService.record(trx, { ...entry(a), action: 'asset.trash' });
        break;
      case 'move': {
        const patch = { folder_id: body.folder_id ?? null };
        await assets.updateAssets(trx, ws, ids, patch, now);
        for (const a of targets) await ActivityService.recordChanges(trx, { ...entry(a), action: 'asset.move', changes: diffFields<assets.AssetPatch>(a, patch, ['folder_id']) });
        break;
      }
      case 'set_visibility': {
        const patch = { visibility: body.visibility ?? 0 };
        await assets.updateAssets(trx, ws, ids, patch, now);
        for (const a of targets) await ActivityService.recordChanges(trx, { ...entry(a), action: 'asset.update', changes: diffFields<assets.AssetPatch>(a, patch, ['visibility']) });
        break;
      }
      case 'tag':
      case 'untag':
        for (const a of targets) {
          const tags = retag(a.tags, body.tags ?? [], body.action);
          if (tags === null) {
            failed.set(a.id, `tags: asset ${a.id} would have more than ${MAX_TAGS} tags`);
          } else if (!same(tags, a.tags)) {
            await assets.updateAsset(trx, ws, a.id, { tags }, now);
            await ActivityService.record(trx, { ...entry(a), action: 'asset.update', changes: diffFields<assets.AssetPatch>(a, { tags }, ['tags']) });
          }
        }
        break;
    }
    return failed;
  }
}
