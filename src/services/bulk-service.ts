import type { Transaction } from 'kysely';
import type { AppContext } from '../context.js';
import type { Database } from '../db/schema.js';
import { diffFields } from '../domain/activity.js';
import * as assets from '../repositories/assets.js';
import { folderExistsInWorkspace } from '../repositories/folders.js';
import { trashAssets } from '../repositories/trash.js';
import type { BulkAction, BulkRequest } from '../routes/bulk-schemas.js';
import type { ItemResult } from '../routes/trash-schemas.js';
import { requireRole } from './access.js';
import { ActivityService, assetSubject } from './activity-service.js';
import type { Caller } from './auth-service.js';
import { badReference } from './catalog-access.js';

/** The most tags an asset may carry (as PATCH /dam/assets/:id allows). */
const MAX_TAGS = 100;

type Field = 'folder_id' | 'tags' | 'visibility';
/** The one field each action takes; the others must be absent. */
const FIELD_OF: Record<BulkAction, Field | null> = { delete: null, move: 'folder_id', tag: 'tags', untag: 'tags', set_visibility: 'visibility' };

/** Which field an action is missing, or carries without taking it: the first 400 of an ill-formed combination. */
function checkCombination(body: BulkRequest): void {
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
 */
export class BulkService {
  constructor(private readonly ctx: AppContext) {}

  async run(caller: Caller, body: BulkRequest): Promise<{ results: ItemResult[] }> {
    checkCombination(body);
    const ws = body.workspaceId;
    await requireRole(this.ctx.db, ws, caller.id, 'manager');
    return this.ctx.db.transaction().execute(async (trx) => {
      await this.ctx.database.support.lockRow(trx, 'workspaces', ws);
      if (body.action === 'move' && typeof body.folder_id === 'number' && !(await folderExistsInWorkspace(trx, ws, body.folder_id))) {
        throw badReference('folder_id', `folder ${body.folder_id} does not exist in workspace ${ws}`);
      }
      const found = new Map((await assets.assetsInWorkspace(trx, ws, body.asset_ids)).map((a) => [a.id, a]));
      const failed = await this.apply(trx, caller, body, [...found.values()]);
      return {
        results: body.asset_ids.map((id): ItemResult => {
          if (!found.has(id)) return { id, ok: false, code: 'NOT_FOUND', error: `Asset ${id} not found` };
          const error = failed.get(id);
          return error ? { id, ok: false, code: 'VALIDATION_ERROR', error } : { id, ok: true };
        }),
      };
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
