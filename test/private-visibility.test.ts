import { createHash } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { KIND } from '../src/search/collections.js';
import { createSearchSchema } from '../src/search/index-schema/index.js';
import { startHttpTestApp, type TestApp } from './helpers/app.js';
import { expectError } from './helpers/catalog-factories.js';
import { dialects, openDatabaseAt } from './helpers/databases.js';
import { addMember, registerUser, type Account, type Envelope } from './helpers/factories.js';
import { dropSearchSchema, indexSnapshot } from './helpers/search-schema.js';
import { createShareRequest, jpeg, publicRequest, viewShare, type ShareJson } from './helpers/shares.js';
import { uploadFile } from './helpers/uploads.js';
import { multipart, pathOf, type FilePart, type VersionJson } from './helpers/versions.js';
import { rawZip, readZip } from './helpers/zip.js';

/**
 * Issue #27, section 2: a private asset (visibility not 0) is visible to its uploader, the workspace's managers and
 * admins, and to nobody else; only public assets reach a shared link (docs/architecture/private-assets.md).
 *
 * One workspace: the admin uploads public and private assets, a manager a private one, and a member who was a
 * manager when they uploaded their own private asset is now a viewer (viewers cannot upload: the uploader of a
 * private asset a viewer sees is a demoted member). Every resource kind is probed as that viewer (and as a second
 * viewer who uploaded nothing), and as the manager, who sees everything.
 */
