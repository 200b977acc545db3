import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { dialects } from './helpers/databases.js';
import { addMember, registerUser, type Account, type Envelope } from './helpers/factories.js';
import { serverUpload, text } from './helpers/versions.js';

/**
 * Custom metadata (issue #30), through the HTTP interface: field definitions and their vocabularies (/dam/fields),
 * values on assets, folders and collections (custom_fields in PATCH and reads), strict validation naming the field,
 * roles, isolation between workspaces, type changes, retiring and deleting, merging options, and the activity log.
 */

interface Option {
  id: number;
  label: string;
  parent_id: number | null;
  position: number;
  deprecated: boolean;
}
interface Field {
  id: number;
  key: string;
  label: string;
  type: string;
  required: boolean;
  applies_to: string[];
  editable_by: string;
  position: number;
  retired: boolean;
  hidden: boolean;
  options: Option[];
  value_count: number;
  decimals: number | null;
}
interface WithFields {
  id: number;
  custom_fields: Record<string, unknown>;
  missing_fields: string[];
}

describe.each(dialects)('custom fields on %s', (dialect) => {
  let t: TestApp;
  let admin: Account;
  let manager: Account;
  let viewer: Account;
  let stranger: Account;
  let ws: number;
  let assetId: number;

  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, who: Account, payload?: object) =>
    t.request({ method, url, token: who.token, ...(payload !== undefined && { payload }) });
  async function data<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, who: Account, payload?: object, status = method === 'POST' ? 201 : 200): Promise<T> {
    const res = await call(method, url, who, payload);
    expect(res.statusCode, res.body).toBe(status);
    return res.json<Envelope<T>>().data;
  }
  async function refused(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, who: Account, payload: object | undefined, status: number, code: string, field?: string) {
    const res = await call(method, url, who, payload);
    expect(res.statusCode, res.body).toBe(status);
    const body = res.json<{ code: string; field?: string; error: string }>();
    expect(body.code).toBe(code);
    if (field !== undefined) expect(body.field).toBe(field);
    return body;
  }
  const createField = (body: object, who = admin) => data<Field>('POST', '/dam/fields', who, { workspace_id: ws, ...body });
  const patchAsset = (custom: object, who = manager, id = assetId) => call('PATCH', `/dam/assets/${id}`, who, { custom_fields: custom });
  const assetFields = async (id = assetId, who = viewer) => data<WithFields>('GET', `/dam/assets/${id}`, who);

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    admin = await registerUser(t, { name: 'Ada Admin' });
    manager = await registerUser(t, { name: 'Max Manager' });
    viewer = await registerUser(t, { name: 'Vic Viewer' });
    stranger = await registerUser(t, { name: 'Sam Stranger' });
    ws = admin.workspaceId;
    await addMember(t, admin, ws, manager, 'manager');
    await addMember(t, admin, ws, viewer, 'viewer');
    assetId = (await serverUpload(t, admin, text('spring campaign', 'brief.txt'))).id;
  });
  afterAll(async () => {
    await t.close();
  });

  it('defines fields of every type; admins only; keys are unique and checked', async () => {
    const region = await createField({
      key: 'region',
      label: 'Region',
      type: 'select',
      options: [{ label: 'Europe' }, { label: 'France', parent: 'Europe' }, { label: 'Paris', parent: 'France' }, { label: 'Asia' }],
    });
    expect(region).toMatchObject({ key: 'region', type: 'select', required: false, applies_to: ['assets'], editable_by: 'manager', position: 0, retired: false });
    // Parents before children, siblings in the order given.
    expect(region.options.map((o) => o.label)).toEqual(['Europe', 'France', 'Paris', 'Asia']);
    const france = region.options.find((o) => o.label === 'France')!;
    expect(region.options.find((o) => o.label === 'Paris')!.parent_id).toBe(france.id);

    for (const [key, type, extra] of [
      ['budget', 'number', { min: 0, max: 1000000, decimals: 2 }],
      ['shot_on', 'date', {}],
      ['embargo', 'datetime', {}],
      ['approved', 'boolean', {}],
      ['source', 'url', {}],
      ['contact', 'email', {}],
      ['channels', 'multi_select', { options: [{ label: 'Web' }, { label: 'Print' }, { label: 'Social' }] }],
      ['photographer', 'user', {}],
      ['notes', 'long_text', {}],
      ['sku', 'text', { required: true, applies_to: ['assets', 'folders', 'collections'] }],
    ] as const) {
      const f = await createField({ key, label: key, type, ...extra });
      expect(f.type).toBe(type);
    }
    const list = await data<Field[]>('GET', `/dam/fields?workspaceId=${ws}`, viewer);
    expect(list.map((f) => f.key)).toEqual(['region', 'budget', 'shot_on', 'embargo', 'approved', 'source', 'contact', 'channels', 'photographer', 'notes', 'sku']);
    expect(list.map((f) => f.position)).toEqual(list.map((_, i) => i));

    await refused('POST', '/dam/fields', manager, { workspace_id: ws, key: 'other', label: 'Other', type: 'text' }, 403, 'FORBIDDEN');
    await refused('POST', '/dam/fields', stranger, { workspace_id: ws, key: 'other', label: 'Other', type: 'text' }, 404, 'NOT_FOUND');
    await refused('POST', '/dam/fields', admin, { workspace_id: ws, key: 'region', label: 'Again', type: 'text' }, 409, 'FIELD_KEY_TAKEN', 'key');
    await refused('POST', '/dam/fields', admin, { workspace_id: ws, key: 'Bad-Key', label: 'Bad', type: 'text' }, 400, 'VALIDATION_ERROR');
    await refused('POST', '/dam/fields', admin, { workspace_id: ws, key: 'x', label: 'X', type: 'colour' }, 400, 'VALIDATION_ERROR');
    await refused('POST', '/dam/fields', admin, { workspace_id: ws, key: 'x', label: 'X', type: 'text', min: 1 }, 400, 'VALIDATION_ERROR', 'min');
    await refused('POST', '/dam/fields', admin, { workspace_id: ws, key: 'x', label: 'X', type: 'number', min: 5, max: 1 }, 400, 'VALIDATION_ERROR', 'min');
    await refused('POST', '/dam/fields', admin, { workspace_id: ws, key: 'x', label: 'X', type: 'text', options: [{ label: 'A' }] }, 400, 'VALIDATION_ERROR', 'options');
    await refused('POST', '/dam/fields', admin, { workspace_id: ws, key: 'x', label: 'X', type: 'select', options: [{ label: 'A', parent: 'B' }] }, 400, 'VALIDATION_ERROR', 'options.0.parent');
  });

  it('sets, reads and clears values of every type on an asset, and records each change with before and after', async () => {
    const res = await patchAsset({
      region: 'paris',
      budget: 1250.5,
      shot_on: '2026-03-01',
      embargo: '2026-03-01T15:30:00+01:00',
      approved: true,
      source: 'https://example.com/brief',
      contact: 'Press@Example.com',
      channels: ['Web', 'Print', 'web'],
      photographer: viewer.user.id,
      notes: 'Line one\nLine two',
      sku: 'SKU-1',
    });
    expect(res.statusCode, res.body).toBe(200);
    const read = await assetFields();
    const fields = await data<Field[]>('GET', `/dam/fields?workspaceId=${ws}`, viewer);
    const opt = (key: string, label: string) => fields.find((f) => f.key === key)!.options.find((o) => o.label === label)!.id;
    expect(read.custom_fields).toEqual({
      region: { id: opt('region', 'Paris'), label: 'Paris' },
      budget: 1250.5,
      shot_on: '2026-03-01',
      embargo: '2026-03-01T14:30:00Z',
      approved: true,
      source: 'https://example.com/brief',
      contact: 'press@example.com',
      channels: [
        { id: opt('channels', 'Web'), label: 'Web' },
        { id: opt('channels', 'Print'), label: 'Print' },
      ],
      photographer: { id: viewer.user.id, name: 'Vic Viewer' },
      notes: 'Line one\nLine two',
      sku: 'SKU-1',
    });
    expect(read.missing_fields).toEqual([]);

    // A read value written back is the same value (options as {id}); null and blank text clear.
    expect((await patchAsset({ region: read.custom_fields.region, notes: '  ', approved: null })).statusCode).toBe(200);
    const after = await assetFields();
    expect(after.custom_fields.region).toEqual(read.custom_fields.region);
    expect(after.custom_fields).not.toHaveProperty('notes');
    expect(after.custom_fields).not.toHaveProperty('approved');

    const activity = await data<{ items: { action: string; changes: Record<string, { before: unknown; after: unknown }> }[] }>('GET', `/dam/activity?workspaceId=${ws}&asset_id=${assetId}`, admin);
    const last = activity.items.find((e) => e.action === 'asset.update' && e.changes.custom_fields)!;
    expect(last.changes.custom_fields).toEqual({ before: { approved: true, notes: 'Line one\nLine two' }, after: {} });
  });

  it('refuses a value of the wrong type, an unknown option, a bad date, naming the field; nothing of the PATCH is kept', async () => {
    const before = await assetFields();
    const cases: [object, string][] = [
      [{ budget: 'a lot' }, 'custom_fields.budget'],
      [{ budget: -1 }, 'custom_fields.budget'],
      [{ budget: 1.234 }, 'custom_fields.budget'],
      [{ shot_on: '2026-02-30' }, 'custom_fields.shot_on'],
      [{ embargo: '2026-03-01 15:30' }, 'custom_fields.embargo'],
      [{ approved: 'yes' }, 'custom_fields.approved'],
      [{ source: 'javascript:alert(1)' }, 'custom_fields.source'],
      [{ contact: 'not an address' }, 'custom_fields.contact'],
      [{ region: 'Atlantis' }, 'custom_fields.region'],
      [{ region: 999999 }, 'custom_fields.region'],
      [{ channels: 'Web' }, 'custom_fields.channels'],
      [{ photographer: stranger.user.id }, 'custom_fields.photographer'],
      [{ nope: 'x' }, 'custom_fields.nope'],
      [{ sku: null }, 'custom_fields.sku'],
      [{ sku: 'two\u0007lines' }, 'custom_fields.sku'],
    ];
    for (const [custom, field] of cases) {
      const res = await call('PATCH', `/dam/assets/${assetId}`, manager, { display_file_name: 'renamed.txt', custom_fields: { ...custom, budget: (custom as { budget?: unknown }).budget ?? 5 } });
      expect(res.statusCode, `${JSON.stringify(custom)}: ${res.body}`).toBe(400);
      expect(res.json<{ field: string }>().field).toBe(field);
    }
    const after = await data<WithFields & { display_file_name: string }>('GET', `/dam/assets/${assetId}`, viewer);
    expect(after.custom_fields).toEqual(before.custom_fields);
    expect(after.display_file_name).toBe('brief.txt');
  });

  it('lets viewers read and never write; an admin-only field refuses managers; another workspace sees nothing', async () => {
    const res = await patchAsset({ sku: 'SKU-2' }, viewer);
    expect(res.statusCode).toBe(403);
    const legal = await createField({ key: 'legal_hold', label: 'Legal hold', type: 'boolean', editable_by: 'admin' });
    const refusedPatch = await patchAsset({ legal_hold: true }, manager);
    expect(refusedPatch.statusCode).toBe(403);
    expect(refusedPatch.json<{ field: string }>().field).toBe('custom_fields.legal_hold');
    expect((await patchAsset({ legal_hold: true }, admin)).statusCode).toBe(200);

    // The stranger's own workspace: the key is free there, and our field and options answer 404.
    await refused('GET', `/dam/fields/${legal.id}`, stranger, undefined, 404, 'NOT_FOUND');
    await refused('PATCH', `/dam/fields/${legal.id}`, stranger, { label: 'Mine' }, 404, 'NOT_FOUND');
    await refused('GET', `/dam/fields?workspaceId=${ws}`, stranger, undefined, 404, 'NOT_FOUND');
    const theirs = await data<Field>('POST', '/dam/fields', stranger, { workspace_id: stranger.workspaceId, key: 'region', label: 'Region', type: 'text' });
    const theirAsset = (await serverUpload(t, stranger, text('x', 'x.txt'))).id;
    // Our field's key names their field in their workspace, never ours.
    expect((await patchAsset({ region: 'Paris' }, stranger, theirAsset)).statusCode).toBe(200);
    expect((await assetFields(theirAsset, stranger)).custom_fields).toEqual({ region: 'Paris' });
    const region = (await data<Field[]>('GET', `/dam/fields?workspaceId=${ws}`, admin)).find((f) => f.key === 'region')!;
    await refused('PATCH', `/dam/fields/${theirs.id}/options/${region.options[0]!.id}`, stranger, { label: 'x' }, 400, 'VALIDATION_ERROR');
    await refused('PATCH', `/dam/fields/${region.id}/options/${region.options[0]!.id}`, stranger, { label: 'x' }, 404, 'NOT_FOUND');
  });

  it('sets values on folders and collections where the field applies, and reports required fields missing', async () => {
    const folder = await data<{ id: number }>('POST', '/dam/folders', manager, { workspace_id: ws, name: 'Spring' });
    const collection = await data<{ id: number }>('POST', '/dam/collections', manager, { workspace_id: ws, name: 'Picks' });
    expect((await data<WithFields>('GET', `/dam/folders/${folder.id}`, viewer)).missing_fields).toEqual(['sku']);
    expect((await data<WithFields>('PATCH', `/dam/folders/${folder.id}`, manager, { custom_fields: { sku: 'F-1' } })).custom_fields).toEqual({ sku: 'F-1' });
    expect((await data<WithFields>('PATCH', `/dam/collections/${collection.id}`, manager, { custom_fields: { sku: 'C-1' } })).custom_fields).toEqual({ sku: 'C-1' });
    await refused('PATCH', `/dam/folders/${folder.id}`, manager, { custom_fields: { region: 'Asia' } }, 400, 'VALIDATION_ERROR', 'custom_fields.region');
    // An upload without the required field is incomplete.
    const fresh = (await serverUpload(t, manager, text('new', 'new.txt'), ws)).id;
    expect((await assetFields(fresh, manager)).missing_fields).toEqual(['sku']);
  });

  it('deprecates and merges options: kept where set, refused anew, values moved in one go', async () => {
    let region = (await data<Field[]>('GET', `/dam/fields?workspaceId=${ws}`, admin)).find((f) => f.key === 'region')!;
    const id = (label: string) => region.options.find((o) => o.label === label)!.id;
    const other = (await serverUpload(t, manager, text('other', 'other.txt'), ws)).id;
    const set = await patchAsset({ region: 'Asia', sku: 'S' }, manager, other);
    expect(set.statusCode, set.body).toBe(200);

    region = await data<Field>('PATCH', `/dam/fields/${region.id}/options/${id('Asia')}`, admin, { deprecated: true });
    expect(region.options.find((o) => o.label === 'Asia')!.deprecated).toBe(true);
    // Kept where it is set (the asset still reads it, and re-sending it is fine); refused for a new value.
    expect((await assetFields(other)).custom_fields.region).toEqual({ id: id('Asia'), label: 'Asia' });
    expect((await patchAsset({ region: id('Asia') }, manager, other)).statusCode).toBe(200);
    const res = await patchAsset({ region: 'Asia' });
    expect(res.statusCode).toBe(400);
    expect(res.json<{ error: string }>().error).toMatch(/deprecated/);

    // A new top-level option, then Asia merged into it: the value moves, Asia goes.
    region = await data<Field>('POST', `/dam/fields/${region.id}/options`, admin, { label: 'APAC' });
    await refused('POST', `/dam/fields/${region.id}/options`, admin, { label: 'apac' }, 400, 'VALIDATION_ERROR', 'label');
    const merged = await data<{ field: Field; values_moved: number }>('POST', `/dam/fields/${region.id}/options/${id('Asia')}/merge`, admin, { into: id('APAC') }, 200);
    expect(merged.values_moved).toBe(1);
    expect(merged.field.options.map((o) => o.label)).not.toContain('Asia');
    expect((await assetFields(other)).custom_fields.region).toEqual({ id: id('APAC'), label: 'APAC' });
    // Into its own subtree: refused.
    await refused('POST', `/dam/fields/${region.id}/options/${id('Europe')}/merge`, admin, { into: id('Paris') }, 400, 'VALIDATION_ERROR', 'into');
    await refused('PATCH', `/dam/fields/${region.id}/options/${id('Europe')}`, admin, { parent_id: id('Paris') }, 400, 'VALIDATION_ERROR', 'parent_id');
  });

  it('changes a type only when every value converts, reorders, retires and deletes with a confirmation', async () => {
    const fields = await data<Field[]>('GET', `/dam/fields?workspaceId=${ws}`, admin);
    const budget = fields.find((f) => f.key === 'budget')!;
    const sku = fields.find((f) => f.key === 'sku')!;
    // Numbers convert to text; "SKU-1" does not convert to a number.
    const text = await data<Field>('PATCH', `/dam/fields/${budget.id}`, admin, { type: 'text' });
    expect(text.type).toBe('text');
    expect((await assetFields()).custom_fields.budget).toBe('1250.5');
    const conflict = await refused('PATCH', `/dam/fields/${sku.id}`, admin, { type: 'number' }, 409, 'FIELD_TYPE_CONFLICT', 'type');
    expect(conflict).toMatchObject({ not_converting: 4, values: 4 });
    expect((await data<Field>('GET', `/dam/fields/${sku.id}`, admin)).type).toBe('text');

    // Reorder: sku to the top, the others close up.
    await data<Field>('PATCH', `/dam/fields/${sku.id}`, admin, { position: 0 });
    const order = await data<Field[]>('GET', `/dam/fields?workspaceId=${ws}`, admin);
    expect(order[0]!.key).toBe('sku');
    expect(order.map((f) => f.position)).toEqual(order.map((_, i) => i));

    // Retired: kept and read, refused anew, left out of the list unless asked.
    await data<Field>('PATCH', `/dam/fields/${sku.id}`, admin, { retired: true });
    expect((await assetFields()).custom_fields.sku).toBe('SKU-1');
    expect((await assetFields()).missing_fields).not.toContain('sku');
    await refused('PATCH', `/dam/assets/${assetId}`, manager, { custom_fields: { sku: 'SKU-9' } }, 400, 'VALIDATION_ERROR', 'custom_fields.sku');
    expect((await data<Field[]>('GET', `/dam/fields?workspaceId=${ws}`, admin)).map((f) => f.key)).not.toContain('sku');
    expect((await data<Field[]>('GET', `/dam/fields?workspaceId=${ws}&include_retired=true`, admin)).map((f) => f.key)).toContain('sku');

    // Deleting asks for the key; then values go and the key stays taken.
    const asked = await refused('DELETE', `/dam/fields/${sku.id}`, admin, undefined, 409, 'CONFIRMATION_REQUIRED', 'confirm');
    expect(asked).toMatchObject({ values: 4, confirm: 'sku' });
    await refused('DELETE', `/dam/fields/${sku.id}?confirm=region`, admin, undefined, 409, 'CONFIRMATION_REQUIRED');
    expect(await data('DELETE', `/dam/fields/${sku.id}?confirm=sku`, admin)).toEqual({ id: sku.id, key: 'sku', values_deleted: 4 });
    expect((await assetFields()).custom_fields).not.toHaveProperty('sku');
    await refused('GET', `/dam/fields/${sku.id}`, admin, undefined, 404, 'NOT_FOUND');
    await refused('POST', '/dam/fields', admin, { workspace_id: ws, key: 'sku', label: 'SKU again', type: 'text' }, 409, 'FIELD_KEY_TAKEN');
    const after = await data<Field[]>('GET', `/dam/fields?workspaceId=${ws}&include_retired=true`, admin);
    expect(after.map((f) => f.position)).toEqual(after.map((_, i) => i));

    const log = await data<{ items: { action: string; subject: { name: string } }[] }>('GET', `/dam/activity?workspaceId=${ws}`, admin);
    expect(log.items.map((e) => e.action)).toEqual(expect.arrayContaining(['field.create', 'field.update', 'field.delete', 'field.merge_options']));
  });
});
