import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { createSearchSchema } from '../src/search/index-schema/index.js';
import { dialects, openDatabaseAt } from './helpers/databases.js';
import { dropSearchSchema, indexSnapshot } from './helpers/search-schema.js';

/**
 * Upgrading an installation to the trash (migration 0007): the search triggers are rebuilt to leave
 * trashed rows out, and the index of the existing catalog is exactly what a fresh backfill makes.
 */
describe.each(dialects)('migration 0007 on %s', (dialect) => {
  const open: DatabaseHandle[] = [];
  afterEach(async () => {
    for (const handle of open.splice(0)) await handle.close();
  });

  it('keeps the index equal to a fresh backfill, and the new triggers drop trashed rows', async () => {
    const handle = await openDatabaseAt(dialect, '0006_idempotency');
    open.push(handle);
    const db = handle.db;
    // Plain SQL: the rows as the schema of 0006 holds them (later migrations add columns).
    await sql`INSERT INTO workspaces (name, created_at, modified_at) VALUES ('old', 1, 1)`.execute(db);
    await sql`INSERT INTO folders (workspace_id, parent_id, name, visibility, tags, created_at, modified_at) VALUES (1, NULL, 'Trips 2019', 0, '["travel"]', 2, 3)`.execute(db);
    await sql`INSERT INTO assets (workspace_id, folder_id, display_file_name, file_name, file_type, mime_type, file_size, tags, visibility, metadata,
                created_by, created_at, modified_at, status)
              VALUES (1, 1, 'Beach day', 'IMG_2041.jpg', 'image', 'image/jpeg', 10, '["beach","sun"]', 0, '{}', 'x', 4, 5, 'ready'),
                     (1, NULL, 'draft.png', 'draft.png', 'image', 'image/png', 0, '[]', 0, '{}', 'x', 6, 7, 'uploading')`.execute(db);
    await sql`INSERT INTO collections (workspace_id, name, description, visibility, tags, created_at, modified_at) VALUES (1, 'Best of', 'autumn leaves', 0, '[]', 8, 9)`.execute(db);
    const before = await indexSnapshot(handle);

    await migrateToLatest(handle);
    const migrated = await indexSnapshot(handle);
    expect(migrated).toEqual(before);
    await dropSearchSchema(handle);
    await createSearchSchema[dialect](db);
    expect(await indexSnapshot(handle)).toEqual(migrated);

    const docs = async () => (await db.selectFrom('search_documents').select('doc_id').orderBy('doc_id').execute()).map((d) => Number(d.doc_id));
    const all = await docs();
    expect(all).toHaveLength(3);
    for (const table of ['assets', 'folders', 'collections'] as const) {
      await db.updateTable(table).set({ deleted_at: 100, deleted_by: null }).execute();
    }
    expect(await docs()).toEqual([]);
    expect(await db.selectFrom('search_tags').select('doc_id').execute()).toEqual([]);
    for (const table of ['assets', 'folders', 'collections'] as const) {
      await db.updateTable(table).set({ deleted_at: null }).execute();
    }
    expect(await docs()).toEqual(all);
    expect(await indexSnapshot(handle)).toEqual(migrated);
  });
});