describe.each(dialects)('private assets on %s', (dialect) => {
  let t: TestApp & { baseUrl: string };
  let admin: Account;
  let manager: Account;
  let viewer: Account;
  let viewer2: Account;
  let ws: number;
  let folder: number;
  let collection: number;
  let conversion: number;
  let zipImport: number;
  /** Asset ids by name. */
  const id: Record<string, number> = {};
  const adminPrivBytes: { current: Buffer } = { current: Buffer.alloc(0) };

  /** What the viewer sees of the workspace (live assets), and what only managers and admins see. */
  const VISIBLE = ['public-harbour.jpg', 'viewer-own.txt', 'copy-of-secret.jpg', 'archive.zip', 'inside.txt'];
  const HIDDEN = ['secret-admin.jpg', 'secret-manager.txt', 'secret-admin.png'];
  const sorted = (names: string[]) => [...names].sort();

  const request = (who: Account | null, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
    t.request({ method, url, ...(who ? { token: who.token } : {}), ...(payload ? { payload } : {}) });
  const data = <T>(res: LightMyRequestResponse): T => {
    if (res.statusCode >= 300) throw new Error(`${res.statusCode} ${res.body}`);
    return res.json<Envelope<T>>().data;
  };

  /** POST /api/upload-asset with visibility, folder and tags. */
  async function upload(who: Account, file: FilePart, fields: { visibility?: number; folderId?: number; tags?: string[]; workspaceId?: number } = {}): Promise<number> {
    const form: Record<string, string | FilePart> = { workspaceId: String(fields.workspaceId ?? ws), file };
    if (fields.visibility !== undefined) form.visibility = String(fields.visibility);
    if (fields.folderId !== undefined) form.folder_id = String(fields.folderId);
    if (fields.tags) form.tags = JSON.stringify(fields.tags);
    const res = await t.request({ method: 'POST', url: '/api/upload-asset', token: who.token, ...(await multipart(form)) });
    return data<{ id: number }>(res).id;
  }
  const text = (name: string, content = `content of ${name}`): FilePart => ({ bytes: Buffer.from(content), name, type: 'text/plain' });

  beforeAll(async () => {
    t = await startHttpTestApp({ dialect });
    [admin, manager, viewer, viewer2] = [
      await registerUser(t, { name: 'Ada Admin' }),
      await registerUser(t, { name: 'Max Manager' }),
      await registerUser(t, { name: 'Vera Viewer' }),
      await registerUser(t, { name: 'Walt Viewer' }),
    ];
    ws = admin.workspaceId;
    await addMember(t, admin, ws, manager, 'manager');
    // A manager while uploading their own private asset, a viewer since.
    await addMember(t, admin, ws, viewer, 'manager');
    await addMember(t, admin, ws, viewer2, 'viewer');
    folder = data<{ id: number }>(await request(admin, 'POST', '/dam/folders', { workspace_id: ws, name: 'Shoot' })).id;

    adminPrivBytes.current = await jpeg(80, 60, '#335');
    id['public-harbour.jpg'] = await upload(admin, { bytes: await jpeg(64, 48, '#3a7'), name: 'public-harbour.jpg', type: 'image/jpeg' }, { folderId: folder, tags: ['harbour'] });
    id['secret-admin.jpg'] = await upload(admin, { bytes: adminPrivBytes.current, name: 'secret-admin.jpg', type: 'image/jpeg' }, { visibility: 1, folderId: folder, tags: ['secret-admin-tag'] });
    id['secret-manager.txt'] = await upload(manager, text('secret-manager.txt'), { visibility: 2, folderId: folder, tags: ['secret-manager-tag'] });
    // The same file as the admin's private one, public: a duplicate.
    id['copy-of-secret.jpg'] = await upload(admin, { bytes: adminPrivBytes.current, name: 'copy-of-secret.jpg', type: 'image/jpeg' });
    // The multipart flow (start-upload / complete-upload), then made private and filed by its uploader.
    const multi = await uploadFile(t, viewer, Buffer.from('the viewer wrote this'), { workspaceId: ws, fileType: 'text/plain', fileName: 'viewer-own.txt', partSize: 1024 });
    id['viewer-own.txt'] = multi.ref.assetId;
    data(await request(viewer, 'PATCH', `/dam/assets/${id['viewer-own.txt']}`, { visibility: 1, folder_id: folder, tags: ['viewer-tag'] }));
    // In the viewer's own workspace (they are its admin): their private asset there is theirs in any case.
    id['viewer-personal-secret.txt'] = await upload(viewer, text('viewer-personal-secret.txt'), { visibility: 1, workspaceId: viewer.workspaceId });

    // Trashed: one public, one private.
    id['trashed-public.txt'] = await upload(admin, text('trashed-public.txt'));
    id['trashed-secret.txt'] = await upload(admin, text('trashed-secret.txt'), { visibility: 1 });
    for (const name of ['trashed-public.txt', 'trashed-secret.txt']) data(await request(admin, 'DELETE', `/dam/assets/${id[name]}`));

    collection = data<{ id: number }>(await request(admin, 'POST', '/dam/collections', { workspace_id: ws, name: 'Picks' })).id;
    data(
      await request(admin, 'POST', `/dam/collections/${collection}/assets`, {
        asset_ids: ['public-harbour.jpg', 'secret-admin.jpg', 'secret-manager.txt', 'viewer-own.txt'].map((n) => id[n]),
      }),
    );

    // A conversion of the admin's private image: its result is a new private asset, the requester's.
    const converted = await request(admin, 'POST', '/convert/image', { assetId: id['secret-admin.jpg'], format: 'png' });
    expect(converted.statusCode, converted.body).toBe(202);
    conversion = converted.json<Envelope<{ id: number }>>().data.id;
    // A ZIP import: its files come in as the requester's.
    id['archive.zip'] = await upload(admin, { bytes: rawZip([{ name: 'inside.txt', data: Buffer.from('zipped') }]), name: 'archive.zip', type: 'application/zip' });
    const imported = await request(admin, 'POST', '/zip/extract', { assetId: id['archive.zip'] });
    expect(imported.statusCode, imported.body).toBe(202);
    zipImport = imported.json<Envelope<{ id: number }>>().data.id;
    await t.app.jobs.drain();

    const finished = data<{ status: string; result_asset_id: number }>(await request(admin, 'GET', `/convert/status/${conversion}`));
    expect(finished.status).toBe('succeeded');
    id['secret-admin.png'] = finished.result_asset_id;
    const inside = await t.database.db.selectFrom('assets').select('id').where('workspace_id', '=', ws).where('display_file_name', '=', 'inside.txt').executeTakeFirstOrThrow();
    id['inside.txt'] = inside.id;

    data(await request(admin, 'PATCH', `/workspaces/${ws}/members/${viewer.user.id}`, { role: 'viewer' }));
  });
  afterAll(() => t.close());

  const ids = (names: string[]) => names.map((n) => id[n]!);

  describe('who brought an asset in', () => {
    it('is recorded on every path that creates an asset, and copied to the search index', async () => {
      const rows = await t.database.db.selectFrom('assets').select(['id', 'uploaded_by']).where('id', 'in', Object.values(id)).execute();
      const by = new Map(rows.map((r) => [r.id, r.uploaded_by]));
      expect(by.get(id['secret-admin.jpg']!)).toBe(admin.user.id); // POST /api/upload-asset
      expect(by.get(id['secret-manager.txt']!)).toBe(manager.user.id);
      expect(by.get(id['viewer-own.txt']!)).toBe(viewer.user.id); // start-upload / complete-upload
      expect(by.get(id['secret-admin.png']!)).toBe(admin.user.id); // a conversion: its requester
      expect(by.get(id['inside.txt']!)).toBe(admin.user.id); // a ZIP import: its requester
      const converted = await t.database.db.selectFrom('assets').select('visibility').where('id', '=', id['secret-admin.png']!).executeTakeFirstOrThrow();
      expect(converted.visibility).toBe(1);

      const indexed = await sql<{ ref_id: number; uploaded_by: number | null }>`
        SELECT ref_id, uploaded_by FROM search_documents WHERE kind = ${KIND.digital_assets} AND workspace_id = ${ws}`.execute(t.database.db);
      const live = rows.filter((r) => indexed.rows.some((d) => Number(d.ref_id) === r.id));
      expect(live.length).toBeGreaterThanOrEqual(VISIBLE.length + HIDDEN.length);
      for (const doc of indexed.rows) expect(doc.uploaded_by === null ? null : Number(doc.uploaded_by)).toBe(by.get(Number(doc.ref_id)) ?? null);
    });
  });

  describe('the asset list, one asset, and writes', () => {
    const list = async (who: Account, query = '') => {
      const page = data<{ items: { display_file_name: string }[]; total: number }>(await request(who, 'GET', `/dam/assets?workspaceId=${ws}&per_page=250${query}`));
      return { names: page.items.map((a) => a.display_file_name), total: page.total };
    };

    it('lists and counts public assets and their own private ones for the viewer, everything for the manager', async () => {
      const mine = await list(viewer);
      expect(sorted(mine.names)).toEqual(sorted(VISIBLE));
      expect(mine.total).toBe(VISIBLE.length);
      expect(sorted((await list(manager)).names)).toEqual(sorted([...VISIBLE, ...HIDDEN]));
      expect(sorted((await list(admin)).names)).toEqual(sorted([...VISIBLE, ...HIDDEN]));
      // The other viewer does not see the first viewer's private asset.
      expect(sorted((await list(viewer2)).names)).toEqual(sorted(VISIBLE.filter((n) => n !== 'viewer-own.txt')));
    });

    it('counts only what the viewer sees when the total is counted (a full page), in a folder too, in every order', async () => {
      const total = async (who: Account, query: string) => data<{ total: number }>(await request(who, 'GET', `/dam/assets?workspaceId=${ws}&per_page=1${query}`)).total;
      expect(await total(viewer, '')).toBe(VISIBLE.length);
      expect(await total(viewer, `&folder_id=${folder}`)).toBe(2);
      // The conversion's result went into its source's folder.
      expect(await total(manager, `&folder_id=${folder}`)).toBe(5);
      expect(await total(viewer, '&folder_id=root')).toBe(3);
      expect(await total(viewer, '&sort_by=display_file_name:asc')).toBe(VISIBLE.length);
      const inFolder = await list(viewer, `&folder_id=${folder}&sort_by=file_size:desc`);
      expect(sorted(inFolder.names)).toEqual(['public-harbour.jpg', 'viewer-own.txt']);
      // Page 2 of one: the count path, past the first page.
      expect(data<{ items: unknown[]; total: number }>(await request(viewer, 'GET', `/dam/assets?workspaceId=${ws}&folder_id=${folder}&per_page=1&page=2`)).total).toBe(2);
    });

    it('answers 404 for another\'s private asset (read, edit, delete), 200 for their own and for public ones', async () => {
      for (const name of HIDDEN) {
        expectError(await request(viewer, 'GET', `/dam/assets/${id[name]}`), 404, 'NOT_FOUND');
        expectError(await request(viewer, 'PATCH', `/dam/assets/${id[name]}`, { tags: ['x'] }), 404, 'NOT_FOUND');
        expectError(await request(viewer, 'DELETE', `/dam/assets/${id[name]}`), 404, 'NOT_FOUND');
        expect((await request(manager, 'GET', `/dam/assets/${id[name]}`)).statusCode).toBe(200);
      }
      // The same body as an asset that does not exist.
      const missing = await request(viewer, 'GET', '/dam/assets/987654');
      expect((await request(viewer, 'GET', `/dam/assets/${id['secret-admin.jpg']}`)).body).toBe(missing.body);
      expect(data<{ visibility: number }>(await request(viewer, 'GET', `/dam/assets/${id['viewer-own.txt']}`)).visibility).toBe(1);
      expect((await request(viewer, 'GET', `/dam/assets/${id['public-harbour.jpg']}`)).statusCode).toBe(200);
      // Their own, visible: the role decides (viewers do not edit).
      expectError(await request(viewer, 'PATCH', `/dam/assets/${id['viewer-own.txt']}`, { tags: ['x'] }), 403, 'FORBIDDEN');
      expectError(await request(viewer2, 'GET', `/dam/assets/${id['viewer-own.txt']}`), 404, 'NOT_FOUND');
      // Bulk and conversions are writes: refused by role, never by revealing the asset.
      expectError(await request(viewer, 'POST', '/dam/assets/bulk', { workspaceId: ws, action: 'tag', asset_ids: [id['secret-admin.jpg']], tags: ['x'] }), 403, 'FORBIDDEN');
      expectError(await request(viewer, 'POST', '/convert/image', { assetId: id['secret-admin.jpg'], format: 'webp' }), 404, 'NOT_FOUND');
      expectError(await request(viewer, 'POST', '/convert/image', { assetId: id['public-harbour.jpg'], format: 'webp' }), 403, 'FORBIDDEN');
    });
  });

  describe('search', () => {
    type Result = { found: number; hits: { document: { display_file_name: string; thumbnail_url?: string; file_url?: string } }[]; facet_counts: { field_name: string; counts: { value: string; count: number }[] }[] };
    const search = async (who: Account, body: object): Promise<Result[]> => {
      const res = await request(who, 'POST', '/search-engine/search', body);
      expect(res.statusCode, res.body).toBe(200);
      return res.json<{ results: Result[] }>().results;
    };
    const helper = async (who: Account, path: string, body: object): Promise<Result> => data<Result>(await request(who, 'POST', path, body));
    const names = (r: Result) => r.hits.map((h) => h.document.display_file_name);
    const facet = (r: Result, field: string) => Object.fromEntries(r.facet_counts.find((f) => f.field_name === field)!.counts.map((c) => [c.value, c.count]));

    it('finds, counts and facets only what the viewer sees, with and without words, in every order', async () => {
      const everything = { request: { q: '*', collections: ['digital_assets'] }, commonSearchParams: { per_page: 50, facet_by: 'visibility,tags,file_type' }, workspace_id_filter: ws };
      const [mine] = await search(viewer, everything);
      expect(sorted(names(mine!))).toEqual(sorted(VISIBLE));
      expect(mine!.found).toBe(VISIBLE.length);
      expect(facet(mine!, 'visibility')).toEqual({ '0': VISIBLE.length - 1, '1': 1 });
      expect(Object.keys(facet(mine!, 'tags'))).not.toContain('secret-admin-tag');
      expect(Object.values(facet(mine!, 'file_type')).reduce((a, b) => a + b, 0)).toBe(VISIBLE.length);
      const [theirs] = await search(manager, everything);
      expect(sorted(names(theirs!))).toEqual(sorted([...VISIBLE, ...HIDDEN]));
      // The conversion's result has its source's tags.
      expect(facet(theirs!, 'tags')).toMatchObject({ 'secret-admin-tag': 2, 'secret-manager-tag': 1 });

      for (const sort_by of ['display_file_name:asc', 'file_size:desc', 'taken_at:desc', 'created_at:asc']) {
        const [r] = await search(viewer, { ...everything, request: { ...everything.request, sort_by } });
        expect(sorted(names(r!)), sort_by).toEqual(sorted(VISIBLE));
      }
      // With words: a text query, counted and faceted in one statement.
      const words = { ...everything, request: { q: 'secret', collections: ['digital_assets'] } };
      const [few] = await search(viewer, words);
      expect(names(few!)).toEqual(['copy-of-secret.jpg']);
      expect(few!.found).toBe(1);
      expect(facet(few!, 'visibility')).toEqual({ '0': 1 });
      expect(sorted(names((await search(manager, words))[0]!))).toEqual(sorted(['secret-admin.jpg', 'secret-manager.txt', 'secret-admin.png', 'copy-of-secret.jpg']));
      // The viewer's own private asset is found by its words.
      expect(names((await search(viewer, { ...words, request: { q: 'viewer', collections: ['digital_assets'] } }))[0]!)).toEqual(['viewer-own.txt']);
    });

    it('keeps the rule per workspace when the caller searches all theirs (a viewer here, an admin in their own)', async () => {
      const all = { request: { q: '*', collections: ['digital_assets'] }, commonSearchParams: { per_page: 50 } };
      const [r] = await search(viewer, all);
      expect(sorted(names(r!))).toEqual(sorted([...VISIBLE, 'viewer-personal-secret.txt']));
      expect(r!.found).toBe(VISIBLE.length + 1);
      const [words] = await search(viewer, { ...all, request: { q: 'secret', collections: ['digital_assets'] } });
      expect(sorted(names(words!))).toEqual(['copy-of-secret.jpg', 'viewer-personal-secret.txt']);
      const [sortedByName] = await search(viewer, { ...all, request: { ...all.request, sort_by: 'display_file_name:desc' } });
      expect(sorted(names(sortedByName!))).toEqual(sorted([...VISIBLE, 'viewer-personal-secret.txt']));
    });

    it('answers the same through the helper endpoints, filters included (visibility, duplicate_of, collection_id)', async () => {
      const base = { q: '*', per_page: 50, workspace_id_filter: ws };
      expect(names(await helper(viewer, '/search-engine/search-assets', { ...base, filter_by: 'visibility:!=0' }))).toEqual(['viewer-own.txt']);
      expect(sorted(names(await helper(manager, '/search-engine/search-assets', { ...base, filter_by: 'visibility:!=0' })))).toEqual(
        sorted(['secret-admin.jpg', 'secret-manager.txt', 'secret-admin.png', 'viewer-own.txt']),
      );
      const facets = await helper(viewer, '/search-engine/search-assets', { ...base, facet_by: 'visibility,tags' });
      expect(facets.found).toBe(VISIBLE.length);
      expect(facet(facets, 'visibility')).toEqual({ '0': VISIBLE.length - 1, '1': 1 });
      // A private asset the viewer may not see names nothing as duplicate_of, and is no duplicate of a public one.
      expect(names(await helper(viewer, '/search-engine/search-assets', { ...base, filter_by: `duplicate_of:=${id['secret-admin.jpg']}` }))).toEqual([]);
      expect(names(await helper(manager, '/search-engine/search-assets', { ...base, filter_by: `duplicate_of:=${id['secret-admin.jpg']}` }))).toEqual(['copy-of-secret.jpg']);
      expect(names(await helper(viewer, '/search-engine/search-assets', { ...base, filter_by: `duplicate_of:=${id['copy-of-secret.jpg']}` }))).toEqual([]);
      expect(names(await helper(manager, '/search-engine/search-assets', { ...base, filter_by: `duplicate_of:=${id['copy-of-secret.jpg']}` }))).toEqual(['secret-admin.jpg']);
      expect(sorted(names(await helper(viewer, '/search-engine/search-assets', { ...base, filter_by: `collection_id:=${collection}` })))).toEqual(
        ['public-harbour.jpg', 'viewer-own.txt'],
      );
      // Folders and collections are unaffected (their visibility is a label).
      expect(names(await helper(viewer, '/search-engine/search-folders', base))).toEqual(['Shoot']);
      expect(names(await helper(viewer, '/search-engine/search-collages', base))).toEqual(['Picks']);
    });

    it('suggests no tag or name of a private asset the viewer may not see', async () => {
      const suggest = async (who: Account, q: string, inWs = true) =>
        data<string[]>(await request(who, 'GET', `/search-engine/suggestions?q=${encodeURIComponent(q)}${inWs ? `&workspaceId=${ws}` : ''}`));
      expect(await suggest(viewer, 'secret')).toEqual([]);
      expect(await suggest(viewer2, 'viewer')).toEqual([]);
      expect(sorted(await suggest(manager, 'secret'))).toEqual(sorted(['secret-admin-tag', 'secret-manager-tag', 'secret-admin.jpg', 'secret-admin.png', 'secret-manager.txt']));
      expect(sorted(await suggest(viewer, 'viewer'))).toEqual(['viewer-own.txt', 'viewer-tag']);
      expect(await suggest(viewer, 'harb')).toEqual(['harbour']);
      expect(await suggest(viewer, 'Shoo')).toEqual(['Shoot']);
      // Across the caller's workspaces: their own workspace's private asset is theirs (they are its admin).
      expect(sorted(await suggest(viewer, 'viewer', false))).toEqual(['viewer-own.txt', 'viewer-personal-secret.txt', 'viewer-tag']);
      expect(await suggest(viewer2, 'secret', false)).toEqual([]);
    });

    it('keeps a viewer from a cached answer of a manager (answer cache)', async () => {
      const body = { request: { q: '*', collections: ['digital_assets'] }, commonSearchParams: { per_page: 50 }, workspace_id_filter: ws };
      await search(manager, body);
      await search(manager, body);
      expect(sorted(names((await search(viewer, body))[0]!))).toEqual(sorted(VISIBLE));
      expect(sorted(names((await search(viewer2, body))[0]!))).toEqual(sorted(VISIBLE.filter((n) => n !== 'viewer-own.txt')));
    });
  });

  describe('folders and collections', () => {
    it('counts and lists only the members the viewer sees', async () => {
      const count = async (who: Account) =>
        data<{ items: { id: number; asset_count: number }[] }>(await request(who, 'GET', `/dam/collections?workspaceId=${ws}`)).items.find((c) => c.id === collection)!.asset_count;
      expect(await count(viewer)).toBe(2);
      expect(await count(viewer2)).toBe(1);
      expect(await count(manager)).toBe(4);
      const one = async (who: Account) => data<{ asset_ids: number[]; asset_count: number }>(await request(who, 'GET', `/dam/collections/${collection}`));
      expect(await one(viewer)).toMatchObject({ asset_ids: ids(['public-harbour.jpg', 'viewer-own.txt']), asset_count: 2 });
      expect(await one(manager)).toMatchObject({ asset_ids: ids(['public-harbour.jpg', 'secret-admin.jpg', 'secret-manager.txt', 'viewer-own.txt']), asset_count: 4 });
      // The folder lists as before; its assets are listed (and counted) by GET /dam/assets?folder_id=, above.
      expect(data<{ items: { name: string }[] }>(await request(viewer, 'GET', `/dam/folders?workspaceId=${ws}`)).items.map((f) => f.name)).toEqual(['Shoot']);
    });
  });

  describe('downloads, versions and media URLs', () => {
    const currentVersion = async (name: string) =>
      (await t.database.db.selectFrom('asset_versions').select('id').where('asset_id', '=', id[name]!).where('is_current', '=', 1).executeTakeFirstOrThrow()).id;
    const download = (who: Account, name: string, extra = '') =>
      request(who, 'GET', `/storage/download?key=${encodeURIComponent(`${ws}/digital_assets/${id[name]}`)}&workspaceId=${ws}${extra}`);

    it('downloads public assets and their own, never another\'s private one (object, version, embedded metadata)', async () => {
      expect((await download(viewer, 'public-harbour.jpg')).statusCode).toBe(200);
      expect((await download(viewer, 'viewer-own.txt')).body).toBe('the viewer wrote this');
      for (const name of HIDDEN) {
        expectError(await download(viewer, name), 404, 'NOT_FOUND');
        expectError(await download(viewer, name, '&embed_metadata=true'), 404, 'NOT_FOUND');
        const version = await currentVersion(name);
        expectError(await download(viewer, name, ''), 404, 'NOT_FOUND');
        expectError(await request(viewer, 'GET', `/dam/versions/${version}/download`), 404, 'NOT_FOUND');
        expectError(await request(viewer, 'GET', `/dam/versions/${version}/preview`), 404, 'NOT_FOUND');
        expectError(await request(viewer, 'GET', `/dam/assets/${id[name]}/versions`), 404, 'NOT_FOUND');
        expect((await download(manager, name)).statusCode).toBe(200);
      }
      const versionKey = `${ws}/digital_assets/${id['secret-admin.jpg']}/versions/${await currentVersion('secret-admin.jpg')}`;
      expectError(await request(viewer, 'GET', `/storage/download?key=${encodeURIComponent(versionKey)}&workspaceId=${ws}`), 404, 'NOT_FOUND');
      expect((await request(viewer, 'GET', `/dam/versions/${await currentVersion('viewer-own.txt')}/download`)).statusCode).toBe(200);
    });

    it('signs media URLs for the caller: they serve while that caller still sees the asset, and a viewer cannot get one for a private asset', async () => {
      const versions = (who: Account, name: string) => t.request({ method: 'GET', url: `/dam/assets/${id[name]}/versions`, token: who.token }).then((r) => r.json<VersionJson[]>());
      const [mine] = await versions(viewer, 'public-harbour.jpg');
      expect(mine!.file_url).toContain(`grant=u${viewer.user.id}`);
      expect((await t.request({ method: 'GET', url: pathOf(mine!.file_url) })).statusCode).toBe(200);
      // The grant is signed with the rest: another user's id in it is a bad signature.
      expectError(await t.request({ method: 'GET', url: pathOf(mine!.file_url).replace(`grant=u${viewer.user.id}`, `grant=u${manager.user.id}`) }), 403, 'INVALID_SIGNATURE');
      expectError(await t.request({ method: 'GET', url: pathOf(mine!.file_url).replace(`grant=u${viewer.user.id}`, 'grant=s1') }), 403, 'INVALID_SIGNATURE');
      expectError(await t.request({ method: 'GET', url: pathOf(mine!.file_url).replace(/&grant=[^&]*/, '') }), 403, 'INVALID_SIGNATURE');

      // A second manager's URL of the admin's private asset serves while they are a manager, not once they are a viewer.
      const other = await registerUser(t, { name: 'Mia Manager' });
      await addMember(t, admin, ws, other, 'manager');
      const [theirs] = await versions(other, 'secret-admin.jpg');
      const url = pathOf(theirs!.file_url);
      expect((await t.request({ method: 'GET', url })).statusCode).toBe(200);
      data(await request(admin, 'PATCH', `/workspaces/${ws}/members/${other.user.id}`, { role: 'viewer' }));
      expectError(await t.request({ method: 'GET', url }), 404, 'NOT_FOUND');
      data(await request(admin, 'PATCH', `/workspaces/${ws}/members/${other.user.id}`, { role: 'manager' }));
      expect((await t.request({ method: 'GET', url })).statusCode).toBe(200);
      data(await request(admin, 'DELETE', `/workspaces/${ws}/members/${other.user.id}`));
      expectError(await t.request({ method: 'GET', url }), 404, 'NOT_FOUND');

      // The viewer's own private asset: URLs for them; a search hands them none of another's.
      const [own] = await versions(viewer, 'viewer-own.txt');
      expect((await t.request({ method: 'GET', url: pathOf(own!.file_url) })).statusCode).toBe(200);
      const hits = (await request(viewer, 'POST', '/search-engine/search-assets', { q: '*', per_page: 50, workspace_id_filter: ws })).json<
        Envelope<{ hits: { document: { id: string; file_url?: string } }[] }>
      >().data.hits;
      expect(hits.every((h) => h.document.file_url?.includes(`grant=u${viewer.user.id}`))).toBe(true);
      expect(hits.map((h) => Number(h.document.id))).not.toContain(id['secret-admin.jpg']);
    });
  });

  describe('ZIP', () => {
    const entries = async (res: LightMyRequestResponse) => {
      expect(res.statusCode, res.body).toBe(200);
      return (await readZip(res.rawPayload)).entries.filter((e) => !e.name.endsWith('/')).map((e) => e.name.split('/').pop()!);
    };

    it('archives only what the viewer sees: a listed private asset is 404, a folder or collection holds the rest', async () => {
      const zip = (who: Account, query: string) => request(who, 'GET', `/zip/download?workspaceId=${ws}&${query}`);
      expectError(await zip(viewer, `asset_ids=${id['secret-admin.jpg']}`), 404, 'NOT_FOUND');
      expectError(await zip(viewer, `asset_ids=${id['public-harbour.jpg']},${id['secret-manager.txt']}`), 404, 'NOT_FOUND');
      expect(sorted(await entries(await zip(viewer, `asset_ids=${id['public-harbour.jpg']},${id['viewer-own.txt']}`)))).toEqual(['public-harbour.jpg', 'viewer-own.txt']);
      expect(sorted(await entries(await zip(viewer, `folder_id=${folder}`)))).toEqual(['public-harbour.jpg', 'viewer-own.txt']);
      expect(sorted(await entries(await zip(viewer, `collection_id=${collection}`)))).toEqual(['public-harbour.jpg', 'viewer-own.txt']);
      expect(sorted(await entries(await zip(manager, `folder_id=${folder}`)))).toEqual(['public-harbour.jpg', 'secret-admin.jpg', 'secret-admin.png', 'secret-manager.txt', 'viewer-own.txt']);
      // A signed download link: refused for a private asset, and the folder's link holds what the viewer sees.
      expectError(await request(viewer, 'POST', '/zip/link', { workspaceId: ws, asset_ids: [id['secret-admin.jpg']] }), 404, 'NOT_FOUND');
      const link = data<{ url: string }>(await request(viewer, 'POST', '/zip/link', { workspaceId: ws, folder_id: folder }));
      expect(sorted(await entries(await t.request({ method: 'GET', url: pathOf(link.url) })))).toEqual(['public-harbour.jpg', 'viewer-own.txt']);
      // Reading a stored archive: a private one is 404 for the viewer (for the manager it is simply no ZIP).
      expectError(await request(viewer, 'GET', `/zip/list?assetId=${id['secret-admin.jpg']}`), 404, 'NOT_FOUND');
      expectError(await request(manager, 'GET', `/zip/list?assetId=${id['secret-admin.jpg']}`), 422, 'ZIP_INVALID');
      expect((await request(viewer, 'GET', `/zip/list?assetId=${id['archive.zip']}`)).statusCode).toBe(200);
    });

    it('shows an import while its archive is visible, without the ids of assets the viewer does not see', async () => {
      const job = await request(viewer, 'GET', `/zip/extract/${zipImport}`);
      expect(data<{ entries: { items: { asset_id: number | null }[] } }>(job).entries.items.map((e) => e.asset_id)).toEqual([id['inside.txt']]);
      data(await request(admin, 'PATCH', `/dam/assets/${id['inside.txt']}`, { visibility: 1 }));
      try {
        expect(data<{ entries: { items: { asset_id: number | null }[] } }>(await request(viewer, 'GET', `/zip/extract/${zipImport}`)).entries.items[0]!.asset_id).toBeNull();
        data(await request(admin, 'PATCH', `/dam/assets/${id['archive.zip']}`, { visibility: 1 }));
        expectError(await request(viewer, 'GET', `/zip/extract/${zipImport}`), 404, 'NOT_FOUND');
        expect((await request(manager, 'GET', `/zip/extract/${zipImport}`)).statusCode).toBe(200);
      } finally {
        for (const name of ['inside.txt', 'archive.zip']) data(await request(admin, 'PATCH', `/dam/assets/${id[name]}`, { visibility: 0 }));
      }
    });
  });

  describe('duplicates, activity, trash, conversions', () => {
    it('tells of duplicates among the assets the viewer sees only', async () => {
      const sha = createHash('sha256').update(adminPrivBytes.current).digest('hex');
      const check = async (who: Account) =>
        data<{ duplicates: { sha256: string; asset_ids: number[] }[] }>(await request(who, 'POST', '/dam/assets/check-duplicates', { workspaceId: ws, hashes: [sha] })).duplicates;
      expect(await check(viewer)).toEqual([{ sha256: sha, asset_ids: [id['copy-of-secret.jpg']] }]);
      expect(await check(manager)).toEqual([{ sha256: sha, asset_ids: ids(['secret-admin.jpg', 'copy-of-secret.jpg']).sort((a, b) => a - b) }]);
      const ownSha = createHash('sha256').update('the viewer wrote this').digest('hex');
      const shaOf = (await t.database.db.selectFrom('assets').select('sha256').where('id', '=', id['viewer-own.txt']!).executeTakeFirstOrThrow()).sha256;
      expect(shaOf).toBe(ownSha);
      const other = await request(viewer2, 'POST', '/dam/assets/check-duplicates', { workspaceId: ws, hashes: [ownSha] });
      expect(data<{ duplicates: unknown[] }>(other).duplicates).toEqual([]);
    });

    it('leaves entries about another\'s private asset out of the viewer\'s activity log', async () => {
      type Entry = { action: string; asset_id: number | null; subject: { name: string }; changes: Record<string, { before: unknown; after: unknown }> };
      const log = async (who: Account, query = '') => data<{ items: Entry[] }>(await request(who, 'GET', `/dam/activity?workspaceId=${ws}&limit=200${query}`)).items;
      const mine = await log(viewer);
      const hidden = ids(HIDDEN).concat(id['trashed-secret.txt']!);
      expect(mine.filter((e) => e.asset_id !== null && hidden.includes(e.asset_id))).toEqual([]);
      expect(JSON.stringify(mine)).not.toMatch(/secret-admin|secret-manager|trashed-secret/);
      expect(mine.some((e) => e.action === 'asset.upload' && e.asset_id === id['public-harbour.jpg'])).toBe(true);
      expect(mine.some((e) => e.asset_id === id['viewer-own.txt'])).toBe(true);
      // The collection's membership entry names only the assets the viewer sees.
      const added = mine.find((e) => e.action === 'collection.add_assets')!;
      expect(added.changes.asset_ids!.after).toEqual(ids(['public-harbour.jpg', 'viewer-own.txt']));
      expect(await log(viewer, `&asset_id=${id['secret-admin.jpg']}`)).toEqual([]);
      const theirs = await log(manager);
      expect(theirs.some((e) => e.asset_id === id['secret-admin.jpg'])).toBe(true);
      expect(theirs.find((e) => e.action === 'collection.add_assets')!.changes.asset_ids!.after).toHaveLength(4);
    });

    it('lists only the trashed assets the viewer would see', async () => {
      const trash = async (who: Account) => {
        const page = data<{ items: { name: string; thumbnail_url: string | null }[]; total: number }>(await request(who, 'GET', `/dam/trash?workspaceId=${ws}`));
        return { names: page.items.map((i) => i.name), total: page.total };
      };
      expect(await trash(viewer)).toEqual({ names: ['trashed-public.txt'], total: 1 });
      expect(sorted((await trash(manager)).names)).toEqual(['trashed-public.txt', 'trashed-secret.txt']);
    });

    it('shows a conversion only when the viewer sees its source and result', async () => {
      const jobs = async (who: Account) => data<{ items: { id: number }[] }>(await request(who, 'GET', `/convert/jobs?workspaceId=${ws}`)).items.map((c) => c.id);
      expect(await jobs(viewer)).toEqual([]);
      expect(await jobs(manager)).toEqual([conversion]);
      expectError(await request(viewer, 'GET', `/convert/status/${conversion}`), 404, 'NOT_FOUND');
      expect((await request(manager, 'GET', `/convert/status/${conversion}`)).statusCode).toBe(200);
    });
  });

  describe('shared links (public surfaces)', () => {
    it('refuses a link to private assets, naming them', async () => {
      const res = await createShareRequest(t, admin, { workspaceId: ws, asset_ids: ids(['public-harbour.jpg', 'secret-admin.jpg', 'secret-manager.txt']) });
      expectError(res, 400, 'VALIDATION_ERROR', 'asset_ids');
      const body = res.json<{ error: string; private_asset_ids: number[] }>();
      expect(body.private_asset_ids).toEqual(ids(['secret-admin.jpg', 'secret-manager.txt']));
      expect(body.error).toContain(String(id['secret-admin.jpg']));
      expect(body.error).toContain(String(id['secret-manager.txt']));
      const version = (await t.database.db.selectFrom('asset_versions').select('id').where('asset_id', '=', id['secret-admin.jpg']!).executeTakeFirstOrThrow()).id;
      const byVersion = await createShareRequest(t, admin, { workspaceId: ws, version_id: version });
      expectError(byVersion, 400, 'VALIDATION_ERROR', 'version_id');
      expect(byVersion.json<{ private_asset_ids: number[] }>().private_asset_ids).toEqual([id['secret-admin.jpg']]);
      // Viewers cannot make links at all.
      expectError(await createShareRequest(t, viewer, { workspaceId: ws, asset_ids: [id['public-harbour.jpg']] }), 403, 'FORBIDDEN');
    });

    it('shows only public assets of a shared folder or collection, in its list, ZIP and downloads, also after an asset turns private', async () => {
      const folderLink = data<ShareJson>(await createShareRequest(t, admin, { workspaceId: ws, folder_id: folder }));
      const collectionLink = data<ShareJson>(await createShareRequest(t, admin, { workspaceId: ws, collection_id: collection }));
      const listLink = data<ShareJson>(await createShareRequest(t, admin, { workspaceId: ws, asset_ids: [id['public-harbour.jpg']] }));
      const versionLink = data<ShareJson>(await createShareRequest(t, admin, { workspaceId: ws, version_id: (await t.database.db.selectFrom('asset_versions').select('id').where('asset_id', '=', id['public-harbour.jpg']!).executeTakeFirstOrThrow()).id }));
      const items = async (key: string) => (await viewShare(t, key)).items.map((i) => i.display_file_name);
      expect(await items(folderLink.key)).toEqual(['public-harbour.jpg']);
      expect((await viewShare(t, folderLink.key)).total).toBe(1);
      expect(await items(collectionLink.key)).toEqual(['public-harbour.jpg']);
      const zip = await publicRequest(t, `/shared/public/${folderLink.key}/zip`);
      expect((await readZip(zip.rawPayload)).entries.filter((e) => !e.name.endsWith('/')).map((e) => e.name)).toEqual(['public-harbour.jpg']);
      for (const name of ['secret-admin.jpg', 'viewer-own.txt']) {
        expectError(await publicRequest(t, `/shared/public/${folderLink.key}/assets/${id[name]}/download`), 404, 'NOT_FOUND');
      }
      expect((await publicRequest(t, `/shared/public/${folderLink.key}/assets/${id['public-harbour.jpg']}/download`)).statusCode).toBe(200);

      // The item's media URLs are the link's (issue #28): they serve while the link shows the asset, and it is public.
      const [item] = (await viewShare(t, listLink.key)).items;
      expect(item!.thumbnail_url).toContain(`grant=s${listLink.id}`);
      expect((await t.request({ method: 'GET', url: pathOf(item!.thumbnail_url) })).statusCode).toBe(200);

      data(await request(admin, 'PATCH', `/dam/assets/${id['public-harbour.jpg']}`, { visibility: 1 }));
      try {
        for (const link of [folderLink, collectionLink, listLink]) {
          const view = await viewShare(t, link.key);
          expect(view.items).toEqual([]);
          expect(view.total).toBe(0);
        }
        expectError(await publicRequest(t, `/shared/public/${listLink.key}/assets/${id['public-harbour.jpg']}/download`), 404, 'NOT_FOUND');
        const emptyZip = await publicRequest(t, `/shared/public/${folderLink.key}/zip`);
        expect((await readZip(emptyZip.rawPayload)).entries.filter((e) => !e.name.endsWith('/'))).toEqual([]);
        expectError(await publicRequest(t, `/shared/public/${versionLink.key}`), 404, 'NOT_FOUND');
        expectError(await t.request({ method: 'GET', url: pathOf(item!.thumbnail_url) }), 404, 'NOT_FOUND');
        // Members see it as before: the admin, and not the viewers.
        expect((await request(admin, 'GET', `/dam/assets/${id['public-harbour.jpg']}`)).statusCode).toBe(200);
        expectError(await request(viewer, 'GET', `/dam/assets/${id['public-harbour.jpg']}`), 404, 'NOT_FOUND');
      } finally {
        data(await request(admin, 'PATCH', `/dam/assets/${id['public-harbour.jpg']}`, { visibility: 0 }));
      }
      expect(await items(listLink.key)).toEqual(['public-harbour.jpg']);
      expect((await t.request({ method: 'GET', url: pathOf(item!.thumbnail_url) })).statusCode).toBe(200);
    });
  });
});

/** Upgrading an installation (migration 0025): existing assets have no uploader; the index gets the column and keeps in step. */
describe.each(dialects)('migration 0025 on %s', (dialect) => {
  const open: DatabaseHandle[] = [];
  afterEach(async () => {
    for (const handle of open.splice(0)) await handle.close();
  });

  it('adds uploaded_by (null for existing assets) to assets and the index, which a fresh backfill reproduces and the triggers follow', async () => {
    const handle = await openDatabaseAt(dialect, '0024_team_access');
    open.push(handle);
    const db = handle.db;
    await sql`INSERT INTO users (email, name, password_hash, created_at, modified_at) VALUES ('u@example.test', 'U', NULL, 1, 1)`.execute(db);
    await sql`INSERT INTO workspaces (name, created_at, modified_at) VALUES ('old', 1, 1)`.execute(db);
    await sql`INSERT INTO assets (workspace_id, folder_id, display_file_name, name_key, file_name, file_type, mime_type, file_size, tags, visibility, metadata,
                created_by, created_at, modified_at, status)
              VALUES (1, NULL, 'private.jpg', 'private.jpg', 'private.jpg', 'image', 'image/jpeg', 10, '["a"]', 1, '{}', 'U', 4, 5, 'ready')`.execute(db);
    const before = await indexSnapshot(handle);

    await migrateToLatest(handle);
    const uploader = async () => {
      const asset = await sql<{ uploaded_by: number | null }>`SELECT uploaded_by FROM assets`.execute(db);
      const doc = await sql<{ uploaded_by: number | null }>`SELECT uploaded_by FROM search_documents`.execute(db);
      return [asset.rows[0]!.uploaded_by, doc.rows[0]!.uploaded_by].map((v) => (v === null ? null : Number(v)));
    };
    expect(await uploader()).toEqual([null, null]);
    const migrated = await indexSnapshot(handle);
    expect(migrated).toEqual(before);
    await dropSearchSchema(handle);
    await createSearchSchema[dialect](db);
    expect(await indexSnapshot(handle)).toEqual(migrated);
    expect(await uploader()).toEqual([null, null]);

    // The triggers copy a new uploader, and the account's deletion sets both to null.
    await sql`UPDATE assets SET uploaded_by = 1`.execute(db);
    expect(await uploader()).toEqual([1, 1]);
    await sql`DELETE FROM users WHERE id = 1`.execute(db);
    expect(await uploader()).toEqual([null, null]);
  });
});
