import { cp, mkdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runAdminCommand } from '../src/admin-cli.js';
import type { AppConfig } from '../src/config.js';
import { openMigratedDatabase } from '../src/db/database.js';
import { countStoredObjects } from '../src/repositories/store-references.js';
import { dialects, tempDir } from './helpers/databases.js';
import { registerUser, type Account, type Envelope } from './helpers/factories.js';
import {
  expectError,
  listPartsRequest,
  objectExists,
  s3Client,
  startS3Server,
  startStorageApp,
  startUpload,
  STORE_KINDS,
  uploadPart,
  type S3Server,
  type StorageTestApp,
  type UploadRef,
} from './helpers/uploads.js';
import { serverUpload, text } from './helpers/versions.js';

/**
 * No mass deletion by accident (issue #37): every housekeeping sweep that deletes is bounded per run and refuses to
 * delete more than DAM_SWEEP_MAX_PERCENT of a workspace without an instance admin's confirmation. Driven by the app's
 * own housekeeping timer (fake setInterval), seen through its HTTP interface (GET /admin/sweeps, POST .../confirm,
 * /metrics, the trash and asset routes) and its log.
 */

const DAY = 86_400;
/** Small numbers, so that a few files make "most of a workspace": 25 %, from 3 items on, 2 items a run. */
const SWEEPS = { maxPercent: 25, minCount: 3, batch: 2 };

interface Refusal {
  sweep: string;
  workspace_id: number;
  state: 'refused' | 'confirmed' | 'settled';
  would_delete: number;
  workspace_total: number;
  summary: string;
  examples: string[];
  seen_at: number;
  confirmed_by: number | null;
}

function harness(get: () => StorageTestApp, logs: string[]) {
  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, who: Account, payload?: object) =>
    get().request({ method, url, token: who.token, ...(payload !== undefined && { payload }) });
  const data = <T>(res: { statusCode: number; body: string; json: <U>() => U }, status = 200): T => {
    expect(res.statusCode, res.body).toBe(status);
    return res.json<Envelope<T>>().data;
  };
  return {
    call,
    data,
    refusals: async (admin: Account) => data<Refusal[]>(await call('GET', '/admin/sweeps', admin)),
    /** One run of housekeeping (its one-minute timer), the app's clock moved by `seconds` first. */
    tick: (seconds = 60) => {
      get().advanceClock(seconds);
      vi.advanceTimersByTime(60_000);
    },
    refusedLines: (sweep: string) => logs.filter((l) => l.includes('"msg":"sweep refused') && l.includes(`"sweep":"${sweep}"`)),
    metric: async (name: string, sweep: string) => {
      const body = (await get().request({ method: 'GET', url: '/metrics' })).body;
      const line = body.split('\n').find((l) => l.startsWith(`${name}{sweep="${sweep}"}`));
      return line === undefined ? undefined : Number(line.split(' ').pop());
    },
  };
}

