import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parsePlans } from '../src/payments/plans.js';
import { dialects } from './helpers/databases.js';
import { registerUser, type Account } from './helpers/factories.js';
import { startFakeStripe, type FakeStripe } from './helpers/fake-stripe.js';
import {
  completeRequest,
  downloadRequest,
  expectError,
  keyOf,
  listPartsRequest,
  partUrl,
  partUrlRequest,
  putPart,
  refQuery,
  startStorageApp,
  startUpload,
  startUploadRequest,
  uploadPart,
  type Part,
  type StorageTestApp,
  type UploadRef,
} from './helpers/uploads.js';
import { expectS3Error } from './helpers/s3-errors.js';

/**
 * Issue #28, "one presigned part URL writes without bound": on the local store a part number holds one body
 * however often it is PUT, the parts of an upload never hold more than its bound (declared fileSize and
 * DAM_MAX_FILE_SIZE), their bytes count against the plan while the upload is in progress, and an upload
 * cannot be kept taking parts past DAM_UPLOAD_MAX_LIFETIME.
 */

const MiB = 1024 * 1024;
const quotedMd5 = (bytes: Uint8Array) => `"${createHash('md5').update(bytes).digest('hex')}"`;

/** Bytes of every file under `dir` (0 when it does not exist). */
function bytesUnder(dir: string): number {
  let total = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    total += entry.isDirectory() ? bytesUnder(full) : statSync(full).size;
  }
  return total;
}

/** What the local store holds for unfinished uploads: their parts, and temporary files being written. */
const partBytesOnDisk = (t: StorageTestApp) =>
  bytesUnder(path.join(t.config.dataDir, 'storage', 'multipart')) + bytesUnder(path.join(t.config.dataDir, 'storage', 'tmp'));

/** A PUT whose body streams in chunks without a Content-Length (chunked transfer encoding). */
async function putChunked(url: string, chunks: number, chunkSize: number): Promise<number | 'closed'> {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < chunks; i += 1) controller.enqueue(randomBytes(chunkSize));
      controller.close();
    },
  });
  try {
    const res = await fetch(url, { method: 'PUT', body, duplex: 'half' });
    await res.arrayBuffer().catch(() => undefined);
    return res.status;
  } catch {
    // The server may close the connection while the client is still sending the refused body.
    return 'closed';
  }
}

