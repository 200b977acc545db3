import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Role } from '../db/schema.js';

/**
 * Who sees an asset (issue #27, section 2; docs/architecture/private-assets.md). The one rule:
 * - `visibility` 0 (public): every member of the workspace, and it is the only kind a public surface (a
 *   shared link) shows;
 * - any other value (private): its uploader (`assets.uploaded_by`), the workspace's managers and admins.
 *   For any other member it does not exist: 404 when asked for, absent from every list, count and facet.
 * Every read of assets asks this module, by the caller's sight in the asset's workspace: in JS for one
 * row (`sees`), in SQL for many (`visibleAssetsSql`).
 */
export type AssetSight =
  /** Managers and admins: every asset. */
  | { readonly kind: 'all' }
  /** Viewers: public assets and the private ones they uploaded. */
  | { readonly kind: 'public-and-own'; readonly userId: number }
  /** Public surfaces (shared links): public assets only. */
  | { readonly kind: 'public' };

export const ALL_ASSETS: AssetSight = { kind: 'all' };
export const PUBLIC_ASSETS: AssetSight = { kind: 'public' };

/** Not 0: private (seed 4.1's `visibility:!=0`). */
export function isPrivate(visibility: number): boolean {
  return visibility !== 0;
}

/** The sight of a member with `role`: managers and admins see every asset, viewers the public ones and their own. */
export function assetSight(role: Role, userId: number): AssetSight {
  return role === 'viewer' ? { kind: 'public-and-own', userId } : ALL_ASSETS;
}

/** Whether an asset is visible with `sight`. */
export function sees(sight: AssetSight, asset: { readonly visibility: number; readonly uploaded_by: number | null }): boolean {
  if (!isPrivate(asset.visibility) || sight.kind === 'all') return true;
  return sight.kind === 'public-and-own' && asset.uploaded_by === sight.userId;
}

/**
 * The same rule as a condition on the `visibility` and `uploaded_by` columns of `table` (an alias, or none for
 * the only table of the statement): `assets`, or the search index's `search_documents`, which copies both.
 * Null: no condition (every asset). The user id is a bound parameter; the rest is fixed text, so a prepared
 * statement (db/prepared.ts) may hold it.
 */
export function visibleAssetsSql(sight: AssetSight, table?: string): RawBuilder<SqlBool> | null {
  const column = (name: string) => sql.ref(table ? `${table}.${name}` : name);
  switch (sight.kind) {
    case 'all':
      return null;
    case 'public':
      return sql<SqlBool>`${column('visibility')} = 0`;
    case 'public-and-own':
      return sql<SqlBool>`(${column('visibility')} = 0 OR ${column('uploaded_by')} = ${sight.userId})`;
  }
}

/** A short text naming the sight, for cache keys: answers computed with different sights are different answers. */
export function sightKey(sight: AssetSight): string {
  return sight.kind === 'public-and-own' ? `own:${sight.userId}` : sight.kind;
}

/**
 * A read over several workspaces at once (a search over the caller's): the workspaces among them where the caller
 * is a viewer, whose assets show only when public or theirs. Null, or no workspaces: every asset of every one.
 */
export interface ViewerWorkspaces {
  readonly userId: number;
  readonly workspaceIds: readonly number[];
}

/**
 * The rule as one condition on `table`'s `workspace_id`, `visibility` and `uploaded_by` over the `searched`
 * workspaces: in those where the caller is a viewer, public or theirs; elsewhere anything. Null: no condition.
 */
export function visibleInWorkspacesSql(viewer: ViewerWorkspaces | null, table: string, searched: readonly number[]): RawBuilder<SqlBool> | null {
  if (!viewer) return null;
  const limited = searched.filter((ws) => viewer.workspaceIds.includes(ws));
  if (limited.length === 0) return null;
  const own = visibleAssetsSql({ kind: 'public-and-own', userId: viewer.userId }, table)!;
  if (limited.length === searched.length) return own;
  return sql<SqlBool>`(${sql.ref(`${table}.workspace_id`)} NOT IN (${sql.join(limited)}) OR ${own})`;
}
