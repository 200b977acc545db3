import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/**
 * How far ahead a workspace's managers may set a shared link's expiry, in days (issue #28: a manager could set
 * expires_at to the year 5138, a link for good in all but name). Workspace admins change it (PATCH /workspaces/:id)
 * and are not capped themselves. Existing workspaces get the default, 90 days; links made before keep their expiry.
 */
export async function up(db: AnyDB): Promise<void> {
  await db.schema
    .alterTable('workspaces')
    .addColumn('share_max_expiry_days', 'integer', (c) => c.notNull().defaultTo(90))
    .execute();
}
