import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDam, type Dam } from '../sdk/src/index.js';
import { dialects } from './helpers/databases.js';
import { addMember, registerUser, type Account } from './helpers/factories.js';
import { searchAssets } from './helpers/search-fixtures.js';
import { STORE_KINDS, startS3Server, startStorageApp, type S3Server, type StorageTestApp } from './helpers/uploads.js';

/** Duplicate detection (issue #19): SHA-256 of stored files by a job, check-duplicates, search filters; both stores and databases. */

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe.each(STORE_KINDS)('duplicate detection on the %s store', (kind) => {
  describe.each(dialects)('on %s', (dialect) => {
    let s3: S3Server | undefined;
    let t: StorageTestApp;
    let owner: Account;
    let dam: Dam;
    const [a, b] = [randomBytes(3000), randomBytes(2000)];
    const ids: Record<'a1' | 'a2' | 'b', number> = { a1: 0, a2: 0, b: 0 };

    const check = async (who: Account, workspaceId: number, hashes: string[]) =>
      t.request({ method: 'POST', url: '/dam/assets/check-duplicates', token: who.token, payload: { workspaceId, hashes } });
    const asset = async (id: number) =>
      (await t.request({ method: 'GET', url: `/dam/assets/${id}`, token: owner.token })).json<{ data: { sha256: string | null } }>().data;

    beforeAll(async () => {
      if (kind === 's3') s3 = await startS3Server();
      t = await startStorageApp(kind, s3, { dialect });
      owner = await registerUser(t);
      dam = createDam({ baseUrl: t.baseUrl, token: owner.token });
      const up = (bytes: Buffer, name: string) => dam.uploadFile(new Blob([bytes]), { workspaceId: owner.workspaceId, name });
      ids.a1 = (await up(a, 'a.bin')).assetId;
      ids.a2 = (await up(a, 'a copy.bin')).assetId;
      ids.b = (await up(b, 'b.bin')).assetId;
    });
    afterAll(async () => {
      await t.close();
      await s3?.close();
    });

    it('hashes every stored file in a job; assets, versions and search documents carry it', async () => {
      // The worker's own loop may have hashed them already: drain() runs whatever is left.
      await t.app.jobs.drain();
      expect((await asset(ids.a1)).sha256).toBe(sha256(a));
      expect((await asset(ids.b)).sha256).toBe(sha256(b));
      const versions = (await t.request({ method: 'GET', url: `/dam/assets/${ids.b}/versions`, token: owner.token })).json<{ sha256: string }[]>();
      expect(versions[0]!.sha256).toBe(sha256(b));
      const found = await searchAssets(t, owner, '*', `id:=${ids.b}`);
      expect(found.hits[0]!.document).toMatchObject({ id: String(ids.b), sha256: sha256(b) });
    });

    it('check-duplicates answers the hashes the library has, with the assets, for viewers', async () => {
      await t.app.jobs.drain();
      const viewer = await registerUser(t);
      await addMember(t, owner, owner.workspaceId, viewer, 'viewer');
      const unknown = sha256(randomBytes(10));
      const res = await check(viewer, owner.workspaceId, [unknown, sha256(a), sha256(b), sha256(a)]);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        success: true,
        data: { duplicates: [{ sha256: sha256(a), asset_ids: [ids.a1, ids.a2] }, { sha256: sha256(b), asset_ids: [ids.b] }] },
      });
    });

    it('is isolated by workspace and validates its input', async () => {
      await t.app.jobs.drain();
      const stranger = await registerUser(t);
      // The stranger's own copy of `a` is not the owner's duplicate, and the owner's workspace is 404 to the stranger.
      const theirs = await createDam({ baseUrl: t.baseUrl, token: stranger.token }).uploadFile(new Blob([a]), { workspaceId: stranger.workspaceId });
      await t.app.jobs.drain();
      expect((await check(stranger, owner.workspaceId, [sha256(a)])).statusCode).toBe(404);
      expect((await check(stranger, stranger.workspaceId, [sha256(a)])).json()).toMatchObject({ data: { duplicates: [{ asset_ids: [theirs.assetId] }] } });
      expect((await check(owner, owner.workspaceId, [sha256(a)])).json()).toMatchObject({ data: { duplicates: [{ asset_ids: [ids.a1, ids.a2] }] } });
      const duplicatesOf = await searchAssets(t, owner, '*', `duplicate_of:=${ids.a1}`);
      expect(duplicatesOf.hits.map((h) => Number(h.document.id))).toEqual([ids.a2]);

      for (const hashes of [[], [sha256(a).toUpperCase()], ['abc'], Array.from({ length: 1001 }, () => sha256(a))]) {
        const res = await check(owner, owner.workspaceId, hashes);
        expect(res.statusCode, JSON.stringify(hashes).slice(0, 50)).toBe(400);
      }
      const extra = await t.request({
        method: 'POST',
        url: '/dam/assets/check-duplicates',
        token: owner.token,
        payload: { workspaceId: owner.workspaceId, hashes: [sha256(a)], other: 1 },
      });
      expect(extra.statusCode).toBe(400);
    });

    it('search filters sha256 and duplicate_of; trashed assets and replaced versions stop counting', async () => {
      await t.app.jobs.drain();
      const bySha = await searchAssets(t, owner, '*', `sha256:=${sha256(a).toUpperCase()}`);
      expect(bySha.hits.map((h) => Number(h.document.id)).sort()).toEqual([ids.a1, ids.a2].sort());
      const notA = await searchAssets(t, owner, '*', `sha256:!=${sha256(a)}`);
      expect(notA.hits.map((h) => Number(h.document.id))).toContain(ids.b);
      expect(notA.hits.map((h) => Number(h.document.id))).not.toContain(ids.a1);
      const bad = await t.request({
        method: 'POST',
        url: '/search-engine/search',
        token: owner.token,
        payload: { request: { q: '*', collections: ['digital_assets'] }, filterQuery: { digital_assets: 'sha256:>abc' } },
      });
      expect(bad.statusCode).toBe(400);

      // a2 goes to the trash; a1 gets a new version with b's bytes.
      expect((await t.request({ method: 'DELETE', url: `/dam/assets/${ids.a2}`, token: owner.token })).statusCode).toBe(200);
      await dam.uploadVersion(ids.a1, new Blob([b]));
      await t.app.jobs.drain();
      expect((await asset(ids.a1)).sha256).toBe(sha256(b));
      expect((await check(owner, owner.workspaceId, [sha256(a)])).json()).toEqual({ success: true, data: { duplicates: [] } });
      expect((await check(owner, owner.workspaceId, [sha256(b)])).json()).toMatchObject({ data: { duplicates: [{ asset_ids: [ids.a1, ids.b] }] } });
      const dupOfB = await searchAssets(t, owner, '*', `duplicate_of:=${ids.b}`);
      expect(dupOfB.hits.map((h) => Number(h.document.id))).toEqual([ids.a1]);
    });

    it('a file sent through the server carries its hash at once (hashed as it arrived): no job reads it again', async () => {
      const c = randomBytes(5000);
      const { assetId } = await dam.uploadWhole(new Blob([c]), { workspaceId: owner.workspaceId, name: 'c.bin' });
      // Before any job ran: the upload's own answer already counts for check-duplicates.
      expect((await asset(assetId)).sha256).toBe(sha256(c));
      expect((await check(owner, owner.workspaceId, [sha256(c)])).json()).toMatchObject({ data: { duplicates: [{ asset_ids: [assetId] }] } });
      const { db } = t.database;
      const version = await db.selectFrom('asset_versions').select(['id', 'sha256']).where('asset_id', '=', assetId).executeTakeFirstOrThrow();
      expect(version.sha256).toBe(sha256(c));
      const hashJobs = await db.selectFrom('jobs').select('id').where('kind', '=', 'version.sha256').where('payload', '=', JSON.stringify({ versionId: version.id })).execute();
      expect(hashJobs).toEqual([]);
    });

    it('files stored before hashing existed are hashed by the backfill job the migration queues', async () => {
      await t.app.jobs.drain();
      const { db } = t.database;
      const queued = await db.selectFrom('jobs').select(['kind', 'payload']).where('kind', '=', 'version.sha256_backfill').execute();
      expect(queued[0]).toEqual({ kind: 'version.sha256_backfill', payload: '{"afterId":0}' });

      await db.updateTable('asset_versions').set({ sha256: null }).execute();
      await db.updateTable('assets').set({ sha256: null }).execute();
      const now = Math.floor(Date.now() / 1000);
      await db
        .insertInto('jobs')
        .values({ kind: 'version.sha256_backfill', payload: '{"afterId":0}', status: 'queued', attempts: 0, max_attempts: 5, run_at: now, created_at: now, updated_at: now })
        .execute();
      await t.app.jobs.drain();
      expect((await asset(ids.b)).sha256).toBe(sha256(b));
      expect((await asset(ids.a1)).sha256).toBe(sha256(b));
      const missing = await db.selectFrom('asset_versions').select('id').where('status', '=', 'ready').where('sha256', 'is', null).execute();
      expect(missing).toEqual([]);
    });
  });
});