describe.each(dialects)('part bounds on the local store, %s', (dialect) => {
  let t: StorageTestApp;
  let owner: Account;

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    t = await startStorageApp('local', undefined, { dialect, config: { maxFileSize: MiB, uploadMaxLifetime: 3 * 3600, sessionTtl: 7 * 86_400 } });
    owner = await registerUser(t);
  });
  afterAll(async () => {
    await t.close();
    vi.useRealTimers();
  });

  it('a part PUT again replaces its body: one body per part on disk, concurrent PUTs included; completion joins the last ones', async () => {
    const ref = await startUpload(t, owner);
    const url = await partUrl(t, owner, ref, 1);
    const bodies = [randomBytes(MiB / 2), randomBytes(MiB / 2), randomBytes(MiB / 2), randomBytes(MiB / 2)];
    for (const body of bodies) {
      const res = await putPart(url, body);
      expect(res.status, await res.text()).toBe(200);
      expect(partBytesOnDisk(t)).toBe(MiB / 2);
    }
    const last = bodies.at(-1)!;
    expect((await listPartsRequest(t, owner, ref)).json()).toEqual({ parts: [{ PartNumber: 1, ETag: quotedMd5(last), Size: last.length }] });

    // Four PUTs of part 2 at once: one of them is the part, and only its bytes stay.
    const racing = [randomBytes(1000), randomBytes(1000), randomBytes(1000), randomBytes(1000)];
    const url2 = await partUrl(t, owner, ref, 2);
    const answers = await Promise.all(racing.map((body) => putPart(url2, body)));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(partBytesOnDisk(t)).toBe(MiB / 2 + 1000);
    const listed = (await listPartsRequest(t, owner, ref)).json<{ parts: { PartNumber: number; ETag: string }[] }>().parts;
    const winner = racing.find((body) => quotedMd5(body) === listed[1]?.ETag);
    expect(winner).toBeDefined();

    const parts: Part[] = [
      { PartNumber: 1, ETag: quotedMd5(last) },
      { PartNumber: 2, ETag: quotedMd5(winner!) },
    ];
    const done = await completeRequest(t, owner, ref, parts);
    expect(done.statusCode, done.body).toBe(200);
    const file = await downloadRequest(t, owner, keyOf(ref), ref.workspaceId);
    expect(Buffer.compare(file.rawPayload, Buffer.concat([last, winner!]))).toBe(0);
    // The parts are joined (by hard links) and the upload's directory is gone.
    expect(partBytesOnDisk(t)).toBe(0);
  });

  it('a part past DAM_MAX_FILE_SIZE is refused (S3\'s 400 EntityTooLarge) by its Content-Length or while it streams, and the disk holds at most the bound', async () => {
    const ref = await startUpload(t, owner);
    const url = await partUrl(t, owner, ref, 1);

    // The attack of the issue: 8 MiB PUTs to one part URL with DAM_MAX_FILE_SIZE at 1 MiB.
    for (let i = 0; i < 4; i += 1) {
      const res = await putPart(url, randomBytes(8 * MiB));
      const body = await expectS3Error(res, 400, 'EntityTooLarge', 'DAM_MAX_FILE_SIZE');
      expect(body).toMatchObject({ ProposedSize: String(8 * MiB), MaxSizeAllowed: String(MiB) });
    }
    expect(partBytesOnDisk(t)).toBe(0);

    // Without a Content-Length the body is cut as it streams, before the chunk that would pass the bound is written.
    const streamed = await putChunked(url, 128, 64 * 1024);
    expect([400, 'closed']).toContain(streamed);
    expect(partBytesOnDisk(t)).toBeLessThanOrEqual(MiB);
    await vi.waitFor(() => expect(partBytesOnDisk(t)).toBe(0));
    expect((await listPartsRequest(t, owner, ref)).json()).toEqual({ parts: [] });

    // Exactly the bound fits; then the upload has no room for another part, and replacing the part still works.
    const whole = randomBytes(MiB);
    expect((await putPart(url, whole)).status).toBe(200);
    const second = await putPart(await partUrl(t, owner, ref, 2), Buffer.from('one byte too many'));
    await expectS3Error(second, 400, 'EntityTooLarge');
    const smaller = randomBytes(MiB - 10);
    expect((await putPart(url, smaller)).status).toBe(200);
    expect(partBytesOnDisk(t)).toBe(MiB - 10);
    expect((await putPart(await partUrl(t, owner, ref, 2), randomBytes(10))).status).toBe(200);
    expect(partBytesOnDisk(t)).toBe(MiB);
  });

  it('the parts together hold at most the declared fileSize; a fileSize over DAM_MAX_FILE_SIZE is refused at start-upload', async () => {
    const over = await startUploadRequest(t, owner, { workspaceId: owner.workspaceId, fileType: 'application/octet-stream', fileSize: MiB + 1 });
    expectError(over, 413, 'PAYLOAD_TOO_LARGE', 'DAM_MAX_FILE_SIZE');

    const res = await startUploadRequest(t, owner, { workspaceId: owner.workspaceId, fileType: 'application/octet-stream', fileSize: 100 });
    expect(res.statusCode, res.body).toBe(200);
    const ref: UploadRef = { ...res.json<{ uploadId: string; assetId: number }>(), workspaceId: owner.workspaceId };
    const tooBig = await putPart(await partUrl(t, owner, ref, 1), randomBytes(101));
    expect((await expectS3Error(tooBig, 400, 'EntityTooLarge', 'declared a fileSize of 100')).MaxSizeAllowed).toBe('100');

    const first = await uploadPart(t, owner, ref, 1, randomBytes(60));
    const refused = await putPart(await partUrl(t, owner, ref, 2), randomBytes(41));
    expect((await expectS3Error(refused, 400, 'EntityTooLarge')).MaxSizeAllowed).toBe('40');
    const tail = randomBytes(40);
    const second = await uploadPart(t, owner, ref, 2, tail);
    expect((await completeRequest(t, owner, ref, [first, second])).statusCode).toBe(200);
    expect((await downloadRequest(t, owner, keyOf(ref), ref.workspaceId)).rawPayload.length).toBe(100);
  });

  // Last in this block: it moves the app's clock and runs housekeeping.
  it('an upload past DAM_UPLOAD_MAX_LIFETIME gets no part URLs however active, and housekeeping removes it with its parts', async () => {
    const ref = await startUpload(t, owner);
    await uploadPart(t, owner, ref, 1, randomBytes(10));
    // Active all along (well within DAM_UPLOAD_TTL of 24 h between touches): only the lifetime ends it.
    t.advanceClock(3 * 3600 - 100);
    const res = await partUrlRequest(t, owner, ref, 2);
    expect(res.statusCode, res.body).toBe(200);
    const { url, expiresIn } = res.json<{ url: string; expiresIn: number }>();
    // The URL does not outlive the upload.
    expect(expiresIn).toBeLessThanOrEqual(100);
    expect(expiresIn).toBeGreaterThan(90);
    expect((await putPart(url, randomBytes(10))).status).toBe(200);

    t.advanceClock(101);
    expectError(await partUrlRequest(t, owner, ref, 3), 410, 'UPLOAD_EXPIRED', 'DAM_UPLOAD_MAX_LIFETIME');
    const late = await putPart(url, randomBytes(10));
    expect((await expectS3Error(late, 403, 'AccessDenied')).Message).toBe('Request has expired');

    vi.advanceTimersByTime(60_000);
    await vi.waitFor(async () => {
      expectError(await listPartsRequest(t, owner, ref), 404, 'INVALID_UPLOAD_ID');
    });
    expect(partBytesOnDisk(t)).toBe(0);
  });
});

