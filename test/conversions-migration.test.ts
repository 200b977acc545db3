import type { Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../src/db/migrator.js';
import { dialects, openDatabaseAt } from './helpers/databases.js';

/**
 * Migration 0017 (issue #15) on an installation with videos: the renditions table gets its new kind
 * (SQLite rebuilds the table) and keeps its rows and its object-deletion trigger; every ready video
 * version is queued for its web-playable preview.
 */
describe.each(dialects)('migration 0017 on %s', (dialect) => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const drop of cleanup.splice(0)) await drop();
  });

  it('keeps renditions and their deletion trigger, allows video renditions, and queues previews of video versions', async () => {
    const handle = await openDatabaseAt(dialect, '0016_zip_imports');
    cleanup.push(() => handle.close());
    // Rows as the schema of 0016 holds them.
    const db = handle.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
    const ws = (await db.insertInto('workspaces').values({ name: 'old', created_at: 1, modified_at: 1 }).returning('id').executeTakeFirstOrThrow()) as { id: number };
    const asset = async (name: string, mime: string, fileType: string) => {
      const a = (await db
        .insertInto('assets')
        .values({ workspace_id: ws.id, file_name: name, display_file_name: name, name_key: name, file_type: fileType, mime_type: mime, file_size: 10, created_by: 'x', created_at: 1, modified_at: 1 })
        .returning('id')
        .executeTakeFirstOrThrow()) as { id: number };
      const v = (await db
        .insertInto('asset_versions')
        .values({ asset_id: a.id, workspace_id: ws.id, number: 1, status: 'ready', is_current: 1, file_name: name, display_file_name: name, mime_type: mime, file_size: 10, metadata: '{}', storage_key: `${ws.id}/digital_assets/${a.id}`, created_by: 'x', created_at: 1 })
        .returning('id')
        .executeTakeFirstOrThrow()) as { id: number };
      return v.id;
    };
    const video = await asset('clip.mov', 'video/quicktime', 'video');
    const image = await asset('a.png', 'image/png', 'image');
    const rendition = { version_id: video, kind: 'thumbnail', storage_key: `${ws.id}/digital_assets/1/renditions/${video}/thumbnail.webp`, mime_type: 'image/webp', width: 4, height: 3, file_size: 9 };
    await db.insertInto('version_renditions').values(rendition).execute();

    await migrateToLatest(handle);
    expect(await db.selectFrom('version_renditions').selectAll().execute()).toEqual([rendition]);
    const videoKey = `${ws.id}/digital_assets/1/renditions/${video}/video.mp4`;
    await db.insertInto('version_renditions').values({ ...rendition, kind: 'video', storage_key: videoKey, mime_type: 'video/mp4' }).execute();
    await expect(db.insertInto('version_renditions').values({ ...rendition, kind: 'bogus', storage_key: 'x' }).execute()).rejects.toThrow();
    // The rebuilt table still queues the objects of deleted rows.
    await db.deleteFrom('version_renditions').where('kind', '=', 'video').execute();
    expect((await db.selectFrom('object_deletions').select('storage_key').execute()).map((r) => r.storage_key)).toEqual([videoKey]);

    const jobs = await db.selectFrom('jobs').select(['kind', 'payload', 'status']).where('kind', '=', 'version.video_preview').execute();
    expect(jobs).toEqual([{ kind: 'version.video_preview', payload: JSON.stringify({ versionId: video }), status: 'queued' }]);
    const states = await db.selectFrom('asset_versions').select(['id', 'video_preview_status']).orderBy('id').execute();
    expect(states).toEqual([
      { id: video, video_preview_status: 'pending' },
      { id: image, video_preview_status: null },
    ]);
  });
});
