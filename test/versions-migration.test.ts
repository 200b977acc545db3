import type { Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../src/db/migrator.js';
import { dialects, openDatabaseAt } from './helpers/databases.js';

/** Upgrading an installation: every ready asset gets its file as v1 and a thumbnail job (migration 0004). */
describe.each(dialects)('migration 0004 on %s', (dialect) => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const drop of cleanup.splice(0)) await drop();
  });

  it('makes v1 of every ready asset, current, with its file and metadata, and queues its renditions', async () => {
    const handle = await openDatabaseAt(dialect, '0003_search');
    cleanup.push(() => handle.close());
    const db = handle.db;
    const ws = await db.insertInto('workspaces').values({ name: 'old', created_at: 1, modified_at: 1 }).returning('id').executeTakeFirstOrThrow();
    // Rows as the schema of 0003 held them: insertAsset writes columns that later migrations add (name_key, 0010).
    const old = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
    const insertOld = (values: Record<string, unknown>) =>
      old.insertInto('assets').values(values).returning(['id', 'storage_key']).executeTakeFirstOrThrow() as Promise<{ id: number; storage_key: string }>;
    const base = { workspace_id: ws.id, file_type: 'image', mime_type: 'image/jpeg', file_size: 10, created_by: 'someone', created_at: 100 };
    const ready = await insertOld({ ...base, file_name: 'a.jpg', display_file_name: 'a.jpg', width: 4, height: 3, metadata: '{"k":1}', storage_key: `${ws.id}/digital_assets/1`, modified_at: 200 });
    await insertOld({ ...base, file_name: 'b.jpg', display_file_name: 'b.jpg', status: 'uploading', storage_key: `${ws.id}/digital_assets/2`, modified_at: 100 });

    await migrateToLatest(handle);
    const versions = await db.selectFrom('asset_versions').selectAll().execute();
    expect(versions).toEqual([
      expect.objectContaining({
        asset_id: ready.id,
        number: 1,
        status: 'ready',
        is_current: 1,
        file_name: 'a.jpg',
        mime_type: 'image/jpeg',
        file_size: 10,
        width: 4,
        height: 3,
        metadata: '{"k":1}',
        storage_key: ready.storage_key,
        preview_status: 'pending',
        created_at: 200,
      }),
    ]);
    // (Migration 0011 queues the reading of its embedded metadata besides.)
    const jobs = await db.selectFrom('jobs').selectAll().where('kind', '=', 'version.renditions').execute();
    expect(jobs.map((j) => [j.kind, JSON.parse(j.payload) as unknown, j.status])).toEqual([['version.renditions', { versionId: versions[0]!.id }, 'queued']]);
  });
});