const PLANS = parsePlans(
  JSON.stringify({ plans: [{ id: 'free', name: 'Free', price_label: 'Free', limits: { storage_bytes: 100 } }] }),
  'test plans',
);

describe.each(dialects)('uploads in progress count against the plan, %s', (dialect) => {
  let t: StorageTestApp;
  let stripe: FakeStripe;

  beforeAll(async () => {
    stripe = await startFakeStripe();
    t = await startStorageApp('local', undefined, { dialect, config: { payments: { plans: PLANS, stripe: stripe.config(), graceDays: 7 } } });
  });
  afterAll(async () => {
    await t.close();
    await stripe.close();
  });

  const reserved = async (workspaceId: number) =>
    Number(
      (await t.database.db.selectFrom('workspace_usage').select('reserved_bytes').where('workspace_id', '=', workspaceId).executeTakeFirstOrThrow())
        .reserved_bytes,
    );

  it('declared sizes are held from start-upload; undeclared parts are reserved before they are written', async () => {
    const owner = await registerUser(t);
    const start = (fileSize?: number) =>
      startUploadRequest(t, owner, { workspaceId: owner.workspaceId, fileType: 'application/octet-stream', ...(fileSize === undefined ? {} : { fileSize }) });
    const declared = await start(60);
    expect(declared.statusCode, declared.body).toBe(200);
    const big: UploadRef = { ...declared.json<{ uploadId: string; assetId: number }>(), workspaceId: owner.workspaceId };
    // 60 held by the upload in progress: another 50 does not fit the 100 of the plan.
    expect((await start(50)).json()).toMatchObject({ code: 'QUOTA_EXCEEDED', limit: 'storage_bytes', used: 60, requested: 50 });

    // No size declared: each part's bytes are reserved as it arrives.
    const open = await startUpload(t, owner);
    const first = await uploadPart(t, owner, open, 1, randomBytes(30));
    expect(await reserved(owner.workspaceId)).toBe(90);
    const refused = await putPart(await partUrl(t, owner, open, 2), randomBytes(20));
    await expectS3Error(refused, 402, 'QuotaExceeded', '90 bytes are used and 20 bytes more were asked for');
    expect((await listPartsRequest(t, owner, open)).json<{ parts: unknown[] }>().parts).toHaveLength(1);
    // Replacing a part takes no more room than it held.
    const again = await uploadPart(t, owner, open, 1, randomBytes(30));
    expect(again.ETag).not.toBe(first.ETag);
    expect(await reserved(owner.workspaceId)).toBe(90);

    // Aborting the declared upload gives its 60 back; then the part fits, and completing turns the reservation into usage.
    expect((await t.request({ method: 'DELETE', url: `/storage/abort-upload?${refQuery(big)}`, token: owner.token })).statusCode).toBe(200);
    const second = await uploadPart(t, owner, open, 2, randomBytes(20));
    expect(await reserved(owner.workspaceId)).toBe(50);
    expect((await completeRequest(t, owner, open, [again, second])).statusCode).toBe(200);
    const usage = await t.database.db.selectFrom('workspace_usage').select(['storage_bytes', 'reserved_bytes']).where('workspace_id', '=', owner.workspaceId).executeTakeFirstOrThrow();
    expect({ stored: Number(usage.storage_bytes), reserved: Number(usage.reserved_bytes) }).toEqual({ stored: 50, reserved: 0 });
  });
});
