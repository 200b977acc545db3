import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { parsePlans } from '../src/payments/plans.js';
import { reconcile } from '../src/services/quota-service.js';
import type { AppContext } from '../src/context.js';
import { dialects } from './helpers/databases.js';
import { addMember, registerUser, type Account } from './helpers/factories.js';
import { startFakeStripe, type FakeStripe } from './helpers/fake-stripe.js';
import {
  completeRequest,
  deleteRequest,
  downloadRequest,
  keyOf,
  refQuery,
  splitBytes,
  startStorageApp,
  startUploadRequest,
  uploadFile,
  uploadParts,
  type StorageTestApp,
  type UploadRef,
} from './helpers/uploads.js';
import { listVersions, multipart, postVersion, serverUpload } from './helpers/versions.js';

/** Payments step 2 (issue #17): plan limits enforced, usage kept exact, past_due read-only, through HTTP. */

const PLANS = parsePlans(
  JSON.stringify({
    plans: [
      { id: 'free', name: 'Free', price_label: 'Free', limits: { storage_bytes: 100, members: 2, assets: 3 } },
      { id: 'big', name: 'Big', price_label: 'EUR 1 / month', limits: { storage_bytes: 100_000 }, stripe_price_id: 'price_big' },
    ],
  }),
  'test plans',
);
const DAY = 86_400;

interface Usage {
  storage_bytes: number;
  reserved_bytes: number;
  members: number;
  assets: number;
}

