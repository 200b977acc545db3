import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePlans } from '../src/payments/plans.js';
import { testConfig } from './helpers/app.js';
import { expectError } from './helpers/catalog-factories.js';
import { dialects } from './helpers/databases.js';
import { registerUser, type Account } from './helpers/factories.js';
import { startFakeStripe, type FakeStripe } from './helpers/fake-stripe.js';
import { startStorageApp, type StorageTestApp } from './helpers/uploads.js';
import { uploadVersion } from './helpers/versions.js';
import { rawZip, uploadAsset } from './helpers/zip.js';
import { overlappingZip } from './helpers/zip-hostile.js';

/** ZIP import amplification (issue #28): overlapping entries, the whole-archive ratio, the storage quota as bytes are written. */

const MiB = 1024 * 1024;
/** The free plan's storage: every test works in a new account's personal workspace, on that plan. */
const QUOTA = 2.5 * MiB;
const PLANS = parsePlans(
  JSON.stringify({
    plans: [
      { id: 'free', name: 'Free', price_label: 'Free', limits: { storage_bytes: QUOTA } },
      { id: 'big', name: 'Big', price_label: 'EUR 1 / month', limits: { storage_bytes: 100 * MiB }, stripe_price_id: 'price_big' },
    ],
  }),
  'test plans',
);

interface ImportJson {
  id: number;
  status: string;
  imported: number;
  skipped: number;
  failed: number;
  bytes_written: number;
  error: string | null;
  entries: { items: { name: string; outcome: string; reason: string | null; message: string | null }[] };
}

