import type { DB } from '../db/database.js';
import type { Role } from '../db/schema.js';
import { assetSight, sees, type AssetSight } from '../domain/asset-visibility.js';
import { notFound } from '../errors.js';
import * as assets from '../repositories/assets.js';
import { findRole } from '../repositories/workspaces.js';
import { checkRole, requireRole } from './access.js';

/**
 * The private-asset rule (domain/asset-visibility.ts) as the services apply it: the caller's sight in a
 * workspace, and one asset authorised by its own visibility before the caller's role.
 */

/** What of the workspace's assets the caller sees; 404 when not a member (requireRole with 'viewer'). */
export async function requireSight(db: DB, workspaceId: number, userId: number): Promise<AssetSight> {
  return assetSight(await requireRole(db, workspaceId, userId, 'viewer'), userId);
}

/** The sight of a member whose role is known. */
export function sightOf(role: Role, userId: number): AssetSight {
  return assetSight(role, userId);
}

/**
 * Authorises the caller on an asset that was loaded (or not found): a missing asset, an asset of a workspace the
 * caller is not a member of and a private asset the caller does not see all answer the same 404 `<what> not
 * found`, so a viewer cannot tell another's private asset from no asset; only then is a role below `min` a 403
 * (and a write asks the workspace's write guard, as requireRole does). Answers the caller's role.
 */
export async function authorizeAsset(
  db: DB,
  what: string,
  asset: { readonly workspace_id: number; readonly visibility: number; readonly uploaded_by: number | null } | undefined,
  userId: number,
  min: Role,
): Promise<Role> {
  if (!asset) throw notFound(what);
  const role = await findRole(db, asset.workspace_id, userId);
  if (!role || !sees(assetSight(role, userId), asset)) throw notFound(what);
  return checkRole(db, asset.workspace_id, role, min);
}

/**
 * An asset of the catalog (ready, not in the trash) the caller sees, by id, with a role of at least `min`:
 * anything else is 404 `<what> not found` (403 for a role too low, once the asset is known to be visible).
 */
export async function loadVisibleAsset(db: DB, id: number, userId: number, min: Role, what = 'Asset'): Promise<assets.AssetRecord> {
  const found = await assets.findAsset(db, id);
  const asset = found && assets.inCatalog(found) ? found : undefined;
  await authorizeAsset(db, what, asset, userId, min);
  return asset!;
}
