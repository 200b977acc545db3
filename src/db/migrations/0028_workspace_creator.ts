import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/**
 * Who created a workspace (issue #28): each workspace has its own free-plan quota, so an account may own
 * only DAM_MAX_WORKSPACES_PER_USER of them (instance admins are not limited). Null for the workspaces that
 * exist already (their creator was not recorded) and when the account is deleted.
 */
export async function up(db: AnyDB): Promise<void> {
  await db.schema
    .alterTable('workspaces')
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .execute();
  await db.schema.createIndex('workspaces_created_by_idx').on('workspaces').column('created_by').execute();
}
