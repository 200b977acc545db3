import type { DB } from '../db/database.js';
import type { Role, WorkspaceRow } from '../db/schema.js';
import { prepared } from '../db/prepared.js';

export interface WorkspaceWithRole {
  id: number;
  name: string;
  role: Role;
}

export interface MemberRow {
  user_id: number;
  email: string;
  name: string;
  role: Role;
  created_at: number;
}

export async function insertWorkspace(db: DB, name: string, now: number, createdBy: number): Promise<WorkspaceRow> {
  return db
    .insertInto('workspaces')
    .values({ name, created_at: now, modified_at: now, created_by: createdBy })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** How many workspaces the account created that still exist (issue #28: DAM_MAX_WORKSPACES_PER_USER). */
export async function countCreatedBy(db: DB, userId: number): Promise<number> {
  const row = await db.selectFrom('workspaces').select((eb) => eb.fn.countAll<number | string>().as('n')).where('created_by', '=', userId).executeTakeFirstOrThrow();
  return Number(row.n);
}

export function findWorkspace(db: DB, id: number): Promise<WorkspaceRow | undefined> {
  return db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateWorkspaceName(db: DB, id: number, name: string, now: number): Promise<void> {
  await db.updateTable('workspaces').set({ name, modified_at: now }).where('id', '=', id).execute();
}

/** The workspace's settings (issue #28: share_max_expiry_days). */
export async function updateWorkspaceSettings(db: DB, id: number, settings: { share_max_expiry_days: number }, now: number): Promise<void> {
  await db.updateTable('workspaces').set({ ...settings, modified_at: now }).where('id', '=', id).execute();
}

export async function deleteWorkspace(db: DB, id: number): Promise<void> {
  await db.deleteFrom('workspaces').where('id', '=', id).execute();
}

// Both on hot paths (GET /auth/me; every workspace request): compiled once (src/db/prepared.ts).
const workspacesOfUser = prepared((db: DB, userId: number) =>
  db
    .selectFrom('workspace_members as m')
    .innerJoin('workspaces as w', 'w.id', 'm.workspace_id')
    .select(['w.id', 'w.name', 'm.role'])
    .where('m.user_id', '=', userId)
    .orderBy('w.id'),
);

const roleOf = prepared((db: DB, workspaceId: number, userId: number) =>
  db.selectFrom('workspace_members').select('role').where('workspace_id', '=', workspaceId).where('user_id', '=', userId),
);

export function listWorkspacesOfUser(db: DB, userId: number): Promise<WorkspaceWithRole[]> {
  return workspacesOfUser(db, userId);
}

export async function findRole(db: DB, workspaceId: number, userId: number): Promise<Role | undefined> {
  return (await roleOf(db, workspaceId, userId))[0]?.role;
}

function membersQuery(db: DB, workspaceId: number) {
  return db
    .selectFrom('workspace_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.user_id', 'u.email', 'u.name', 'm.role', 'm.created_at'])
    .where('m.workspace_id', '=', workspaceId);
}

export function listMembers(db: DB, workspaceId: number): Promise<MemberRow[]> {
  return membersQuery(db, workspaceId).orderBy('m.user_id').execute();
}

export function findMember(db: DB, workspaceId: number, userId: number): Promise<MemberRow | undefined> {
  return membersQuery(db, workspaceId).where('m.user_id', '=', userId).executeTakeFirst();
}

export async function insertMember(db: DB, workspaceId: number, userId: number, role: Role, now: number): Promise<void> {
  await db.insertInto('workspace_members').values({ workspace_id: workspaceId, user_id: userId, role, created_at: now }).execute();
}

export async function updateMemberRole(db: DB, workspaceId: number, userId: number, role: Role): Promise<void> {
  await db.updateTable('workspace_members').set({ role }).where('workspace_id', '=', workspaceId).where('user_id', '=', userId).execute();
}

export async function deleteMember(db: DB, workspaceId: number, userId: number): Promise<void> {
  await db.deleteFrom('workspace_members').where('workspace_id', '=', workspaceId).where('user_id', '=', userId).execute();
}

export async function countAdmins(db: DB, workspaceId: number): Promise<number> {
  const row = await db
    .selectFrom('workspace_members')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('role', '=', 'admin')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Issue #27: the memberships of several users at once (the admin list's page), with each workspace's stored bytes. */
export function listMembershipsOf(db: DB, userIds: number[]) {
  if (userIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('workspace_members as m')
    .innerJoin('workspaces as w', 'w.id', 'm.workspace_id')
    .leftJoin('workspace_usage as u', 'u.workspace_id', 'w.id')
    .select(['m.user_id', 'w.id', 'w.name', 'm.role', 'u.storage_bytes'])
    .where('m.user_id', 'in', userIds)
    .orderBy('w.id')
    .execute();
}

/** The workspaces in which the user is the only admin, with how many members each has (deleting an account). */
export async function workspacesSolelyAdministeredBy(db: DB, userId: number): Promise<{ id: number; name: string; members: number }[]> {
  const rows = await db
    .selectFrom('workspace_members as m')
    .innerJoin('workspaces as w', 'w.id', 'm.workspace_id')
    .select((eb) => [
      'w.id',
      'w.name',
      eb.selectFrom('workspace_members as a').select((e) => e.fn.countAll<number | string>().as('n')).whereRef('a.workspace_id', '=', 'w.id').where('a.role', '=', 'admin').as('admins'),
      eb.selectFrom('workspace_members as a').select((e) => e.fn.countAll<number | string>().as('n')).whereRef('a.workspace_id', '=', 'w.id').as('members'),
    ])
    .where('m.user_id', '=', userId)
    .where('m.role', '=', 'admin')
    .orderBy('w.id')
    .execute();
  return rows.filter((r) => Number(r.admins) === 1).map((r) => ({ id: r.id, name: r.name, members: Number(r.members) }));
}