describe.each(dialects)('payments enforcement on %s', (dialect) => {
  let t: StorageTestApp;
  let stripe: FakeStripe;
  let clockOffset = 0;

  beforeAll(async () => {
    stripe = await startFakeStripe();
    t = await startStorageApp('local', undefined, { dialect, config: { sessionTtl: 365 * DAY, payments: { plans: PLANS, stripe: stripe.config(), graceDays: 7 } } });
  });
  afterAll(async () => {
    await t.close();
    await stripe.close();
  });

  const usageRow = async (workspaceId: number): Promise<Usage> => {
    const row = await t.database.db
      .selectFrom('workspace_usage')
      .select(['storage_bytes', 'reserved_bytes', 'members', 'assets'])
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow();
    return { storage_bytes: Number(row.storage_bytes), reserved_bytes: Number(row.reserved_bytes), members: Number(row.members), assets: Number(row.assets) };
  };
  const start = (who: Account, fileSize?: number, extra: Record<string, number> = {}) =>
    startUploadRequest(t, who, { workspaceId: who.workspaceId, fileType: 'application/octet-stream', ...(fileSize === undefined ? {} : { fileSize }), ...extra });
  const refOf = (who: Account, res: LightMyRequestResponse): UploadRef => ({ ...res.json<{ uploadId: string; assetId: number }>(), workspaceId: who.workspaceId });
  const send = (type: string, object: Record<string, unknown>) => {
    const event = stripe.event(type, object);
    const timestamp = Math.floor(Date.now() / 1000) + clockOffset;
    return t.request({
      method: 'POST',
      url: '/payments/webhook',
      payload: event.body,
      headers: { 'content-type': 'application/json', 'stripe-signature': stripe.sign(event.body, { timestamp }) },
    });
  };
  const advance = (seconds: number) => {
    clockOffset += seconds;
    t.advanceClock(seconds);
  };
  const customerOf = (workspaceId: number) =>
    [...stripe.customers.values()].find((c) => (c.metadata as Record<string, string>).workspace_id === String(workspaceId))!.id as string;

  async function subscribe(owner: Account): Promise<{ subId: string; customer: string }> {
    const res = await t.request({ method: 'POST', url: '/payments/create-checkout', token: owner.token, payload: { workspaceId: owner.workspaceId, plan: 'big' } });
    expect(res.statusCode, res.body).toBe(200);
    const customer = customerOf(owner.workspaceId);
    const sub = stripe.setSubscription({ id: `sub_${owner.workspaceId}_${Date.now()}`, customer, price: 'price_big', metadata: { workspace_id: String(owner.workspaceId) } });
    const done = await send('checkout.session.completed', {
      id: `cs_${owner.workspaceId}`,
      object: 'checkout.session',
      mode: 'subscription',
      customer,
      client_reference_id: String(owner.workspaceId),
      subscription: sub.id,
    });
    expect(done.statusCode, done.body).toBe(200);
    return { subId: sub.id, customer };
  }
  async function setStatus(owner: Account, s: { subId: string; customer: string }, status: string): Promise<void> {
    stripe.setSubscription({ id: s.subId, customer: s.customer, price: 'price_big', status });
    const res = await send('customer.subscription.updated', { id: s.subId, object: 'subscription', customer: s.customer });
    expect(res.statusCode, res.body).toBe(200);
  }

  it('lists the plans in the file order, with price labels and limits', async () => {
    const owner = await registerUser(t);
    const res = await t.request({ method: 'GET', url: '/payments/plans', token: owner.token });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      data: {
        plans: [
          { id: 'free', name: 'Free', free: true, price_label: 'Free', limits: { storage_bytes: 100, members: 2, assets: 3 } },
          { id: 'big', name: 'Big', free: false, price_label: 'EUR 1 / month', limits: { storage_bytes: 100_000, members: null, assets: null } },
        ],
      },
    });
    expect((await t.request({ method: 'GET', url: '/payments/plans' })).statusCode).toBe(401);
  });

  it('refuses a declared size over the storage limit at start-upload, before anything exists', async () => {
    const owner = await registerUser(t);
    const res = await start(owner, 101);
    expect(res.statusCode, res.body).toBe(402);
    expect(res.json()).toMatchObject({ code: 'QUOTA_EXCEEDED', limit: 'storage_bytes', used: 0, requested: 101 });
    expect(res.json<{ error: string }>().error).toMatch(/100 bytes/);
    expect(await usageRow(owner.workspaceId)).toEqual({ storage_bytes: 0, reserved_bytes: 0, members: 1, assets: 0 });
  });

  it('lets exactly one of two uploads racing for the last free bytes start, and releases the reservation on abort', async () => {
    const owner = await registerUser(t);
    const [a, b] = await Promise.all([start(owner, 60), start(owner, 60)]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 402]);
    expect((await usageRow(owner.workspaceId)).reserved_bytes).toBe(60);
    const winner = refOf(owner, a.statusCode === 200 ? a : b);
    const abort = await t.request({ method: 'DELETE', url: `/storage/abort-upload?${refQuery(winner)}`, token: owner.token });
    expect(abort.statusCode, abort.body).toBe(200);
    expect(await usageRow(owner.workspaceId)).toEqual({ storage_bytes: 0, reserved_bytes: 0, members: 1, assets: 0 });
    expect((await start(owner, 60)).statusCode).toBe(200);
  });

  it('holds the parts to the declared size: more is refused as it arrives (the local store: S3\'s 400 EntityTooLarge), the reservation stays as declared', async () => {
    // Completion re-checks a real size larger than declared against the plan (S3, where parts are not metered);
    // the local store refuses such a part before it is stored (test/upload-part-bounds.test.ts).
    const owner = await registerUser(t);
    const res = await start(owner, 10);
    expect(res.statusCode).toBe(200);
    const ref = refOf(owner, res);
    await expect(uploadParts(t, owner, ref, splitBytes(Buffer.alloc(120, 7), 60))).rejects.toThrow(/400 [\s\S]*<Code>EntityTooLarge<\/Code>/);
    expect(await usageRow(owner.workspaceId)).toEqual({ storage_bytes: 0, reserved_bytes: 10, members: 1, assets: 1 });
    expect((await t.request({ method: 'DELETE', url: `/storage/abort-upload?${refQuery(ref)}`, token: owner.token })).statusCode).toBe(200);
    expect(await usageRow(owner.workspaceId)).toEqual({ storage_bytes: 0, reserved_bytes: 0, members: 1, assets: 0 });
  });

  it('keeps usage exact through upload, new version, deletion and members, and turns the reservation into usage', async () => {
    const owner = await registerUser(t);
    const res = await start(owner, 40);
    const ref = refOf(owner, res);
    const parts = await uploadParts(t, owner, ref, splitBytes(Buffer.alloc(30, 1), 15));
    expect((await completeRequest(t, owner, ref, parts)).statusCode).toBe(200);
    expect(await usageRow(owner.workspaceId)).toEqual({ storage_bytes: 30, reserved_bytes: 0, members: 1, assets: 1 });
    // A new version of the same asset through the multipart flow.
    const v = await start(owner, 20, { assetId: ref.assetId });
    expect(v.statusCode, v.body).toBe(200);
    const vref = refOf(owner, v);
    const vparts = await uploadParts(t, owner, vref, [Buffer.alloc(20, 2)]);
    expect((await completeRequest(t, owner, vref, vparts)).statusCode).toBe(200);
    expect(await usageRow(owner.workspaceId)).toMatchObject({ storage_bytes: 50, reserved_bytes: 0, assets: 1 });
    // Deleting the asset gives back every version's bytes (renditions included, none for octet-stream).
    expect((await deleteRequest(t, owner, keyOf(ref), owner.workspaceId)).statusCode).toBe(200);
    expect(await usageRow(owner.workspaceId)).toEqual({ storage_bytes: 0, reserved_bytes: 0, members: 1, assets: 0 });

    const other = await registerUser(t);
    await addMember(t, owner, owner.workspaceId, other, 'viewer');
    expect((await usageRow(owner.workspaceId)).members).toBe(2);
    const removed = await t.request({ method: 'DELETE', url: `/workspaces/${owner.workspaceId}/members/${other.user.id}`, token: owner.token });
    expect(removed.statusCode, removed.body).toBeLessThan(300);
    expect((await usageRow(owner.workspaceId)).members).toBe(1);
  });

  it('refuses a member past the members limit and an asset past the assets limit', async () => {
    const owner = await registerUser(t);
    await addMember(t, owner, owner.workspaceId, await registerUser(t), 'viewer');
    const third = await registerUser(t);
    const res = await t.request({ method: 'POST', url: `/workspaces/${owner.workspaceId}/members`, token: owner.token, payload: { email: third.user.email, role: 'viewer' } });
    expect(res.statusCode, res.body).toBe(402);
    expect(res.json()).toMatchObject({ code: 'QUOTA_EXCEEDED', limit: 'members', used: 2, requested: 1 });

    for (let i = 0; i < 3; i += 1) await uploadFile(t, owner, Buffer.alloc(5, i));
    const fourth = await start(owner, 5);
    expect(fourth.statusCode, fourth.body).toBe(402);
    expect(fourth.json()).toMatchObject({ code: 'QUOTA_EXCEEDED', limit: 'assets', used: 3, requested: 1 });
  });

  it('reconciliation corrects a drifted counter and logs it', async () => {
    const owner = await registerUser(t);
    await uploadFile(t, owner, Buffer.alloc(12, 3));
    await t.database.db.updateTable('workspace_usage').set({ storage_bytes: 999, assets: 7, reconciled_at: 0 }).where('workspace_id', '=', owner.workspaceId).execute();
    await t.database.db.updateTable('workspace_usage').set({ reconciled_at: 1 }).where('workspace_id', '<>', owner.workspaceId).execute();
    const warnings: Array<Record<string, unknown>> = [];
    const ctx = (t.app as unknown as { ctx?: AppContext }).ctx ?? ({ db: t.database.db, database: t.database, now: () => Math.floor(Date.now() / 1000), config: t.config } as unknown as AppContext);
    await reconcile(ctx, { warn: (obj) => warnings.push(obj as Record<string, unknown>) }, 1);
    expect(await usageRow(owner.workspaceId)).toEqual({ storage_bytes: 12, reserved_bytes: 0, members: 1, assets: 1 });
    expect(warnings).toEqual(
      expect.arrayContaining([
        { workspaceId: owner.workspaceId, field: 'storage_bytes', old: 999, new: 12 },
        { workspaceId: owner.workspaceId, field: 'assets', old: 7, new: 1 },
      ]),
    );
  });

  it('past_due: writable within the grace period, read-only after it (reads work), writable again once paid', async () => {
    const owner = await registerUser(t);
    const { answer } = await uploadFile(t, owner, Buffer.alloc(10, 4));
    const sub = await subscribe(owner);
    await setStatus(owner, sub, 'past_due');
    expect((await start(owner, 5)).statusCode).toBe(200);
    const view = await t.request({ method: 'GET', url: `/payments/subscription?workspaceId=${owner.workspaceId}`, token: owner.token });
    expect(view.json()).toMatchObject({ data: { status: 'past_due', read_only: false } });
    const until = view.json<{ data: { past_due_until: number } }>().data.past_due_until;
    expect(typeof until).toBe('number');

    advance(8 * DAY);
    const refused = await start(owner, 5);
    expect(refused.statusCode, refused.body).toBe(402);
    expect(refused.json()).toMatchObject({ code: 'SUBSCRIPTION_PAST_DUE' });
    expect(refused.json<{ error: string }>().error).toMatch(/billing portal/);
    const invite = await t.request({ method: 'POST', url: `/workspaces/${owner.workspaceId}/members`, token: owner.token, payload: { email: 'x@example.test', role: 'viewer' } });
    expect(invite.statusCode).toBe(402);
    expect((await deleteRequest(t, owner, answer.key, owner.workspaceId)).statusCode).toBe(402);
    expect((await downloadRequest(t, owner, answer.key, owner.workspaceId)).statusCode).toBe(200);
    const readOnly = await t.request({ method: 'GET', url: `/payments/subscription?workspaceId=${owner.workspaceId}`, token: owner.token });
    expect(readOnly.json()).toMatchObject({ data: { read_only: true, past_due_until: until } });
    const portal = await t.request({ method: 'POST', url: '/payments/portal', token: owner.token, payload: { workspaceId: owner.workspaceId } });
    expect(portal.statusCode, portal.body).toBe(200);

    await setStatus(owner, sub, 'active');
    expect((await start(owner, 5)).statusCode).toBe(200);
  });

  it('canceled: back to the free limits; existing files still download, new uploads over the limit are 402', async () => {
    const owner = await registerUser(t);
    const sub = await subscribe(owner);
    const { answer } = await uploadFile(t, owner, Buffer.alloc(150, 5));
    await setStatus(owner, sub, 'canceled');
    expect((await downloadRequest(t, owner, answer.key, owner.workspaceId)).statusCode).toBe(200);
    const res = await start(owner, 1);
    expect(res.statusCode).toBe(402);
    expect(res.json()).toMatchObject({ code: 'QUOTA_EXCEEDED', limit: 'storage_bytes', used: 150, requested: 1 });
  });

  it('a restore stores a copy: refused with 402 when the copy would pass the storage limit, history unchanged', async () => {
    const owner = await registerUser(t);
    const { ref } = await uploadFile(t, owner, Buffer.alloc(60, 7));
    const v = await start(owner, 30, { assetId: ref.assetId });
    expect(v.statusCode, v.body).toBe(200);
    const vref = refOf(owner, v);
    expect((await completeRequest(t, owner, vref, await uploadParts(t, owner, vref, [Buffer.alloc(30, 8)]))).statusCode).toBe(200);
    const before = await listVersions(t, owner, ref.assetId);
    const first = before.find((x) => x.is_current === false)!;
    const res = await t.request({ method: 'POST', url: `/dam/versions/${first.id}/restore`, token: owner.token });
    expect(res.statusCode, res.body).toBe(402);
    expect(res.json()).toMatchObject({ code: 'QUOTA_EXCEEDED', limit: 'storage_bytes', used: 90, requested: 60 });
    expect(await listVersions(t, owner, ref.assetId)).toHaveLength(before.length);
    expect(await usageRow(owner.workspaceId)).toMatchObject({ storage_bytes: 90, reserved_bytes: 0 });
  });

  it('server uploads and version uploads over the storage limit are 402 before anything is stored', async () => {
    const owner = await registerUser(t);
    const first = await serverUpload(t, owner, { bytes: Buffer.alloc(70, 1), name: 'a.bin', type: 'application/octet-stream' });
    const over = await multipart({ workspaceId: String(owner.workspaceId), file: { bytes: Buffer.alloc(40, 2), name: 'b.bin', type: 'application/octet-stream' } });
    const refused = await t.request({ method: 'POST', url: '/api/upload-asset', token: owner.token, ...over });
    expect(refused.statusCode, refused.body).toBe(402);
    expect(refused.json()).toMatchObject({ code: 'QUOTA_EXCEEDED', limit: 'storage_bytes', used: 70, requested: 40 });
    const version = await postVersion(t, owner, first.id, { bytes: Buffer.alloc(31, 3), name: 'a.bin', type: 'application/octet-stream' });
    expect(version.statusCode, version.body).toBe(402);
    expect(version.json()).toMatchObject({ code: 'QUOTA_EXCEEDED', limit: 'storage_bytes', used: 70, requested: 31 });
    expect(await listVersions(t, owner, first.id)).toHaveLength(1);
    expect(await usageRow(owner.workspaceId)).toEqual({ storage_bytes: 70, reserved_bytes: 0, members: 1, assets: 1 });
    // What fits still goes in.
    expect((await postVersion(t, owner, first.id, { bytes: Buffer.alloc(30, 3), name: 'a.bin', type: 'application/octet-stream' })).statusCode).toBe(201);
  });

  it('a conversion is refused up front when the workspace has no storage left', async () => {
    const owner = await registerUser(t);
    const sub = await subscribe(owner);
    const image = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#336699' } }).png().toBuffer();
    const { ref } = await uploadFile(t, owner, image, { fileType: 'image/png', fileName: 'tiny.png' });
    await uploadFile(t, owner, Buffer.alloc(150, 9));
    await setStatus(owner, sub, 'canceled');
    const res = await t.request({ method: 'POST', url: '/convert/image', token: owner.token, payload: { assetId: ref.assetId, format: 'jpeg' } });
    expect(res.statusCode, res.body).toBe(402);
    expect(res.json()).toMatchObject({ code: 'QUOTA_EXCEEDED', limit: 'storage_bytes', requested: 1 });
  });
});

describe.each(dialects)('payments off on %s', (dialect) => {
  let t: StorageTestApp;
  beforeAll(async () => {
    t = await startStorageApp('local', undefined, { dialect, config: { payments: { plans: PLANS, stripe: null, graceDays: 7 } } });
  });
  afterAll(() => t.close());

  it('limits nothing and still keeps usage', async () => {
    const owner = await registerUser(t);
    for (let i = 0; i < 4; i += 1) await uploadFile(t, owner, Buffer.alloc(150, i));
    for (let i = 0; i < 2; i += 1) await addMember(t, owner, owner.workspaceId, await registerUser(t), 'viewer');
    const row = await t.database.db.selectFrom('workspace_usage').selectAll().where('workspace_id', '=', owner.workspaceId).executeTakeFirstOrThrow();
    expect({ storage: Number(row.storage_bytes), members: Number(row.members), assets: Number(row.assets), reserved: Number(row.reserved_bytes) }).toEqual({
      storage: 600,
      members: 3,
      assets: 4,
      reserved: 0,
    });
    expect((await t.request({ method: 'GET', url: '/payments/plans', token: owner.token })).statusCode).toBe(404);
  });
});
