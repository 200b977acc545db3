import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpTestApp, type TestApp } from './helpers/app.js';
import { tempDir } from './helpers/databases.js';
import { registerUser, type Account } from './helpers/factories.js';
import { createShare, uploadInto } from './helpers/shares.js';
import { listVersions, uploadVersion } from './helpers/versions.js';

/**
 * Downloads that resume safely (issue #38): validators (ETag, Last-Modified), 304, If-Range, and 416's
 * Content-Range, checked with the clients people resume with: curl, wget, and two ranged connections at once.
 */

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** Runs a client; its exit code instead of a throw. */
async function runClient(cmd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(cmd, args);
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('downloads that resume safely', () => {
  let t: TestApp & { baseUrl: string };
  let owner: Account;
  let dir: string;

  beforeAll(async () => {
    t = await startHttpTestApp();
    owner = await registerUser(t);
    dir = tempDir('dam-resume-');
  });
  afterAll(async () => {
    await t.close();
  });

  const auth = () => ({ authorization: `Bearer ${owner.token}` });
  /** The URL that follows the asset's current version. */
  const currentUrl = (assetId: number) =>
    `${t.baseUrl}/storage/download?${new URLSearchParams({ key: `${owner.workspaceId}/digital_assets/${assetId}`, workspaceId: String(owner.workspaceId) }).toString()}`;
  /** The URL that names one version. */
  const versionUrl = (versionId: number) => `${t.baseUrl}/dam/versions/${versionId}/download`;
  const get = (url: string, headers: Record<string, string> = {}) => fetch(url, { headers: { ...auth(), ...headers } });
  const bytesOf = async (res: Response) => Buffer.from(await res.arrayBuffer());
  const etagOf = async (url: string) => {
    const res = await get(url);
    await res.arrayBuffer();
    return res.headers.get('etag')!;
  };

  /** A new asset with `bytes` as v1, hashed (its ETag is then the SHA-256): its id and v1's id. */
  async function newAsset(bytes: Buffer, name = 'data.bin'): Promise<{ assetId: number; v1: number }> {
    const asset = await uploadInto(t, owner, { bytes, name, type: 'application/octet-stream' });
    await t.app.jobs.drain();
    const [v1] = await listVersions(t, owner, asset.id);
    return { assetId: asset.id, v1: v1!.id };
  }
  async function newVersion(assetId: number, bytes: Buffer): Promise<number> {
    const v = await uploadVersion(t, owner, assetId, { bytes, name: 'data.bin', type: 'application/octet-stream' });
    await t.app.jobs.drain();
    return v.id;
  }

  it('sends ETag and Last-Modified, answers If-None-Match (and If-Modified-Since on version URLs) with 304, and 416 with the size', async () => {
    const v1 = randomBytes(40_000);
    const { assetId, v1: v1Id } = await newAsset(v1);

    const whole = await get(currentUrl(assetId));
    expect(whole.status).toBe(200);
    expect(Buffer.compare(await bytesOf(whole), v1)).toBe(0);
    const etag = whole.headers.get('etag');
    expect(etag).toBe(`"${sha256(v1)}"`);
    const lastModified = whole.headers.get('last-modified')!;
    expect(Math.abs(Date.parse(lastModified) - Date.now())).toBeLessThan(120_000);
    const pinned = await get(versionUrl(v1Id));
    expect(pinned.headers.get('etag')).toBe(etag);
    expect(pinned.headers.get('last-modified')).toBe(lastModified);
    await pinned.arrayBuffer();

    for (const tag of [etag!, `W/${etag!}`, `"other", ${etag!}`, '*']) {
      const same = await get(currentUrl(assetId), { 'if-none-match': tag });
      expect(same.status, tag).toBe(304);
      expect(same.headers.get('etag')).toBe(etag);
      expect((await bytesOf(same)).length).toBe(0);
    }
    const other = await get(currentUrl(assetId), { 'if-none-match': '"other"' });
    expect(other.status).toBe(200);
    await other.arrayBuffer();

    // A date is trusted where the URL always serves the same bytes; the current-version URL answers in full.
    const since = await get(versionUrl(v1Id), { 'if-modified-since': lastModified });
    expect(since.status).toBe(304);
    const sinceCurrent = await get(currentUrl(assetId), { 'if-modified-since': lastModified });
    expect(sinceCurrent.status).toBe(200);
    await sinceCurrent.arrayBuffer();

    const outside = await get(currentUrl(assetId), { range: 'bytes=50000-' });
    expect(outside.status).toBe(416);
    expect(outside.headers.get('content-range')).toBe('bytes */40000');
    expect(((await outside.json()) as { code: string }).code).toBe('RANGE_NOT_SATISFIABLE');
  });

  it('serves a Range under If-Range only while the ETag (or, on a version URL, the date) names the file: after a new version, the whole file with 200', async () => {
    const v1 = randomBytes(30_000);
    const v2 = randomBytes(30_000);
    const { assetId, v1: v1Id } = await newAsset(v1);
    const first = await get(currentUrl(assetId));
    const etag1 = first.headers.get('etag')!;
    const date1 = first.headers.get('last-modified')!;
    await first.arrayBuffer();

    const part = await get(currentUrl(assetId), { range: 'bytes=100-199', 'if-range': etag1 });
    expect(part.status).toBe(206);
    expect(Buffer.compare(await bytesOf(part), v1.subarray(100, 200))).toBe(0);
    // A weak tag never satisfies If-Range (strong comparison).
    const weak = await get(currentUrl(assetId), { range: 'bytes=100-199', 'if-range': `W/${etag1}` });
    expect(weak.status).toBe(200);
    await weak.arrayBuffer();

    await newVersion(assetId, v2);
    const resumed = await get(currentUrl(assetId), { range: 'bytes=15000-', 'if-range': etag1 });
    expect(resumed.status).toBe(200);
    expect(resumed.headers.get('etag')).toBe(`"${sha256(v2)}"`);
    expect(resumed.headers.get('content-range')).toBeNull();
    expect(Buffer.compare(await bytesOf(resumed), v2)).toBe(0);

    // The version URL still serves v1, by its tag or its date.
    for (const ifRange of [etag1, date1]) {
      const pinned = await get(versionUrl(v1Id), { range: 'bytes=15000-', 'if-range': ifRange });
      expect(pinned.status, ifRange).toBe(206);
      expect(Buffer.compare(await bytesOf(pinned), v1.subarray(15_000))).toBe(0);
    }
    // On the current-version URL a date is not trusted (another version may share its second): the whole file.
    const current = await get(currentUrl(assetId));
    const date2 = current.headers.get('last-modified')!;
    await current.arrayBuffer();
    const byDate = await get(currentUrl(assetId), { range: 'bytes=15000-', 'if-range': date2 });
    expect(byDate.status).toBe(200);
    expect(Buffer.compare(await bytesOf(byDate), v2)).toBe(0);
  });

  it('curl -C - resumes a version URL to the whole version, and a current-version URL with If-Range refuses rather than splice', async () => {
    const v1 = randomBytes(50_000);
    const v2 = randomBytes(50_000);
    const { assetId, v1: v1Id } = await newAsset(v1);
    const etag1 = await etagOf(currentUrl(assetId));
    // The first half of v1, as an interrupted transfer leaves it; then v2 is uploaded.
    const pinnedFile = path.join(dir, 'curl-pinned.bin');
    const currentFile = path.join(dir, 'curl-current.bin');
    writeFileSync(pinnedFile, v1.subarray(0, 25_000));
    writeFileSync(currentFile, v1.subarray(0, 25_000));
    await newVersion(assetId, v2);

    const bearer = ['-H', `Authorization: Bearer ${owner.token}`];
    const pinned = await runClient('curl', ['-sS', '-f', '-C', '-', ...bearer, '-o', pinnedFile, versionUrl(v1Id)]);
    expect(pinned.code, pinned.stderr).toBe(0);
    expect(Buffer.compare(readFileSync(pinnedFile), v1)).toBe(0);

    // curl asked to resume gets 200 (the file changed): it stops (exit 33) and leaves the part untouched.
    const refused = await runClient('curl', ['-sS', '-C', '-', ...bearer, '-H', `If-Range: ${etag1}`, '-o', currentFile, currentUrl(assetId)]);
    expect(refused.code).toBe(33);
    expect(Buffer.compare(readFileSync(currentFile), v1.subarray(0, 25_000))).toBe(0);

    // --etag-save / --etag-compare: 304 leaves the copy, a new version replaces it whole.
    const etagFile = path.join(dir, 'etag.txt');
    const saved = await runClient('curl', ['-sS', '-f', ...bearer, '--etag-save', etagFile, '-o', currentFile, currentUrl(assetId)]);
    expect(saved.code, saved.stderr).toBe(0);
    expect(Buffer.compare(readFileSync(currentFile), v2)).toBe(0);
    const unchanged = await runClient('curl', ['-sS', '-f', ...bearer, '--etag-compare', etagFile, '-o', currentFile, '-w', '%{http_code}', currentUrl(assetId)]);
    expect(unchanged.stdout).toBe('304');
    expect(Buffer.compare(readFileSync(currentFile), v2)).toBe(0);
    const v3 = randomBytes(20_000);
    await newVersion(assetId, v3);
    const changed = await runClient('curl', ['-sS', '-f', ...bearer, '--etag-compare', etagFile, '-o', currentFile, '-w', '%{http_code}', currentUrl(assetId)]);
    expect(changed.stdout).toBe('200');
    expect(Buffer.compare(readFileSync(currentFile), v3)).toBe(0);
  });

  it('wget -c resumes a version URL to the whole version after a new one was uploaded', async () => {
    const v1 = randomBytes(50_000);
    const { assetId, v1: v1Id } = await newAsset(v1);
    const file = path.join(dir, 'wget.bin');
    writeFileSync(file, v1.subarray(0, 20_000));
    await newVersion(assetId, randomBytes(50_000));
    const res = await runClient('wget', ['-q', '-c', '--header', `Authorization: Bearer ${owner.token}`, '-O', file, versionUrl(v1Id)]);
    expect(res.code, res.stderr).toBe(0);
    expect(Buffer.compare(readFileSync(file), v1)).toBe(0);
  });

  it('two ranged connections with If-Range assemble one version; after a new version both answer it whole', async () => {
    const v1 = randomBytes(64_000);
    const v2 = randomBytes(48_000);
    const { assetId } = await newAsset(v1);
    const etag1 = await etagOf(currentUrl(assetId));
    const halves = (ifRange: string) =>
      Promise.all(['bytes=0-31999', 'bytes=32000-'].map((range) => get(currentUrl(assetId), { range, 'if-range': ifRange })));

    const before = await halves(etag1);
    expect(before.map((r) => r.status)).toEqual([206, 206]);
    expect(before.map((r) => r.headers.get('etag'))).toEqual([etag1, etag1]);
    expect(Buffer.compare(Buffer.concat(await Promise.all(before.map(bytesOf))), v1)).toBe(0);

    await newVersion(assetId, v2);
    const after = await halves(etag1);
    expect(after.map((r) => r.status)).toEqual([200, 200]);
    expect(after.map((r) => r.headers.get('etag'))).toEqual([`"${sha256(v2)}"`, `"${sha256(v2)}"`]);
    for (const body of await Promise.all(after.map(bytesOf))) expect(Buffer.compare(body, v2)).toBe(0);
  });

  it('shared-link and /media downloads carry the validators; a shared-link 304 counts no download', async () => {
    const v1 = randomBytes(10_000);
    const v2 = randomBytes(10_000);
    const { assetId } = await newAsset(v1);
    const link = await createShare(t, owner, { asset_ids: [assetId], max_downloads: 5 });
    const url = `${t.baseUrl}/shared/public/${link.key}/assets/${assetId}/download`;

    const first = await fetch(url);
    expect(first.status).toBe(200);
    const etag1 = first.headers.get('etag')!;
    expect(etag1).toBe(`"${sha256(v1)}"`);
    expect(first.headers.get('last-modified')).not.toBeNull();
    await first.arrayBuffer();
    const cached = await fetch(url, { headers: { 'if-none-match': etag1 } });
    expect(cached.status).toBe(304);
    expect(cached.headers.get('x-download-grant')).toBeNull();
    const counted = await t.request({ method: 'GET', url: `/shared/${link.id}`, token: owner.token });
    expect(counted.json<{ data: { download_count: number } }>().data.download_count).toBe(1);

    await newVersion(assetId, v2);
    const resumed = await fetch(url, { headers: { range: 'bytes=5000-', 'if-range': etag1 } });
    expect(resumed.status).toBe(200);
    expect(Buffer.compare(await bytesOf(resumed), v2)).toBe(0);

    const [current] = await listVersions(t, owner, assetId);
    const media = await fetch(current!.file_url);
    expect(media.status).toBe(200);
    const mediaTag = media.headers.get('etag')!;
    expect(mediaTag).toBe(`"${sha256(v2)}"`);
    await media.arrayBuffer();
    const mediaCached = await fetch(current!.file_url, { headers: { 'if-none-match': mediaTag } });
    expect(mediaCached.status).toBe(304);
    expect(mediaCached.headers.get('content-security-policy')).toContain('sandbox');
  });

  it('curl -OJ saves a UTF-8 name under its readable ASCII fallback; filename* keeps the name', async () => {
    // Accents drop (NFKD); ß and the dash have no decomposition and are spelled out; the rest would be '_'.
    const name = 'Zoë résumé – Größe 写.txt';
    const asset = await uploadInto(t, owner, { bytes: Buffer.from('CV'), name, type: 'text/plain' });
    const res = await get(currentUrl(asset.id));
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="Zoe resume - Grosse _.txt"; filename*=UTF-8''${encodeURIComponent(name)}`);
    await res.arrayBuffer();

    const out = tempDir('dam-curl-oj-');
    const saved = await runClient('curl', ['-sS', '-f', '-O', '-J', '-H', `Authorization: Bearer ${owner.token}`, '--output-dir', out, currentUrl(asset.id)]);
    expect(saved.code, saved.stderr).toBe(0);
    expect(readdirSync(out)).toEqual(['Zoe resume - Grosse _.txt']);
    expect(readFileSync(path.join(out, 'Zoe resume - Grosse _.txt'), 'utf8')).toBe('CV');
  });
});
