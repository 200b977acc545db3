import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { dialects } from './helpers/databases.js';
import { addMember, registerUser, type Account, type Envelope } from './helpers/factories.js';
import { serverUpload, text } from './helpers/versions.js';

/**
 * Bulk edits of custom fields (issue #30): POST /dam/bulk/fields over ids or a search, each operation (set, clear,
 * add, remove, replace), per-asset all-or-nothing with the failures reported, the operations checked before anything
 * changes, roles, the activity log, and undo (what was there comes back; an asset changed since is left alone).
 */

interface ItemResult {
  id: number;
  ok: boolean;
  code?: string;
}
interface Outcome {
  id: number;
  matched: number;
  succeeded: number;
  changed: number;
  results: ItemResult[];
}

describe.each(dialects)('bulk edits of custom fields on %s', (dialect) => {
  let t: TestApp;
  let admin: Account;
  let manager: Account;
  let viewer: Account;
  let ws: number;
  const ids: number[] = [];

  const call = (method: 'GET' | 'POST' | 'PATCH', url: string, who: Account, payload?: object) =>
    t.request({ method, url, token: who.token, ...(payload !== undefined && { payload }) });
  async function data<T>(method: 'GET' | 'POST' | 'PATCH', url: string, who: Account, payload?: object, status = 200): Promise<T> {
    const res = await call(method, url, who, payload);
    expect(res.statusCode, res.body).toBe(status);
    return res.json<Envelope<T>>().data;
  }
  const bulk = (body: object, who = manager) => data<Outcome>('POST', '/dam/bulk/fields', who, { workspaceId: ws, ...body });
  const values = async (id: number) => (await data<{ custom_fields: Record<string, unknown> }>('GET', `/dam/assets/${id}`, admin)).custom_fields;
  const labels = (v: unknown) => (Array.isArray(v) ? (v as { label: string }[]).map((o) => o.label) : v);

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    admin = await registerUser(t, { name: 'Ada Admin' });
    manager = await registerUser(t, { name: 'Max Manager' });
    viewer = await registerUser(t, { name: 'Vic Viewer' });
    ws = admin.workspaceId;
    await addMember(t, admin, ws, manager, 'manager');
    await addMember(t, admin, ws, viewer, 'viewer');
    const field = (body: object) => data('POST', '/dam/fields', admin, { workspace_id: ws, ...body }, 201);
    await field({ key: 'channels', label: 'Channels', type: 'multi_select', options: [{ label: 'Web' }, { label: 'Print' }, { label: 'Social' }] });
    await field({ key: 'campaign', label: 'Campaign', type: 'text' });
    await field({ key: 'source', label: 'Source', type: 'url' });
    await field({ key: 'status', label: 'Status', type: 'select', options: [{ label: 'Draft' }, { label: 'Final' }] });
    await field({ key: 'legal', label: 'Legal', type: 'boolean', editable_by: 'admin' });
    await field({ key: 'sku', label: 'SKU', type: 'text', required: true });
    for (let i = 0; i < 4; i += 1) {
      const id = (await serverUpload(t, admin, text(`file ${i}`, `asset-${i}.txt`))).id;
      ids.push(id);
      await data('PATCH', `/dam/assets/${id}`, admin, { custom_fields: { sku: `SKU-${i}`, campaign: `Spring 2026 ${i}`, source: `https://example.com/${i}`, channels: i % 2 ? ['Web'] : [] } });
    }
  });
  afterAll(async () => {
    await t.close();
  });

  it('sets, adds, removes and replaces on the given assets, answering one result each, and undoes it', async () => {
    const outcome = await bulk({
      asset_ids: ids,
      operations: [
        { key: 'status', op: 'set', value: 'Final' },
        { key: 'channels', op: 'add', value: ['Print', 'web'] },
        { key: 'campaign', op: 'replace', find: '2026', replace: '2027' },
      ],
    });
    expect(outcome).toMatchObject({ matched: 4, succeeded: 4, changed: 4 });
    expect(outcome.results.map((r) => [r.id, r.ok])).toEqual(ids.map((id) => [id, true]));
    for (const [i, id] of ids.entries()) {
      const v = await values(id);
      expect(v.status).toMatchObject({ label: 'Final' });
      // Web was on the odd ones already; the options read in vocabulary order.
      expect(labels(v.channels)).toEqual(['Web', 'Print']);
      expect(v.campaign).toBe(`Spring 2027 ${i}`);
    }
    const log = await data<{ items: { action: string; changes: Record<string, unknown> }[] }>('GET', `/dam/activity?workspaceId=${ws}&asset_id=${ids[0]}`, admin);
    expect(log.items[0]!.changes.custom_fields).toBeDefined();

    // Remove, on one asset changed meanwhile by hand: the undo leaves that one alone.
    const removal = await bulk({ asset_ids: ids, operations: [{ key: 'channels', op: 'remove', value: 'Web' }] });
    expect(removal.changed).toBe(4);
    expect(labels((await values(ids[0]!)).channels)).toEqual(['Print']);
    await data('PATCH', `/dam/assets/${ids[1]}`, manager, { custom_fields: { channels: ['Social'] } });
    const undo = await data<{ restored: number; results: ItemResult[] }>('POST', `/dam/bulk/fields/${removal.id}/undo`, manager);
    expect(undo.restored).toBe(3);
    expect(undo.results).toEqual([{ id: ids[1], ok: false, code: 'CONFLICT', error: expect.stringMatching(/changed since/) as unknown }]);
    expect(labels((await values(ids[0]!)).channels)).toEqual(['Web', 'Print']);
    expect(labels((await values(ids[1]!)).channels)).toEqual(['Social']);
    // Once only.
    expect((await call('POST', `/dam/bulk/fields/${removal.id}/undo`, manager)).statusCode).toBe(409);

    // Undo of the first edit: status, channels and campaign back as they were (channels only where unchanged since).
    const first = await data<{ restored: number; results: ItemResult[] }>('POST', `/dam/bulk/fields/${outcome.id}/undo`, admin);
    expect(first.results.map((r) => r.id)).toEqual([ids[1]]);
    const back = await values(ids[2]!);
    expect(back).not.toHaveProperty('status');
    expect(back).not.toHaveProperty('channels');
    expect(back.campaign).toBe('Spring 2026 2');
  });

  it('edits every asset a search finds, less except_ids, and reports only the failures', async () => {
    const outcome = await bulk({ search: { q: 'asset', filter_by: 'fields.campaign:spring' }, except_ids: [ids[3]!], operations: [{ key: 'status', op: 'set', value: 'Draft' }] });
    expect(outcome).toMatchObject({ matched: 3, succeeded: 3, results: [] });
    expect(await values(ids[3]!)).not.toHaveProperty('status');
    expect((await values(ids[0]!)).status).toMatchObject({ label: 'Draft' });
  });

  it('edits each asset all-or-nothing: one refused value leaves that asset as it was', async () => {
    // A replace that breaks one URL: that asset keeps all its values, the others change.
    await data('PATCH', `/dam/assets/${ids[2]}`, admin, { custom_fields: { source: 'https://example.com/special' } });
    const outcome = await bulk({
      asset_ids: ids,
      operations: [
        { key: 'campaign', op: 'set', value: 'Autumn' },
        { key: 'source', op: 'replace', find: 'https://example.com/special', replace: 'not a url' },
      ],
    });
    expect(outcome).toMatchObject({ matched: 4, succeeded: 3 });
    expect(outcome.results.find((r) => r.id === ids[2])).toMatchObject({ ok: false, code: 'VALIDATION_ERROR' });
    expect((await values(ids[2]!)).campaign).toBe('Spring 2026 2');
    expect((await values(ids[0]!)).campaign).toBe('Autumn');
    // A required field cannot be cleared: every asset refuses.
    const cleared = await bulk({ asset_ids: ids, operations: [{ key: 'sku', op: 'clear' }] });
    expect(cleared.succeeded).toBe(0);
    expect(new Set(cleared.results.map((r) => r.code))).toEqual(new Set(['VALIDATION_ERROR']));
    // Unknown ids are NOT_FOUND results.
    const missing = await bulk({ asset_ids: [ids[0]!, 99_999_999], operations: [{ key: 'campaign', op: 'set', value: 'Winter' }] });
    expect(missing.results[1]).toMatchObject({ id: 99_999_999, ok: false, code: 'NOT_FOUND' });
  });

  it('checks the operations before touching anything, and the roles', async () => {
    const refuse = async (operations: object[], status: number, field: string, who = manager) => {
      const res = await call('POST', '/dam/bulk/fields', who, { workspaceId: ws, asset_ids: ids, operations });
      expect(res.statusCode, res.body).toBe(status);
      expect(res.json<{ field: string }>().field).toBe(field);
    };
    await refuse([{ key: 'nope', op: 'set', value: 'x' }], 400, 'operations.0.key');
    await refuse([{ key: 'campaign', op: 'set', value: 'a' }, { key: 'campaign', op: 'clear' }], 400, 'operations.1.key');
    await refuse([{ key: 'status', op: 'add', value: 'Final' }], 400, 'operations.0.op');
    await refuse([{ key: 'status', op: 'replace', find: 'a', replace: 'b' }], 400, 'operations.0.op');
    await refuse([{ key: 'campaign', op: 'set' }], 400, 'operations.0.op');
    await refuse([{ key: 'legal', op: 'set', value: true }], 403, 'operations.0.key');
    expect((await call('POST', '/dam/bulk/fields', viewer, { workspaceId: ws, asset_ids: ids, operations: [{ key: 'campaign', op: 'set', value: 'x' }] })).statusCode).toBe(403);
    const both = await call('POST', '/dam/bulk/fields', manager, { workspaceId: ws, asset_ids: ids, search: { q: '*' }, operations: [{ key: 'campaign', op: 'clear' }] });
    expect(both.statusCode).toBe(400);
    // An admin may set the admin-only field.
    expect((await bulk({ asset_ids: ids, operations: [{ key: 'legal', op: 'set', value: true }] }, admin)).succeeded).toBe(4);
    // Another workspace's member sees no edit.
    const stranger = await registerUser(t);
    expect((await call('POST', `/dam/bulk/fields/1/undo`, stranger)).statusCode).toBe(404);
  });
});