describe.each(dialects)('a trash purge that would empty most of a workspace, on %s', (dialect) => {
  let t: StorageTestApp;
  let admin: Account;
  let owner: Account;
  const logs: string[] = [];
  const h = harness(() => t, logs);

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    t = await startStorageApp('local', undefined, {
      dialect,
      config: { trashDays: 30, sessionTtl: 400 * DAY, sweeps: { ...SWEEPS, orphanHours: 0 }, logLevel: 'info' },
      logStream: { write: (l) => logs.push(l) },
    });
    // The first account of an instance is its admin.
    admin = await registerUser(t);
    owner = await registerUser(t);
  });
  afterAll(async () => {
    await t.close();
    vi.useRealTimers();
  });

  it('is refused and logged once, deletes nothing until an instance admin confirms it, then purges in batches of DAM_SWEEP_BATCH', async () => {
    const ws = owner.workspaceId;
    const files = [];
    for (let i = 0; i < 6; i++) files.push(await serverUpload(t, owner, text(`file ${i} of a workspace`, `file-${i}.txt`), ws));
    const [kept, ...trashed] = files;
    for (const a of trashed) h.data(await h.call('DELETE', `/dam/assets/${a.id}`, owner));
    const trashCount = async () => h.data<{ total: number }>(await h.call('GET', `/dam/trash?workspaceId=${ws}`, owner)).total;
    expect(await trashCount()).toBe(5);

    // 31 days on, the purge would delete 5 of the workspace's 6 assets: 83 %.
    h.tick(31 * DAY);
    await vi.waitFor(async () => expect(await h.refusals(admin)).toHaveLength(1));
    const [refused] = await h.refusals(admin);
    expect(refused).toMatchObject({ sweep: 'trash', workspace_id: ws, state: 'refused', would_delete: 5, workspace_total: 6, confirmed_by: null });
    expect(refused!.summary).toBe("would delete 5 of the workspace's 6 assets (in the trash for more than 30 days)");
    expect(refused!.examples).toEqual(trashed.map((a) => `asset ${a.id} ${a.display_file_name}`));
    expect(await trashCount()).toBe(5);
    for (const a of files) expect(await objectExists(t, `${ws}/digital_assets/${a.id}`)).toBe(true);
    const [line] = h.refusedLines('trash');
    expect(JSON.parse(line!)).toMatchObject({ level: 40, workspaceId: ws, wouldDelete: 5, total: 6, examples: refused!.examples });
    expect(line).toContain('POST /admin/sweeps/trash/confirm');
    expect(await h.metric('dam_sweep_refusals_total', 'trash')).toBe(1);
    expect(await h.metric('dam_sweep_refusals_waiting', 'trash')).toBe(1);

    // The next run refuses again (counted), without another log line.
    h.tick();
    await vi.waitFor(async () => expect((await h.refusals(admin))[0]!.seen_at).toBeGreaterThan(refused!.seen_at));
    expect(await trashCount()).toBe(5);
    expect(h.refusedLines('trash')).toHaveLength(1);
    expect(await h.metric('dam_sweep_refusals_total', 'trash')).toBe(2);

    // Only an instance admin confirms, a refusal that exists, with a well-formed request.
    const confirm = (sweep: string, payload: unknown, who = admin) => h.call('POST', `/admin/sweeps/${sweep}/confirm`, who, payload as object);
    expectError(await confirm('trash', { workspaceId: ws }, owner), 403, 'ADMIN_ONLY');
    expectError(await confirm('everything', { workspaceId: ws }), 400, 'VALIDATION_ERROR');
    expectError(await confirm('trash', { workspaceId: 'all' }), 400, 'VALIDATION_ERROR');
    expectError(await confirm('trash', { workspaceId: 0 }), 400, 'VALIDATION_ERROR');
    expectError(await confirm('trash', { workspaceId: ws, force: true }), 400, 'VALIDATION_ERROR');
    expectError(await confirm('trash', {}), 400, 'MISSING_PARAMETER');
    expectError(await confirm('trash', { workspaceId: admin.workspaceId }), 404, 'NOT_FOUND');
    expectError(await confirm('stale-uploads', { workspaceId: ws }), 404, 'NOT_FOUND');
    expectError(await h.call('GET', '/admin/sweeps', owner), 403, 'ADMIN_ONLY');
    const confirmed = h.data<Refusal>(await confirm('trash', { workspaceId: ws }));
    expect(confirmed).toMatchObject({ state: 'confirmed', confirmed_by: admin.user.id, would_delete: 5 });
    expect(h.data<Refusal>(await confirm('trash', { workspaceId: ws }))).toMatchObject({ state: 'confirmed' });

    // Two a run (DAM_SWEEP_BATCH), oldest deletion first, the files with them (a confirmed purge covers its files).
    for (const left of [3, 1, 0]) {
      h.tick();
      await vi.waitFor(async () => expect(await trashCount()).toBe(left));
    }
    // The files' deletions (two rows each: the asset's and its version's) drain two a run as well.
    const queued = async () => (await t.database.db.selectFrom('object_deletions').select('id').execute()).length;
    for (let left = await queued(); left > 0; left = await queued()) {
      h.tick();
      await vi.waitFor(async () => expect(await queued()).toBeLessThan(left));
    }
    for (const a of trashed) expect(await objectExists(t, `${ws}/digital_assets/${a.id}`)).toBe(false);
    expect(await objectExists(t, `${ws}/digital_assets/${kept!.id}`)).toBe(true);
    expect((await h.call('GET', `/dam/assets/${kept!.id}`, owner)).statusCode).toBe(200);
    await vi.waitFor(async () => expect(await h.refusals(admin)).toMatchObject([{ sweep: 'trash', workspace_id: ws, state: 'settled' }]));
    expect(await h.metric('dam_sweep_refusals_waiting', 'trash')).toBe(0);
    expect(h.refusedLines('trash')).toHaveLength(1);
    expect(h.refusedLines('object-deletions')).toHaveLength(0);
    const activity = h.data<{ items: { action: string; changes: { assets?: { before: number } } }[] }>(await h.call('GET', `/dam/activity?workspaceId=${ws}`, owner));
    expect(activity.items.filter((i) => i.action === 'workspace.purge_trash').map((i) => i.changes.assets?.before)).toEqual([1, 2, 2]);
  });

  it('leaves the files of a trash emptied by its owner until an instance admin confirms their deletion, then drains them in batches', async () => {
    const user = await registerUser(t);
    const ws = user.workspaceId;
    const files = [];
    for (let i = 0; i < 5; i++) files.push(await serverUpload(t, user, text(`emptied ${i}`, `emptied-${i}.txt`), ws));
    const [kept, ...gone] = files;
    for (const a of gone) h.data(await h.call('DELETE', `/dam/assets/${a.id}`, user));
    h.data(await h.call('DELETE', `/dam/trash?workspaceId=${ws}`, user));
    const queued = async () => (await t.database.db.selectFrom('object_deletions').select('storage_key').where('storage_key', 'like', `${ws}/%`).execute()).length;
    const waiting = await queued();
    expect(waiting).toBeGreaterThanOrEqual(4);

    h.tick();
    await vi.waitFor(async () => expect((await h.refusals(admin)).find((r) => r.workspace_id === ws)).toMatchObject({ sweep: 'object-deletions', state: 'refused' }));
    const refused = (await h.refusals(admin)).find((r) => r.workspace_id === ws)!;
    expect(refused.would_delete).toBe(waiting);
    expect(refused.examples).toContain(`${ws}/digital_assets/${gone[0]!.id}`);
    expect(h.refusedLines('object-deletions')).toHaveLength(1);
    expect(await queued()).toBe(waiting);
    for (const a of files) expect(await objectExists(t, `${ws}/digital_assets/${a.id}`)).toBe(true);

    h.data(await h.call('POST', '/admin/sweeps/object-deletions/confirm', admin, { workspaceId: ws }));
    for (let left = await queued(); left > 0; left = await queued()) {
      h.tick();
      await vi.waitFor(async () => expect(await queued()).toBe(Math.max(0, left - SWEEPS.batch)));
    }
    for (const a of gone) expect(await objectExists(t, `${ws}/digital_assets/${a.id}`)).toBe(false);
    expect(await objectExists(t, `${ws}/digital_assets/${kept!.id}`)).toBe(true);
    h.tick();
    await vi.waitFor(async () => expect((await h.refusals(admin)).find((r) => r.workspace_id === ws)).toMatchObject({ state: 'settled' }));
  });

  it('aborts most of the uploads of a workspace only once confirmed, then in batches', async () => {
    const user = await registerUser(t);
    const ws = user.workspaceId;
    await serverUpload(t, user, text('a finished file', 'done.txt'), ws);
    const started: UploadRef[] = [];
    for (let i = 0; i < 4; i++) {
      const ref = await startUpload(t, user, { fileName: `big-${i}.bin` });
      await uploadPart(t, user, ref, 1, Buffer.from(`first part of upload ${i}`));
      started.push(ref);
    }
    const open = async () => {
      let n = 0;
      for (const ref of started) if ((await listPartsRequest(t, user, ref)).statusCode === 200) n += 1;
      return n;
    };

    // Two days untouched, past DAM_UPLOAD_TTL: 4 of the workspace's 1 asset and 4 uploads.
    h.tick(2 * DAY);
    await vi.waitFor(async () => expect((await h.refusals(admin)).find((r) => r.workspace_id === ws)).toMatchObject({ sweep: 'stale-uploads', state: 'refused', would_delete: 4, workspace_total: 5 }));
    expect(await open()).toBe(4);
    expect(h.refusedLines('stale-uploads')).toHaveLength(1);

    h.data(await h.call('POST', '/admin/sweeps/stale-uploads/confirm', admin, { workspaceId: ws }));
    for (const left of [2, 0]) {
      h.tick();
      await vi.waitFor(async () => expect(await open()).toBe(left));
    }
    // The aborted uploads' placeholders are deleted files too: confirming the uploads let them go without another refusal.
    const queued = async () => (await t.database.db.selectFrom('object_deletions').select('id').where('storage_key', 'like', `${ws}/%`).execute()).length;
    for (let left = await queued(); left > 0; left = await queued()) {
      h.tick();
      await vi.waitFor(async () => expect(await queued()).toBeLessThan(left));
    }
    expect(h.refusedLines('object-deletions').filter((l) => l.includes(`"workspaceId":${ws},`))).toHaveLength(0);
  });
});

