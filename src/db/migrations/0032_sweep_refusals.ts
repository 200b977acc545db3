import type { Kysely } from 'kysely';
import type { DialectSupport } from '../dialects/types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/**
 * Issue #37, no mass deletion by accident: a housekeeping sweep that would delete more of a workspace than
 * DAM_SWEEP_MAX_PERCENT records what it refused here (one row per sweep and workspace), until an instance admin
 * confirms it (POST /admin/sweeps/{sweep}/confirm) or it resolves itself. No foreign key on the workspace: the
 * objects of a deleted workspace are refused and confirmed too.
 */
export async function up(db: AnyDB, d: DialectSupport): Promise<void> {
  await db.schema
    .createTable('sweep_refusals')
    .addColumn('sweep', 'text', (c) => c.notNull())
    .addColumn('workspace_id', 'integer', (c) => c.notNull())
    .addColumn('would_delete', d.bigint, (c) => c.notNull())
    .addColumn('workspace_total', d.bigint, (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('examples', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('refused_at', d.bigint, (c) => c.notNull())
    .addColumn('seen_at', d.bigint, (c) => c.notNull())
    .addColumn('confirmed_at', d.bigint)
    .addColumn('confirmed_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('settled_at', d.bigint)
    .addPrimaryKeyConstraint('sweep_refusals_pk', ['sweep', 'workspace_id'])
    .execute();
}