describe.each(dialects)('ZIP import amplification on %s', (dialect) => {
  let stripe: FakeStripe;
  let t: StorageTestApp;

  beforeAll(async () => {
    stripe = await startFakeStripe();
    t = await startStorageApp('local', undefined, {
      dialect,
      config: {
        // The worker runs only when a test drains it, so an import can wait while its archive changes.
        jobs: { ...testConfig().jobs, concurrency: 0 },
        zip: { downloadMaxEntries: 1000, maxEntries: 400, maxUncompressed: 64 * MiB, maxRatio: 100, linkTtl: 300 },
        payments: { plans: PLANS, stripe: stripe.config(), graceDays: 7 },
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await stripe?.close();
  });

  const upload = (who: Account, bytes: Buffer, name = 'archive.zip') => uploadAsset(t, who, { bytes, name, type: 'application/zip' });
  const startImport = (who: Account, assetId: number) => t.request({ method: 'POST', url: '/zip/extract', token: who.token, payload: { assetId } });
  const importStatus = async (who: Account, id: number): Promise<ImportJson> => {
    const res = await t.request({ method: 'GET', url: `/zip/extract/${id}?per_page=100`, token: who.token });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ data: ImportJson }>().data;
  };
  const runImport = async (who: Account, assetId: number): Promise<ImportJson> => {
    const started = await startImport(who, assetId);
    expect(started.statusCode, started.body).toBe(202);
    await t.app.jobs.drain();
    return importStatus(who, started.json<{ data: ImportJson }>().data.id);
  };
  const usage = async (who: Account) => {
    const res = await t.request({ method: 'GET', url: `/payments/subscription?workspaceId=${who.workspaceId}`, token: who.token });
    expect(res.statusCode, res.body).toBe(200);
    const used = res.json<{ data: { usage: { storage_bytes: number; assets: number } } }>().data.usage;
    const row = await t.database.db.selectFrom('workspace_usage').select('reserved_bytes').where('workspace_id', '=', who.workspaceId).executeTakeFirstOrThrow();
    return { ...used, reserved_bytes: Number(row.reserved_bytes) };
  };

  it('refuses an archive whose entries overlap, at once and in the job, before anything is written', async () => {
    const owner = await registerUser(t);
    // The attack: 300 central-directory records on one local entry of 1 MiB of zeros.
    const names = Array.from({ length: 300 }, (_, i) => `copy${i}.bin`);
    const amplifier = overlappingZip(Buffer.alloc(MiB), names);
    expect(amplifier.length).toBeLessThan(20_000);
    const archive = await upload(owner, amplifier);
    const before = await usage(owner);
    const refused = await startImport(owner, archive);
    expectError(refused, 422, 'ZIP_INVALID');
    expect(refused.json<{ error: string }>().error).toMatch(/"copy0\.bin" and "copy1\.bin" overlap/);

    // Not the same offset, but starting inside another entry's data.
    const inside = await upload(owner, overlappingZip(Buffer.alloc(MiB), ['a.bin', 'b.bin'], (i) => i * 40), 'inside.zip');
    expectError(await startImport(owner, inside), 422, 'ZIP_INVALID');

    // An archive that was sound when the import was asked for and overlaps when the job reads it.
    const sound = await upload(owner, rawZip([{ name: 'fine.txt', data: Buffer.from('fine') }]), 'sound.zip');
    const started = await startImport(owner, sound);
    expect(started.statusCode, started.body).toBe(202);
    await uploadVersion(t, owner, sound, { bytes: amplifier, name: 'sound.zip', type: 'application/zip' });
    const mid = await usage(owner);
    await t.app.jobs.drain();
    const failed = await importStatus(owner, started.json<{ data: ImportJson }>().data.id);
    expect(failed).toMatchObject({ status: 'failed', imported: 0, skipped: 0, failed: 0, bytes_written: 0 });
    expect(failed.error).toMatch(/^The archive is corrupt: the entries "copy0\.bin" and "copy1\.bin" overlap/);
    expect(await usage(owner)).toEqual(mid);
    expect(mid.assets).toBe(before.assets + 2);
    expect(mid.reserved_bytes).toBe(0);
  });

  it('bounds what all entries together inflate to by the ratio cap times the archive size', async () => {
    const owner = await registerUser(t);
    // Four entries of exactly 1 MiB of zeros: each is within the per-entry floor, together they are a bomb.
    const bombs = rawZip(Array.from({ length: 4 }, (_, i) => ({ name: `zeros${i}.bin`, data: Buffer.alloc(MiB), method: 8 })));
    expect(100 * bombs.length).toBeLessThan(MiB);
    const done = await runImport(owner, await upload(owner, bombs));
    expect(done).toMatchObject({ status: 'succeeded', imported: 1, skipped: 3, failed: 0, bytes_written: MiB });
    expect(done.entries.items.map((e) => [e.name, e.outcome, e.reason])).toEqual([
      ['zeros0.bin', 'imported', null],
      ['zeros1.bin', 'skipped', 'limit'],
      ['zeros2.bin', 'skipped', 'limit'],
      ['zeros3.bin', 'skipped', 'limit'],
    ]);
    expect(done.entries.items[1]!.message).toContain(`The archive is ${bombs.length} bytes; all its entries together may inflate to 100 times that`);

    // Compressible text, within the ratio, past the 1 MiB floor in all: imported whole.
    const other = await registerUser(t);
    const text = () => Buffer.from(randomBytes(300_000).toString('hex'));
    const logs = rawZip([
      { name: 'one.log', data: text(), method: 8 },
      { name: 'two.log', data: text(), method: 8 },
    ]);
    const imported = await runImport(other, await upload(other, logs, 'logs.zip'));
    expect(imported).toMatchObject({ status: 'succeeded', imported: 2, skipped: 0, bytes_written: 1_200_000 });
  });

  it("counts what an import writes against the workspace's storage quota before each entry is inflated", async () => {
    const owner = await registerUser(t);
    const size = 256 * 1024;
    const entries = [
      ...Array.from({ length: 6 }, (_, i) => ({ name: `random${i}.bin`, data: randomBytes(size) })),
      // Declares 1,000 bytes and inflates to 2 MiB: cut where its reservation ends.
      { name: 'liar.bin', data: Buffer.alloc(2 * MiB), method: 8, size: 1000 },
      { name: 'small.txt', data: Buffer.from('still fits') },
    ];
    const archive = rawZip(entries);
    const asset = await upload(owner, archive);
    const room = QUOTA - (await usage(owner)).storage_bytes;
    const fit = Math.floor(room / size);
    expect(fit).toBeGreaterThan(0);
    expect(fit).toBeLessThan(6);

    const done = await runImport(owner, asset);
    expect(done.status).toBe('succeeded');
    const outcomes = done.entries.items.map((e) => [e.name, e.outcome, e.reason]);
    expect(outcomes).toEqual([
      ...entries.slice(0, 6).map((e, i) => (i < fit ? [e.name, 'imported', null] : [e.name, 'skipped', 'quota'])),
      ['liar.bin', 'failed', 'corrupt'],
      ['small.txt', 'imported', null],
    ]);
    expect(done.entries.items[fit]!.message).toMatch(/^The workspace's plan allows \d+ bytes of storage/);
    // Skipped entries were never inflated; the liar stopped at its declared size.
    expect(done.bytes_written).toBeLessThanOrEqual(fit * size + 1000 + 'still fits'.length);
    const after = await usage(owner);
    expect(after.storage_bytes).toBeLessThanOrEqual(QUOTA);
    // The imported files (and small.txt's preview).
    expect(after.storage_bytes).toBeGreaterThanOrEqual(QUOTA - room + fit * size + 'still fits'.length);
    expect(after.reserved_bytes).toBe(0);

    // Nearly full: a further import skips every large file without inflating it.
    const again = await runImport(owner, asset);
    expect(again.status).toBe('succeeded');
    expect(again.entries.items.slice(0, 6).every((e) => e.outcome === 'skipped' && e.reason === 'quota')).toBe(true);
    expect(again.bytes_written).toBeLessThanOrEqual(1000 + 'still fits'.length);
    expect((await usage(owner)).storage_bytes).toBeLessThanOrEqual(QUOTA);
  });
});
