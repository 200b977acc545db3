import { sql, type Kysely } from 'kysely';
import type { DialectSupport } from '../../dialects/types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/**
 * SQLite cannot change a CHECK constraint in place: the table is rebuilt as SQLite's ALTER TABLE
 * documentation describes (new table, copy, drop, rename). Nothing references version_renditions;
 * DROP TABLE's implicit delete fires no trigger, so no object is queued for deletion, and the
 * object-deletion trigger that went with the old table is created again on the new one.
 */
export async function allowRenditionKinds(db: AnyDB, d: DialectSupport, kinds: readonly string[]): Promise<void> {
  await db.schema
    .createTable('version_renditions_new')
    .addColumn('version_id', 'integer', (c) => c.notNull().references('asset_versions.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in (${sql.join(kinds.map((k) => sql.lit(k)))})`))
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('mime_type', 'text', (c) => c.notNull())
    .addColumn('width', 'integer', (c) => c.notNull())
    .addColumn('height', 'integer', (c) => c.notNull())
    .addColumn('file_size', d.bigint, (c) => c.notNull())
    .addPrimaryKeyConstraint('version_renditions_pk', ['version_id', 'kind'])
    .execute();
  await sql`
    INSERT INTO version_renditions_new (version_id, kind, storage_key, mime_type, width, height, file_size)
    SELECT version_id, kind, storage_key, mime_type, width, height, file_size FROM version_renditions`.execute(db);
  await db.schema.dropTable('version_renditions').execute();
  await db.schema.alterTable('version_renditions_new').renameTo('version_renditions').execute();
  await d.createObjectDeletionTrigger(db, 'version_renditions', 'storage_key');
}