describe.each(STORE_KINDS)('sweeps facing a %s store that suddenly lists nothing', (kind) => {
  let s3: S3Server | undefined;
  let t: StorageTestApp;
  let admin: Account;
  let owner: Account;
  const logs: string[] = [];
  const h = harness(() => t, logs);
  const databaseUrl = `sqlite:${path.join(tempDir('dam-sweeps-'), 'dam.sqlite')}`;
  const config = (storage?: AppConfig['storage']): Partial<AppConfig> => ({
    databaseUrl,
    sessionTtl: 400 * DAY,
    sweeps: { ...SWEEPS, orphanHours: 1 },
    logLevel: 'info',
    ...(storage && { storage }),
  });

  async function verify(): Promise<{ code: number; out: string }> {
    const out: string[] = [];
    const code = await runAdminCommand(['verify'], { out: (l) => out.push(l), err: (l) => out.push(l) }, t.config);
    return { code, out: out.join('\n') };
  }

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    if (kind === 's3') s3 = await startS3Server();
    // A database file, so that `npm run admin -- verify` opens the one the app uses.
    t = await startStorageApp(kind, s3, { database: await openMigratedDatabase(databaseUrl), config: config(), logStream: { write: (l) => logs.push(l) } });
    admin = await registerUser(t);
    owner = await registerUser(t);
  });
  afterAll(async () => {
    await t.close();
    await s3?.close();
    vi.useRealTimers();
  });

  /** Another program's copy of an object, at a key of the asset layout no row has: an orphan. */
  async function plantOrphan(source: string, target: string): Promise<void> {
    if (t.config.storage.kind === 's3') {
      const storage = t.config.storage;
      const client = s3Client(storage);
      const got = await client.send(new GetObjectCommand({ Bucket: storage.bucket, Key: source }));
      await client.send(new PutObjectCommand({ Bucket: storage.bucket, Key: target, Body: Buffer.from(await got.Body!.transformToByteArray()) }));
      client.destroy();
      return;
    }
    const objects = path.join(t.config.dataDir, 'storage', 'objects');
    await cp(path.join(objects, `${source}.obj`), path.join(objects, `${target}.obj`), { recursive: true });
  }

  /** The app on another store (same database and data dir), as after a restart with a wrong bucket or an unmounted volume. */
  async function restartOn(storage: AppConfig['storage'] | undefined): Promise<void> {
    await t.app.close();
    const dataDir = t.config.dataDir;
    t = await startStorageApp(kind, s3, { database: t.database, config: { ...config(storage ?? t.config.storage), dataDir }, logStream: { write: (l) => logs.push(l) } });
  }

  it('deletes an old orphan of a healthy store, but facing an empty one deletes and marks nothing, logs the refusal once and recovers by itself', async () => {
    const ws = owner.workspaceId;
    const assets = [];
    for (let i = 0; i < 4; i++) assets.push(await serverUpload(t, owner, text(`kept file ${i}`, `kept-${i}.txt`), ws));
    // Their renditions and hashes made now: no job writes to the store while it is away below.
    await t.app.jobs.drain();
    const keys = assets.map((a) => `${ws}/digital_assets/${a.id}`);
    const orphan = `${ws}/digital_assets/900000`;
    await plantOrphan(keys[0]!, orphan);

    // A healthy store: the orphan goes once older than a day; no file of a row is touched.
    h.tick(2 * DAY);
    await vi.waitFor(async () => expect(await objectExists(t, orphan)).toBe(false));
    for (const key of keys) expect(await objectExists(t, key)).toBe(true);
    expect(await h.refusals(admin)).toEqual([]);
    expect((await verify()).code).toBe(0);

    // The store now lists nothing: the data dir's objects are elsewhere (an unmounted volume) or the bucket is another, empty one.
    const original = t.config.storage;
    const objects = path.join(t.config.dataDir, 'storage', 'objects');
    if (kind === 'local') {
      await rename(objects, `${objects}.away`);
      await mkdir(objects);
    } else {
      await restartOn(await s3!.newBucket());
    }
    // What the rows say the store holds: the files and the renditions made of them.
    const stored = await countStoredObjects(t.database.db, ws);
    expect(stored).toBeGreaterThanOrEqual(4);
    const rowsBefore = await t.database.db.selectFrom('assets').select(['id', 'status', 'deleted_at', 'unreadable_reason', 'storage_key']).orderBy('id').execute();
    h.tick(2 * 3600);
    await vi.waitFor(async () => expect(await h.refusals(admin)).toHaveLength(1));
    const [refused] = await h.refusals(admin);
    expect(refused).toMatchObject({ sweep: 'orphaned-objects', workspace_id: ws, state: 'refused', would_delete: stored, workspace_total: stored });
    expect(refused!.summary).toBe(
      `found the store listing only 0 of the ${stored} files the database references (${stored} missing) and would delete 0 objects no row accounts for`,
    );
    const lines = h.refusedLines('orphaned-objects');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 40, workspaceId: ws, wouldDelete: stored, total: stored });
    expect(await h.metric('dam_sweep_refusals_total', 'orphaned-objects')).toBe(1);

    // Another run in the same state: still nothing, no new line. No row deleted, trashed, marked or queued for deletion.
    h.tick(2 * 3600);
    await vi.waitFor(async () => expect((await h.refusals(admin))[0]!.seen_at).toBeGreaterThan(refused!.seen_at));
    expect(h.refusedLines('orphaned-objects')).toHaveLength(1);
    expect(await t.database.db.selectFrom('assets').select(['id', 'status', 'deleted_at', 'unreadable_reason', 'storage_key']).orderBy('id').execute()).toEqual(rowsBefore);
    expect(await t.database.db.selectFrom('object_deletions').selectAll().execute()).toEqual([]);
    const listed = h.data<{ total: number }>(await h.call('GET', `/dam/assets?workspaceId=${ws}`, owner));
    expect(listed.total).toBe(4);

    // The store is back: the refusal resolves itself, and every file is there.
    if (kind === 'local') {
      await rename(objects, `${objects}.empty`);
      await rename(`${objects}.away`, objects);
    } else {
      await restartOn(original);
    }
    h.tick(2 * 3600);
    await vi.waitFor(async () => expect(await h.refusals(admin)).toEqual([]));
    for (const key of keys) expect(await objectExists(t, key)).toBe(true);
    const after = await verify();
    expect(after.code, after.out).toBe(0);
    expect(h.refusedLines('orphaned-objects')).toHaveLength(1);
  });
});
