import type { DB } from '../db/database.js';
import type { Role } from '../db/schema.js';
import { appError, notFound } from '../errors.js';
import { findRole } from '../repositories/workspaces.js';

const RANK: Record<Role, number> = { viewer: 1, manager: 2, admin: 3 };

export function roleAtLeast(role: Role, min: Role): boolean {
  return RANK[role] >= RANK[min];
}

/**
 * The one place that decides whether a user may act in a workspace.
 * Not a member: 404, so the workspace's existence is not revealed (seed 5.1).
 * A member whose role is too low: 403.
 */
export async function requireRole(db: DB, workspaceId: number, userId: number, min: Role): Promise<Role> {
  const role = await findRole(db, workspaceId, userId);
  if (!role) throw notFound('Workspace');
  if (!roleAtLeast(role, min)) throw appError('FORBIDDEN', `This action needs the ${min} role in this workspace; you are ${role}`);
  return role;
}
