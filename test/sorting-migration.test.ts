import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../src/db/migrator.js';
import { sortKey } from '../src/domain/sort-key.js';
import { dialects, openDatabaseAt } from './helpers/databases.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/** Upgrading an installation (migration 0010): every existing row gets the sort key of its name, and search_sort a row. */
describe.each(dialects)('migration 0010 on %s', (dialect) => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const drop of cleanup.splice(0)) await drop();
  });

  it('writes name_key of every asset, folder and collection (in batches) and fills search_sort', async () => {
    const handle = await openDatabaseAt(dialect, '0009_activity');
    cleanup.push(() => handle.close());
    // The schema of 0009 has no name_key: rows are written as that version wrote them.
    const db = handle.db as unknown as AnyDB;
    const ws = await handle.db.insertInto('workspaces').values({ name: 'old', created_at: 1, modified_at: 1 }).returning('id').executeTakeFirstOrThrow();
    const count = 2345; // more than two batches of 1,000
    const names = Array.from({ length: count }, (_, i) => `IMG_${count - i}${i % 2 ? '.JPG' : '.jpg'}`);
    for (let at = 0; at < count; at += 500) {
      await db
        .insertInto('assets')
        .values(
          names.slice(at, at + 500).map((name, i) => ({
            workspace_id: ws.id, display_file_name: name, file_name: name, file_type: 'image', mime_type: 'image/jpeg',
            file_size: (at + i) % 7, created_by: 'old', created_at: 1, modified_at: 1,
          })),
        )
        .execute();
    }
    await db.insertInto('folders').values({ workspace_id: ws.id, parent_id: null, name: 'Folder 10', created_at: 1, modified_at: 1 }).execute();
    await db.insertInto('collections').values({ workspace_id: ws.id, name: 'Ärger 2', created_at: 1, modified_at: 1 }).execute();

    await migrateToLatest(handle);

    const rows = await sql<{ name: string; name_key: string }>`
      SELECT display_file_name AS name, name_key FROM assets UNION ALL SELECT name, name_key FROM folders
      UNION ALL SELECT name, name_key FROM collections`.execute(db);
    expect(rows.rows).toHaveLength(count + 2);
    for (const row of rows.rows) expect(row.name_key, row.name).toBe(sortKey(row.name));
    const mirrored = await sql<{ n: number | string }>`
      SELECT count(*) AS n FROM search_sort s JOIN assets a ON s.doc_id = a.id * 4 + 1
      WHERE s.kind = 1 AND s.name_key = a.name_key AND s.file_size = a.file_size AND s.workspace_id = a.workspace_id`.execute(db);
    expect(Number(mirrored.rows[0]!.n)).toBe(count);
    expect(await db.selectFrom('search_sort').select('name_key').where('kind', '<>', 1).orderBy('kind').execute()).toEqual([
      { name_key: sortKey('Folder 10') },
      { name_key: sortKey('Ärger 2') },
    ]);
    // The first names by key: IMG_1, IMG_2, … in numeric order.
    const first = await db.selectFrom('assets').select('display_file_name').orderBy('name_key').orderBy('id').limit(3).execute();
    expect(first.map((r) => r.display_file_name as string)).toEqual(['IMG_1.jpg', 'IMG_2.JPG', 'IMG_3.jpg']);
  });
});
