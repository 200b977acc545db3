import type { Transaction } from 'kysely';
import type { Static } from 'typebox';
import type { AppContext } from '../context.js';
import type { Database } from '../db/schema.js';
import type { ActivityAction, Changes, SubjectKind } from '../domain/activity.js';
import type { AssetSight } from '../domain/asset-visibility.js';
import * as repo from '../repositories/activity.js';
import { visibleAmong } from '../repositories/assets.js';
import type { ActivityPageView, ActivityQuery, ActivityView } from '../contracts/activity.js';
import type { Caller } from './auth-service.js';
import { requireSight } from './visibility.js';

/** Who made a change: the caller (a Caller fits), or null for the system (housekeeping). */
export type Actor = Pick<Caller, 'id' | 'name' | 'email'> | null;

export interface ActivityEntry {
  workspaceId: number;
  actor: Actor;
  action: ActivityAction;
  /** What changed; `name` as it reads after the change (before it, for a deletion). */
  subject: { kind: SubjectKind; id: number; name: string };
  /** The asset whose history shows the entry; defaults to the subject when the subject is an asset. */
  assetId?: number | null;
  /** Only the fields that changed, built with diffFields / diffMap / listChange (src/domain/activity.ts). */
  changes?: Changes;
  /** Unix seconds, from the app's clock (`ctx.now()`). */
  at: number;
}

export const assetSubject = (a: { id: number; display_file_name: string }) => ({ kind: 'asset' as const, id: a.id, name: a.display_file_name });

function toView(r: repo.ActivityRecord): ActivityView {
  return {
    id: r.id,
    workspace_id: r.workspace_id,
    action: r.action as ActivityAction,
    actor: { id: r.actor_id, name: r.actor_name },
    subject: { kind: r.subject_kind as SubjectKind, id: r.subject_id, name: r.subject_name },
    asset_id: r.asset_id,
    changes: r.changes,
    created_at: r.created_at,
  };
}

/** The activity log: every change is recorded by the service that makes it, next to its write. */
export class ActivityService {
  constructor(private readonly ctx: AppContext) {}

  /**
   * Records one change. Takes the change's own transaction (the type insists), so a change that rolls back
   * leaves no entry and an entry never describes a change that did not happen.
   */
  static async record(trx: Transaction<Database>, e: ActivityEntry): Promise<void> {
    await repo.insertActivity(trx, {
      workspace_id: e.workspaceId,
      actor_id: e.actor?.id ?? null,
      actor_name: e.actor ? e.actor.name || e.actor.email : 'system',
      action: e.action,
      subject_kind: e.subject.kind,
      subject_id: e.subject.id,
      subject_name: e.subject.name,
      asset_id: e.assetId !== undefined ? e.assetId : e.subject.kind === 'asset' ? e.subject.id : null,
      changes: e.changes ?? {},
      created_at: e.at,
    });
  }

  /** record(), unless nothing changed (a PATCH that repeats the current values records nothing). */
  static async recordChanges(trx: Transaction<Database>, e: ActivityEntry & { changes: Changes }): Promise<void> {
    if (Object.keys(e.changes).length > 0) await ActivityService.record(trx, e);
  }

  /**
   * Newest first, `limit` per page; `next_before` is the cursor of the next page, null after the last. For a viewer,
   * entries about others' private assets are left out, and so are such assets' ids in collection membership entries
   * (an entry left with none goes too): the viewer reads the history of what they see (domain/asset-visibility.ts).
   */
  async list(caller: Caller, q: Static<typeof ActivityQuery>): Promise<ActivityPageView> {
    const sight = await requireSight(this.ctx.db, q.workspaceId, caller.id);
    const limit = q.limit ?? 50;
    const rows = await repo.listActivity(this.ctx.db, {
      workspaceId: q.workspaceId,
      assetId: q.asset_id,
      actorId: q.user_id,
      before: q.before,
      limit: limit + 1,
      sight,
    });
    const page = rows.slice(0, limit);
    const items = (await this.membershipSeenBy(q.workspaceId, sight, page)).map(toView);
    return { items, next_before: rows.length > limit ? page[page.length - 1]!.id : null };
  }

  /** collection.add_assets / remove_assets entries with only the asset ids `sight` sees; entries left with none dropped. */
  private async membershipSeenBy(workspaceId: number, sight: AssetSight, rows: repo.ActivityRecord[]): Promise<repo.ActivityRecord[]> {
    if (sight.kind === 'all') return rows;
    const listed = (r: repo.ActivityRecord) => {
      const change = r.changes.asset_ids;
      return [change?.before, change?.after].flatMap((ids) => (Array.isArray(ids) ? ids.filter((id): id is number => typeof id === 'number') : []));
    };
    const ids = rows.flatMap(listed);
    if (ids.length === 0) return rows;
    const visible = await visibleAmong(this.ctx.db, workspaceId, sight, ids);
    const out: repo.ActivityRecord[] = [];
    for (const r of rows) {
      const mentioned = listed(r);
      if (mentioned.length === 0) {
        out.push(r);
        continue;
      }
      if (!mentioned.some((id) => visible.has(id))) continue;
      const keep = (value: unknown) => (Array.isArray(value) ? value.filter((id) => typeof id !== 'number' || visible.has(id)) : value);
      const change = r.changes.asset_ids!;
      out.push({ ...r, changes: { ...r.changes, asset_ids: { ...change, before: keep(change.before), after: keep(change.after) } } });
    }
    return out;
  }
}
