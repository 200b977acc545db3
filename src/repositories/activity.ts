import type { DB } from '../db/database.js';
import type { ActivityTable } from '../db/schema.js';
import type { Changes } from '../domain/activity.js';
import { visibleAssetsSql, type AssetSight } from '../domain/asset-visibility.js';
import { parseObject } from './assets.js';

/** SQL for the activity log. `changes` is JSON text in the table, serialised and parsed here. */
export type NewActivity = Omit<ActivityTable, 'id' | 'changes'> & { changes: Changes };

export interface ActivityRecord extends NewActivity {
  id: number;
}

export async function insertActivity(db: DB, entry: NewActivity): Promise<void> {
  await db
    .insertInto('activity')
    .values({ ...entry, changes: JSON.stringify(entry.changes) })
    .execute();
}

export interface ActivityFilter {
  workspaceId: number;
  assetId?: number;
  actorId?: number;
  /** Only entries with a smaller id (the cursor). */
  before?: number;
  limit: number;
  /**
   * Entries about an asset (asset_id set) only when the asset exists and this sight sees it (domain/asset-visibility.ts);
   * an asset deleted for good is no longer known to be public, so a restricted sight no longer sees its entries.
   */
  sight: AssetSight;
}

/** Newest first (by id), through the index of the filter given. */
export async function listActivity(db: DB, f: ActivityFilter): Promise<ActivityRecord[]> {
  let q = db.selectFrom('activity').selectAll().where('workspace_id', '=', f.workspaceId);
  const visible = visibleAssetsSql(f.sight, 'a');
  if (visible) {
    q = q.where((eb) =>
      eb.or([
        eb('asset_id', 'is', null),
        eb(
          'asset_id',
          'in',
          eb.selectFrom('assets as a').select('a.id').where('a.workspace_id', '=', f.workspaceId).where(visible),
        ),
      ]),
    );
  }
  if (f.assetId !== undefined) q = q.where('asset_id', '=', f.assetId);
  if (f.actorId !== undefined) q = q.where('actor_id', '=', f.actorId);
  if (f.before !== undefined) q = q.where('id', '<', f.before);
  const rows = await q.orderBy('id', 'desc').limit(f.limit).execute();
  return rows.map((row) => ({ ...row, changes: parseObject(row.changes) as Changes }));
}
