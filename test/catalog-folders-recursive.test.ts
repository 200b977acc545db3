import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AssetView, FolderListItemView, PageView } from '../src/contracts/catalog.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { expectError, makeAsset, makeFolder, makeTeam, type Team } from './helpers/catalog-factories.js';
import type { Account, Envelope } from './helpers/factories.js';
import { dialects } from './helpers/databases.js';

/**
 * Issue #27, "Folders hide their sub-folders": GET /dam/assets?folder_id=n&recursive=true lists the assets of
 * folder n and of every folder below it, and GET /dam/folders tells what is directly in each folder.
 *
 * The tree of workspace A:  Top (top.jpg) ─┬─ Alpha (alpha-1, alpha-2) ── Deep (deep.jpg, admin's private, viewer's own private)
 *                                          ├─ Beta (beta.jpg)
 *                                          └─ Gone (in the trash, gone.jpg)
 *                           Other (other.jpg), and loose.jpg in no folder. Workspace B has a folder of its own.
 */
describe.each(dialects)('recursive folder listings on %s', (dialect) => {
  let t: TestApp;
  let team: Team;
  const folder: Record<string, number> = {};

  const get = <T>(who: Account, url: string): Promise<T> =>
    t.request({ method: 'GET', url, token: who.token }).then((res) => {
      if (res.statusCode !== 200) throw new Error(`GET ${url} answered ${res.statusCode} ${res.body}`);
      return res.json<Envelope<T>>().data;
    });
  const list = (who: Account, qs: string) => get<PageView<AssetView>>(who, `/dam/assets?workspaceId=${team.ws}&${qs}`);
  const names = (page: PageView<AssetView>) => page.items.map((a) => a.display_file_name);
  const asset = (folderId: number | null, name: string, extra: Parameters<typeof makeAsset>[2] = {}) =>
    makeAsset(t.database.db, team.ws, { folder_id: folderId, display_file_name: name, file_name: name, ...extra });

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    team = await makeTeam(t);
    const { owner } = team;
    folder.top = (await makeFolder(t, owner, team.ws, { name: 'Top' })).id;
    folder.alpha = (await makeFolder(t, owner, team.ws, { name: 'Alpha', parent_id: folder.top })).id;
    folder.deep = (await makeFolder(t, owner, team.ws, { name: 'Deep', parent_id: folder.alpha })).id;
    folder.beta = (await makeFolder(t, owner, team.ws, { name: 'Beta', parent_id: folder.top })).id;
    folder.gone = (await makeFolder(t, owner, team.ws, { name: 'Gone', parent_id: folder.top })).id;
    folder.other = (await makeFolder(t, owner, team.ws, { name: 'Other' })).id;
    folder.foreign = (await makeFolder(t, team.outsider, team.otherWs, { name: 'Foreign' })).id;

    await asset(folder.top, 'top.jpg');
    await asset(folder.alpha, 'alpha-1.jpg');
    await asset(folder.alpha, 'alpha-2.jpg');
    await asset(folder.alpha, 'still-uploading.jpg', { status: 'uploading' });
    await asset(folder.deep, 'deep.jpg');
    await asset(folder.deep, 'private-admin.jpg', { visibility: 1, uploaded_by: owner.user.id });
    await asset(folder.deep, 'private-viewer.jpg', { visibility: 1, uploaded_by: team.viewer.user.id });
    await asset(folder.beta, 'beta.jpg');
    await asset(folder.gone, 'gone.jpg');
    await asset(folder.other, 'other.jpg');
    await asset(null, 'loose.jpg');
    await makeAsset(t.database.db, team.otherWs, { folder_id: folder.foreign, display_file_name: 'foreign.jpg', file_name: 'foreign.jpg' });
    const trashed = await t.request({ method: 'DELETE', url: `/dam/folders/${folder.gone}?recursive=true`, token: owner.token });
    expect(trashed.statusCode, trashed.body).toBe(200);
  });
  afterAll(() => t.close());

  const SUBTREE = ['alpha-1.jpg', 'alpha-2.jpg', 'beta.jpg', 'deep.jpg', 'private-admin.jpg', 'private-viewer.jpg', 'top.jpg'];

  it('lists the folder and every live folder below it, sorted and counted as one list', async () => {
    const page = await list(team.manager, `folder_id=${folder.top}&recursive=true&sort_by=display_file_name:asc`);
    expect(names(page)).toEqual(SUBTREE);
    expect(page.total).toBe(SUBTREE.length);
    // Without recursive: only what is directly in the folder, as before.
    expect(names(await list(team.manager, `folder_id=${folder.top}`))).toEqual(['top.jpg']);
    expect(names(await list(team.manager, `folder_id=${folder.top}&recursive=false`))).toEqual(['top.jpg']);
    // A folder deeper down: its own subtree only.
    expect(names(await list(team.manager, `folder_id=${folder.alpha}&recursive=true&sort_by=display_file_name:desc`))).toEqual([
      'private-viewer.jpg',
      'private-admin.jpg',
      'deep.jpg',
      'alpha-2.jpg',
      'alpha-1.jpg',
    ]);
    // A leaf: the same as the plain listing.
    expect(names(await list(team.manager, `folder_id=${folder.beta}&recursive=true`))).toEqual(['beta.jpg']);
  });

  it('pages through the subtree without overlaps, with the total on every page', async () => {
    const seen: string[] = [];
    for (let page = 1; page <= 3; page += 1) {
      const p = await list(team.owner, `folder_id=${folder.top}&recursive=true&sort_by=display_file_name:asc&per_page=3&page=${page}`);
      expect(p).toMatchObject({ page, per_page: 3, total: SUBTREE.length });
      expect(p.items.length).toBe(page < 3 ? 3 : 1);
      seen.push(...names(p));
    }
    expect(seen).toEqual(SUBTREE);
    const past = await list(team.owner, `folder_id=${folder.top}&recursive=true&per_page=3&page=4`);
    expect(past).toMatchObject({ items: [], total: SUBTREE.length });
  });

  it("hides a viewer's view of others' private assets in sub-folders, in the page and the total", async () => {
    const page = await list(team.viewer, `folder_id=${folder.top}&recursive=true&sort_by=display_file_name:asc`);
    expect(names(page)).toEqual(SUBTREE.filter((n) => n !== 'private-admin.jpg'));
    expect(page.total).toBe(SUBTREE.length - 1);
    const paged = await list(team.viewer, `folder_id=${folder.top}&recursive=true&sort_by=display_file_name:asc&per_page=2&page=3`);
    expect(names(paged)).toEqual(['private-viewer.jpg', 'top.jpg']);
    expect(paged.total).toBe(SUBTREE.length - 1);
  });

  it("never reaches another workspace's folders", async () => {
    // The other workspace's folder is not a folder of this one, recursive or not.
    const foreign = await t.request({
      method: 'GET',
      url: `/dam/assets?workspaceId=${team.ws}&folder_id=${folder.foreign}&recursive=true`,
      token: team.owner.token,
    });
    expectError(foreign, 400, 'VALIDATION_ERROR', 'folder_id');
    // Its owner sees only their own folder's asset.
    const own = await get<PageView<AssetView>>(team.outsider, `/dam/assets?workspaceId=${team.otherWs}&folder_id=${folder.foreign}&recursive=true`);
    expect(names(own)).toEqual(['foreign.jpg']);
    // Nor does the recursive list of workspace A name any asset of workspace B.
    const mine = await list(team.owner, `folder_id=${folder.top}&recursive=true&per_page=100`);
    expect(mine.items.every((a) => a.workspace_id === team.ws)).toBe(true);
    // The outsider cannot list workspace A at all.
    const outsider = await t.request({ method: 'GET', url: `/dam/assets?workspaceId=${team.ws}&folder_id=${folder.top}&recursive=true`, token: team.outsider.token });
    expectError(outsider, 404, 'NOT_FOUND');
  });

  it.each([
    ['without folder_id', 'recursive=true'],
    ['with folder_id=root', 'folder_id=root&recursive=true'],
  ])('refuses recursive %s, naming recursive', async (_what, qs) => {
    const res = await t.request({ method: 'GET', url: `/dam/assets?workspaceId=${team.ws}&${qs}`, token: team.owner.token });
    expectError(res, 400, 'VALIDATION_ERROR', 'recursive');
  });

  it('refuses a recursive that is not a boolean', async () => {
    const res = await t.request({ method: 'GET', url: `/dam/assets?workspaceId=${team.ws}&folder_id=${folder.top}&recursive=maybe`, token: team.owner.token });
    expectError(res, 400, 'VALIDATION_ERROR', 'recursive');
  });

  describe('GET /dam/folders counts', () => {
    const folders = (who: Account, qs: string) => get<PageView<FolderListItemView>>(who, `/dam/folders?workspaceId=${team.ws}&${qs}`);
    const counts = (page: PageView<FolderListItemView>) =>
      Object.fromEntries(page.items.map((f) => [f.name, { assets: f.asset_count, folders: f.folder_count }]));

    it('tells the assets and sub-folders directly in each folder, leaving out the trash and uploads', async () => {
      expect(counts(await folders(team.owner, 'parent_id=root'))).toEqual({
        Top: { assets: 1, folders: 2 },
        Other: { assets: 1, folders: 0 },
      });
      expect(counts(await folders(team.owner, `parent_id=${folder.top}`))).toEqual({
        Alpha: { assets: 2, folders: 1 },
        Beta: { assets: 1, folders: 0 },
      });
      // Every folder of the workspace at once (the web client's tree), paged: the counts follow each page.
      const first = await folders(team.owner, 'sort_by=display_file_name:asc&per_page=2');
      expect(counts(first)).toEqual({ Alpha: { assets: 2, folders: 1 }, Beta: { assets: 1, folders: 0 } });
      const second = await folders(team.owner, 'sort_by=display_file_name:asc&per_page=2&page=2');
      expect(counts(second)).toEqual({ Deep: { assets: 3, folders: 0 }, Other: { assets: 1, folders: 0 } });
    });

    it("does not count private assets a viewer does not see", async () => {
      expect(counts(await folders(team.manager, `parent_id=${folder.alpha}`))).toEqual({ Deep: { assets: 3, folders: 0 } });
      expect(counts(await folders(team.viewer, `parent_id=${folder.alpha}`))).toEqual({ Deep: { assets: 2, folders: 0 } });
    });
  });
});
