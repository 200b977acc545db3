import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActivityService } from '../src/services/activity-service.js';
import { startHttpTestApp, type TestApp } from './helpers/app.js';
import { dialects } from './helpers/databases.js';
import { expectError, makeCollection, makeFolder, makeTeam, type Team } from './helpers/catalog-factories.js';
import { registerUser, type Account } from './helpers/factories.js';
import { deleteRequest, uploadFile } from './helpers/uploads.js';
import { listVersions, serverUpload, text, uploadVersion, type AssetJson } from './helpers/versions.js';

interface Entry {
  id: number;
  workspace_id: number;
  action: string;
  actor: { id: number | null; name: string };
  subject: { kind: string; id: number; name: string };
  asset_id: number | null;
  changes: Record<string, { before: unknown; after: unknown; omitted?: number }>;
  created_at: number;
}
interface Page {
  items: Entry[];
  next_before: number | null;
}

/** The activity log (issue #11): what each change records, and reading it back, through HTTP on every dialect. */
describe.each(dialects)('activity log (%s)', (dialect) => {
  let t: TestApp;
  let team: Team;

  beforeAll(async () => {
    // Listening, with small parts allowed: the multipart flow's part URLs are fetched.
    t = await startHttpTestApp({ dialect, config: { minPartSize: 5 } });
    team = await makeTeam(t);
  });
  afterAll(async () => {
    await t.close();
  });

  const read = (who: Account, query: Record<string, string | number>) => {
    const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
    return t.request({ method: 'GET', url: `/dam/activity?${qs.toString()}`, token: who.token });
  };

  async function page(who: Account, query: Record<string, string | number>): Promise<Page> {
    const res = await read(who, query);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ success: true; data: Page }>().data;
  }

  /** The newest entry id of the workspace (0 when none): later entries are the ones an action wrote. */
  async function mark(ws = team.ws): Promise<number> {
    return (await page(team.owner, { workspaceId: ws, limit: 1 })).items[0]?.id ?? 0;
  }

  /** Entries written after `since`, oldest first. */
  async function since(since: number, ws = team.ws): Promise<Entry[]> {
    const items = (await page(team.owner, { workspaceId: ws, limit: 200 })).items;
    return items.filter((e) => e.id > since).reverse();
  }

  const patch = (who: Account, url: string, payload: object) => t.request({ method: 'PATCH', url, token: who.token, payload });
  const owner = () => ({ id: team.owner.user.id, name: team.owner.user.name });

  it('an upload (server upload and the multipart flow) records asset.upload with the first version facts', async () => {
    const before = await mark();
    const asset = await serverUpload(t, team.owner, text('hello', 'hello.txt'));
    const { ref } = await uploadFile(t, team.manager, Buffer.from('multipart bytes'), { workspaceId: team.ws, fileName: 'flow.txt', fileType: 'text/plain' });
    const entries = await since(before);
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({
      workspace_id: team.ws,
      action: 'asset.upload',
      actor: owner(),
      subject: { kind: 'asset', id: asset.id, name: 'hello.txt' },
      asset_id: asset.id,
      changes: {
        version: { before: null, after: 'v1' },
        file_name: { before: null, after: 'hello.txt' },
        file_size: { before: null, after: 5 },
        mime_type: { before: null, after: 'text/plain' },
      },
    });
    expect(Math.abs(entries[0]!.created_at - Date.now() / 1000)).toBeLessThan(60);
    expect(entries[1]).toMatchObject({
      action: 'asset.upload',
      actor: { id: team.manager.user.id, name: team.manager.user.name },
      subject: { kind: 'asset', id: ref.assetId, name: 'flow.txt' },
      asset_id: ref.assetId,
      changes: { version: { before: null, after: 'v1' }, file_size: { before: null, after: 15 } },
    });
    // restored_from is null on uploaded versions.
    expect((await listVersions(t, team.owner, asset.id))[0]!.restored_from).toBeNull();
  });

  it('a new version and a restore record the current version before/after; the restored version says where it came from', async () => {
    const asset = await serverUpload(t, team.owner, text('one', 'doc.txt'));
    const before = await mark();
    const v2 = await uploadVersion(t, team.owner, asset.id, text('second!', 'doc-2.txt'), { camera: 'x' });
    expect(v2.restored_from).toBeNull();
    const [v1] = (await listVersions(t, team.owner, asset.id)).filter((v) => v.version === 'v1');
    const restored = await t.request({ method: 'POST', url: `/dam/versions/${v1!.id}/restore`, token: team.manager.token });
    expect(restored.statusCode, restored.body).toBe(200);

    const [upload, restore] = await since(before);
    expect(upload).toMatchObject({
      action: 'version.upload',
      subject: { kind: 'asset', id: asset.id, name: 'doc.txt' },
      asset_id: asset.id,
      changes: {
        version: { before: 'v1', after: 'v2' },
        file_name: { before: 'doc.txt', after: 'doc-2.txt' },
        file_size: { before: 3, after: 7 },
        metadata: { before: {}, after: { camera: 'x' } },
      },
    });
    expect(upload!.changes.mime_type).toBeUndefined(); // unchanged fields are left out
    expect(restore).toMatchObject({
      action: 'version.restore',
      actor: { id: team.manager.user.id },
      subject: { kind: 'asset', id: asset.id },
      asset_id: asset.id,
      changes: {
        version: { before: 'v2', after: 'v3' },
        file_name: { before: 'doc-2.txt', after: 'doc.txt' },
        restored_from: { before: null, after: { id: v1!.id, version: 'v1' } },
        metadata: { before: { camera: 'x' }, after: {} },
      },
    });

    const versions = await listVersions(t, team.owner, asset.id);
    expect(versions.map((v) => [v.version, v.restored_from])).toEqual([
      ['v3', { id: v1!.id, version: 'v1' }],
      ['v2', null],
      ['v1', null],
    ]);
    // Deleting the source keeps the restored version's record of it, and is itself in the asset's history.
    const removed = await t.request({ method: 'DELETE', url: `/dam/versions/${v1!.id}`, token: team.owner.token });
    expect(removed.statusCode, removed.body).toBe(200);
    expect((await listVersions(t, team.owner, asset.id))[0]!.restored_from).toEqual({ id: v1!.id, version: 'v1' });
    const history = (await page(team.viewer, { workspaceId: team.ws, asset_id: asset.id })).items;
    expect(history.map((e) => e.action)).toEqual(['version.delete', 'version.restore', 'version.upload', 'asset.upload']);
    expect(history[0]).toMatchObject({ subject: { kind: 'version', id: v1!.id, name: 'v1' }, asset_id: asset.id, changes: {} });
  });

  it('an asset edit records only the fields that changed; a folder change is a move; metadata keeps the changed keys, values capped', async () => {
    const asset = await serverUpload(t, team.owner, text('x', 'edit.txt'));
    const folder = await makeFolder(t, team.owner, team.ws);
    expect((await patch(team.owner, `/dam/assets/${asset.id}`, { metadata: { keep: 1, change: 'a', drop: true } })).statusCode).toBe(200);
    const before = await mark();
    const long = 'é'.repeat(1000);
    const res = await patch(team.manager, `/dam/assets/${asset.id}`, {
      display_file_name: 'Edited',
      tags: ['a', 'b'],
      visibility: 0, // unchanged
      folder_id: folder.id,
      metadata: { keep: 1, change: 'b', added: long },
    });
    expect(res.statusCode, res.body).toBe(200);
    const [update, move] = await since(before);
    expect(update).toMatchObject({
      action: 'asset.update',
      actor: { id: team.manager.user.id },
      subject: { kind: 'asset', id: asset.id, name: 'Edited' },
      asset_id: asset.id,
    });
    expect(update!.changes).toEqual({
      display_file_name: { before: 'edit.txt', after: 'Edited' },
      tags: { before: [], after: ['a', 'b'] },
      metadata: { before: { change: 'a', drop: true }, after: { added: `${'é'.repeat(256)}…`, change: 'b' } },
    });
    expect(move).toMatchObject({ action: 'asset.move', asset_id: asset.id, changes: { folder_id: { before: null, after: folder.id } } });
    expect(Object.keys(move!.changes)).toEqual(['folder_id']);

    // The same values again change nothing and record nothing.
    const again = await mark();
    expect((await patch(team.owner, `/dam/assets/${asset.id}`, { display_file_name: 'Edited', tags: ['a', 'b'] })).statusCode).toBe(200);
    expect(await since(again)).toEqual([]);
  });

  it('metadata diffs list at most 50 keys and count the rest', async () => {
    const asset = await serverUpload(t, team.owner, text('x', 'many.txt'));
    const before = await mark();
    const metadata = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`k${String(i).padStart(2, '0')}`, i]));
    expect((await patch(team.owner, `/dam/assets/${asset.id}`, { metadata })).statusCode).toBe(200);
    const [entry] = await since(before);
    const change = entry!.changes.metadata!;
    expect(Object.keys(change.after as object)).toHaveLength(50);
    expect(change.before).toEqual({});
    expect(change.omitted).toBe(10);
  });

  it('deleting an asset: to the trash (asset.trash), at once (asset.delete), or through /storage/delete', async () => {
    const a = await serverUpload(t, team.owner, text('1', 'trash-me.txt'));
    const b = await serverUpload(t, team.owner, text('2', 'delete-me.txt'));
    const c = await serverUpload(t, team.owner, text('3', 'storage-delete.txt'));
    const before = await mark();
    expect((await t.request({ method: 'DELETE', url: `/dam/assets/${a.id}`, token: team.manager.token })).statusCode).toBe(200);
    expect((await t.request({ method: 'DELETE', url: `/dam/assets/${b.id}?permanent=true`, token: team.owner.token })).statusCode).toBe(200);
    expect((await deleteRequest(t, team.owner, `${team.ws}/digital_assets/${c.id}`, team.ws)).statusCode).toBe(200);
    const entries = await since(before);
    expect(entries.map((e) => [e.action, e.subject.kind, e.subject.id, e.subject.name, e.asset_id])).toEqual([
      ['asset.trash', 'asset', a.id, 'trash-me.txt', a.id],
      ['asset.delete', 'asset', b.id, 'delete-me.txt', b.id],
      ['asset.delete', 'asset', c.id, 'storage-delete.txt', c.id],
    ]);
    // A deleted asset keeps its history.
    expect((await page(team.owner, { workspaceId: team.ws, asset_id: b.id })).items.map((e) => e.action)).toEqual(['asset.delete', 'asset.upload']);
  });

  it('folders: create, rename and other edits, move, delete', async () => {
    const parent = await makeFolder(t, team.owner, team.ws, { name: 'Parent' });
    const before = await mark();
    const folder = await makeFolder(t, team.manager, team.ws, { name: 'Old name' });
    expect((await patch(team.owner, `/dam/folders/${folder.id}`, { name: 'New name', tags: ['x'] })).statusCode).toBe(200);
    expect((await patch(team.owner, `/dam/folders/${folder.id}`, { parent_id: parent.id })).statusCode).toBe(200);
    expect((await t.request({ method: 'DELETE', url: `/dam/folders/${folder.id}?permanent=true`, token: team.owner.token })).statusCode).toBe(200);
    const entries = await since(before);
    expect(entries.map((e) => e.action)).toEqual(['folder.create', 'folder.update', 'folder.move', 'folder.delete']);
    expect(entries[0]).toMatchObject({ actor: { id: team.manager.user.id }, subject: { kind: 'folder', id: folder.id, name: 'Old name' }, asset_id: null, changes: {} });
    expect(entries[1]!.changes).toEqual({ name: { before: 'Old name', after: 'New name' }, tags: { before: [], after: ['x'] } });
    expect(entries[1]!.subject.name).toBe('New name');
    expect(entries[2]!.changes).toEqual({ parent_id: { before: null, after: parent.id } });
    expect(entries[3]!.subject).toEqual({ kind: 'folder', id: folder.id, name: 'New name' });
  });

  it('collections: create, edit, membership, delete', async () => {
    const [a, b] = [await serverUpload(t, team.owner, text('a', 'ca.txt')), await serverUpload(t, team.owner, text('b', 'cb.txt'))];
    const before = await mark();
    const col = await makeCollection(t, team.owner, team.ws, { name: 'Picks' });
    expect((await patch(team.owner, `/dam/collections/${col.id}`, { description: 'Best of' })).statusCode).toBe(200);
    const add = (ids: number[]) => t.request({ method: 'POST', url: `/dam/collections/${col.id}/assets`, token: team.owner.token, payload: { asset_ids: ids } });
    const remove = (ids: number[]) => t.request({ method: 'DELETE', url: `/dam/collections/${col.id}/assets`, token: team.owner.token, payload: { asset_ids: ids } });
    expect((await add([a.id, b.id])).statusCode).toBe(200);
    expect((await add([a.id])).statusCode).toBe(200); // already there: nothing changes, nothing recorded
    expect((await remove([b.id, 999_999])).statusCode).toBe(200);
    expect((await remove([b.id])).statusCode).toBe(200); // not there any more: nothing recorded
    expect((await t.request({ method: 'DELETE', url: `/dam/collections/${col.id}`, token: team.owner.token })).statusCode).toBe(200);
    const entries = await since(before);
    expect(entries.map((e) => [e.action, e.subject.kind, e.subject.id, e.changes])).toEqual([
      ['collection.create', 'collection', col.id, {}],
      ['collection.update', 'collection', col.id, { description: { before: '', after: 'Best of' } }],
      ['collection.add_assets', 'collection', col.id, { asset_ids: { before: null, after: [a.id, b.id] } }],
      ['collection.remove_assets', 'collection', col.id, { asset_ids: { before: [b.id], after: null } }],
      ['collection.trash', 'collection', col.id, {}],
    ]);
  });

  it('members added, role changes, removals and workspace renames', async () => {
    const owner2 = await registerUser(t, { name: 'Owner Two' });
    const joiner = await registerUser(t, { name: 'Joiner' });
    const ws = owner2.workspaceId;
    const add = await t.request({ method: 'POST', url: `/workspaces/${ws}/members`, token: owner2.token, payload: { email: joiner.user.email, role: 'viewer' } });
    expect(add.statusCode, add.body).toBe(201);
    expect((await patch(owner2, `/workspaces/${ws}/members/${joiner.user.id}`, { role: 'manager' })).statusCode).toBe(200);
    expect((await patch(owner2, `/workspaces/${ws}/members/${joiner.user.id}`, { role: 'manager' })).statusCode).toBe(200); // no change
    expect((await patch(owner2, `/workspaces/${ws}`, { name: 'Team space' })).statusCode).toBe(200);
    expect((await t.request({ method: 'DELETE', url: `/workspaces/${ws}/members/${joiner.user.id}`, token: joiner.token })).statusCode).toBe(200);

    const entries = (await page(owner2, { workspaceId: ws })).items.reverse();
    const subject = { kind: 'user', id: joiner.user.id, name: 'Joiner' };
    expect(entries.map((e) => [e.action, e.actor, e.subject, e.changes])).toEqual([
      ['member.add', { id: owner2.user.id, name: 'Owner Two' }, subject, { role: { before: null, after: 'viewer' } }],
      ['member.role', { id: owner2.user.id, name: 'Owner Two' }, subject, { role: { before: 'viewer', after: 'manager' } }],
      ['workspace.rename', { id: owner2.user.id, name: 'Owner Two' }, { kind: 'workspace', id: ws, name: 'Team space' }, { name: { before: "Owner Two's workspace", after: 'Team space' } }],
      // Leaving: the member removes themselves.
      ['member.remove', { id: joiner.user.id, name: 'Joiner' }, subject, { role: { before: 'manager', after: null } }],
    ]);
  });

  it('a refused change leaves no entry, and an entry rolls back with its transaction', async () => {
    const asset = await serverUpload(t, team.owner, text('x', 'refused.txt'));
    const elsewhere = await makeFolder(t, team.outsider, team.otherWs);
    const before = await mark();
    expectError(await patch(team.owner, `/dam/assets/${asset.id}`, { display_file_name: 'Nope', folder_id: elsewhere.id }), 400, 'VALIDATION_ERROR', 'folder_id');
    expectError(await patch(team.viewer, `/dam/assets/${asset.id}`, { display_file_name: 'Nope' }), 403, 'FORBIDDEN');
    expectError(await patch(team.owner, `/workspaces/${team.ws}/members/${team.owner.user.id}`, { role: 'viewer' }), 409, 'LAST_ADMIN');
    const cycle = await makeFolder(t, team.owner, team.ws);
    const child = await makeFolder(t, team.owner, team.ws, { parent_id: cycle.id });
    const afterFolders = await mark();
    expectError(await patch(team.owner, `/dam/folders/${cycle.id}`, { name: 'Renamed', parent_id: child.id }), 400, 'VALIDATION_ERROR', 'parent_id');
    expect(await since(afterFolders)).toEqual([]);
    expect((await since(before)).map((e) => e.action)).toEqual(['folder.create', 'folder.create']);

    // A transaction that records and then fails leaves nothing behind.
    const failing = t.database.db.transaction().execute(async (trx) => {
      await ActivityService.record(trx, {
        workspaceId: team.ws,
        actor: team.owner.user,
        action: 'asset.update',
        subject: { kind: 'asset', id: asset.id, name: 'ghost' },
        changes: { display_file_name: { before: 'refused.txt', after: 'ghost' } },
        at: 1,
      });
      throw new Error('the change failed after the entry was written');
    });
    await expect(failing).rejects.toThrow('the change failed');
    expect(await since(afterFolders)).toEqual([]);
  });

  it('filters by asset_id and user_id', async () => {
    const asset = await serverUpload(t, team.manager, text('x', 'filtered.txt'), team.ws);
    expect((await patch(team.owner, `/dam/assets/${asset.id}`, { tags: ['f'] })).statusCode).toBe(200);
    await makeFolder(t, team.manager, team.ws);

    const ofAsset = (await page(team.owner, { workspaceId: team.ws, asset_id: asset.id })).items;
    expect(ofAsset.map((e) => [e.action, e.actor.id])).toEqual([
      ['asset.update', team.owner.user.id],
      ['asset.upload', team.manager.user.id],
    ]);
    const byManager = (await page(team.owner, { workspaceId: team.ws, user_id: team.manager.user.id })).items;
    expect(byManager.length).toBeGreaterThan(2);
    expect(byManager.every((e) => e.actor.id === team.manager.user.id)).toBe(true);
    expect(byManager.slice(0, 2).map((e) => e.action)).toEqual(['folder.create', 'asset.upload']);
    const both = (await page(team.owner, { workspaceId: team.ws, asset_id: asset.id, user_id: team.owner.user.id })).items;
    expect(both.map((e) => e.action)).toEqual(['asset.update']);
  });

  it('pages by cursor, newest first: disjoint, complete, next_before null at the end', async () => {
    const all = (await page(team.owner, { workspaceId: team.ws, limit: 200 })).items;
    expect(all.length).toBeGreaterThan(10);
    const seen: number[] = [];
    let cursor: number | null = null;
    let pages = 0;
    do {
      const query: Record<string, number> = { workspaceId: team.ws, limit: 4 };
      if (cursor !== null) query.before = cursor;
      // A manager reads what the owner reads; a viewer would not see the entries of assets deleted for good (issue #27,
      // private assets: test/private-visibility.test.ts).
      const p: Page = await page(team.manager, query);
      expect(p.items.length).toBeLessThanOrEqual(4);
      seen.push(...p.items.map((e) => e.id));
      cursor = p.next_before;
      pages += 1;
    } while (cursor !== null);
    expect(seen).toEqual(all.map((e) => e.id));
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort((a, b) => b - a)).toEqual(seen);
    expect(pages).toBe(Math.ceil(all.length / 4));
    // The default page is 50 entries.
    const first = await page(team.owner, { workspaceId: team.ws });
    expect(first.items).toHaveLength(Math.min(50, all.length));
  });

  it('isolation: a non-member gets 404, and another workspace\'s entries never show', async () => {
    const theirs: AssetJson = await serverUpload(t, team.outsider, text('x', 'theirs.txt'), team.otherWs);
    expectError(await read(team.outsider, { workspaceId: team.ws }), 404, 'NOT_FOUND');
    expectError(await read(team.owner, { workspaceId: team.otherWs }), 404, 'NOT_FOUND');
    expectError(await read(team.owner, { workspaceId: 987_654 }), 404, 'NOT_FOUND');
    const ours = (await page(team.owner, { workspaceId: team.ws, limit: 200 })).items;
    expect(ours.every((e) => e.workspace_id === team.ws)).toBe(true);
    expect(ours.some((e) => e.asset_id === theirs.id)).toBe(false);
    expect((await page(team.owner, { workspaceId: team.ws, asset_id: theirs.id })).items).toEqual([]);
    expect((await page(team.outsider, { workspaceId: team.otherWs, asset_id: theirs.id })).items.map((e) => e.action)).toEqual(['asset.upload']);
  });

  it('validates its query', async () => {
    expectError(await read(team.owner, { workspaceId: team.ws, limit: 201 }), 400, 'VALIDATION_ERROR');
    expectError(await read(team.owner, { workspaceId: team.ws, limit: 0 }), 400, 'VALIDATION_ERROR');
    expectError(await read(team.owner, { workspaceId: team.ws, before: 'x' }), 400, 'VALIDATION_ERROR');
    expectError(await read(team.owner, { workspaceId: team.ws, other: 1 }), 400, 'VALIDATION_ERROR');
    expect((await t.request({ method: 'GET', url: `/dam/activity?workspaceId=${team.ws}` })).statusCode).toBe(401);
  });
});
