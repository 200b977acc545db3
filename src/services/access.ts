import type { DB } from '../db/database.js';
import type { Role } from '../db/schema.js';
import { appError, notFound } from '../errors.js';
import { findRole } from '../repositories/workspaces.js';

const RANK: Record<Role, number> = { viewer: 1, manager: 2, admin: 3 };

export function roleAtLeast(role: Role, min: Role): boolean {
  return RANK[role] >= RANK[min];
}

/** Asked before every write to a workspace (issue #17: a past_due workspace turns read-only); throws to refuse. */
export type WriteGuard = (db: DB, workspaceId: number) => Promise<void>;

/**
 * The app's write guard, by its database handle: requireRole takes only a DB, and several apps
 * (tests) share this module. A transaction handle is not registered, so requireRole inside a
 * transaction checks roles only; every write route asks it first on the app's handle.
 */
const writeGuards = new WeakMap<object, WriteGuard>();

export function installWriteGuard(db: DB, guard: WriteGuard): void {
  writeGuards.set(db, guard);
}

/**
 * The one place that decides whether a user may act in a workspace.
 * Not a member: 404, so the workspace's existence is not revealed (seed 5.1).
 * A member whose role is too low: 403.
 * A write (a role above viewer is asked for) to a read-only workspace: the write guard's answer
 * (402 SUBSCRIPTION_PAST_DUE), except for billing itself (`billing: true`), which is how it is fixed.
 */
export async function requireRole(db: DB, workspaceId: number, userId: number, min: Role, options?: { billing?: boolean }): Promise<Role> {
  return checkRole(db, workspaceId, await findRole(db, workspaceId, userId), min, options);
}

/** requireRole's checks on a role already read (undefined: not a member), for callers that need the role before deciding `min`. */
export async function checkRole(db: DB, workspaceId: number, role: Role | undefined, min: Role, options?: { billing?: boolean }): Promise<Role> {
  if (!role) throw notFound('Workspace');
  if (!roleAtLeast(role, min)) throw appError('FORBIDDEN', `This action needs the ${min} role in this workspace; you are ${role}`);
  if (min !== 'viewer' && !options?.billing) await writeGuards.get(db)?.(db, workspaceId);
  return role;
}
