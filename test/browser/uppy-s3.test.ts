import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, newPage, registerApi, type Session, useBrowserSuite } from './harness.js';

/**
 * Issue #38: an S3 client uploads through the local store's presigned part URLs and recovers from one that expired,
 * because the refusal is S3's XML (403 AccessDenied "Request has expired"), on which Uppy's @uppy/aws-s3 signs the
 * part again; with the service's JSON it gave up. A page bundled with @uppy/core and @uppy/aws-s3 uploads a 12 MiB
 * file in 5 MiB parts through the service's multipart endpoints, is paused after the first part until the part URLs
 * signed before the pause (DAM_PART_URL_TTL: 3 s here) have expired, and resumed.
 */

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const PART_URL_TTL = 3;
const FILE_SIZE = 12 * 1024 * 1024;
const ENTRY = 'uppy-s3-page';

/**
 * The page (bundled by vite): Uppy with AwsS3 in multipart mode, its five functions calling the service's endpoints
 * with a bearer token. signPart signs every part of the file with its first call (as a page that presigns a whole
 * file in one go, saving round trips), and hands each of those URLs out once; a part asked for again is signed anew.
 * Uppy asks for a part's URL right before each attempt at it: the URLs of the batch that are first handed out after
 * the pause have expired, and only the S3 answer to that makes Uppy ask again. What happens goes to `window.uppyLog`.
 */
const PAGE_SOURCE = `
import Uppy from '@uppy/core';
import AwsS3 from '@uppy/aws-s3';

const { api, token, workspaceId } = window.uppyConfig;
const PART = 5 * 1024 * 1024;
const log = (window.uppyLog = []);
const assets = new Map();
const presigned = new Map();
let presignedAll = false;
let paused = false;
let resumed = false;

async function call(method, path, body) {
  const headers = { authorization: 'Bearer ' + token };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(api + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!res.ok) throw new Error(method + ' ' + path + ': ' + res.status + ' ' + (await res.text()));
  return res.json();
}
const ref = (uploadId) => new URLSearchParams({ UploadId: uploadId, assetId: String(assets.get(uploadId)), workspaceId: String(workspaceId) });
async function sign(uploadId, partNumber) {
  const { url } = await call('GET', '/storage/get-upload-url?PartNumber=' + partNumber + '&' + ref(uploadId));
  return url;
}

const uppy = new Uppy({ autoProceed: false });
uppy.use(AwsS3, {
  shouldUseMultipart: true,
  limit: 1,
  getChunkSize: () => PART,
  async createMultipartUpload(file) {
    const query = new URLSearchParams({ workspaceId: String(workspaceId), fileType: 'application/octet-stream', fileName: file.name, fileSize: String(file.size) });
    const { uploadId, assetId } = await call('GET', '/storage/start-upload?' + query);
    assets.set(uploadId, assetId);
    return { uploadId, key: String(assetId) };
  },
  async signPart(file, { uploadId, partNumber }) {
    if (!presignedAll) {
      presignedAll = true;
      for (let n = 1; n <= Math.ceil(file.size / PART); n += 1) presigned.set(n, await sign(uploadId, n));
    }
    let url = presigned.get(partNumber);
    presigned.delete(partNumber);
    const cached = url !== undefined;
    if (!cached) url = await sign(uploadId, partNumber);
    log.push({ event: 'sign', partNumber, cached, resumed, expires: Number(new URL(url).searchParams.get('expires')) });
    return { url };
  },
  async listParts(file, { uploadId }) {
    const { parts } = await call('GET', '/storage/list-parts?' + ref(uploadId));
    log.push({ event: 'list', parts: parts.map((p) => p.PartNumber) });
    return parts;
  },
  async completeMultipartUpload(file, { uploadId, parts }) {
    const answer = await call('POST', '/storage/complete-upload', { uploadId, assetId: assets.get(uploadId), workspaceId, parts });
    log.push({ event: 'complete', key: answer.key, parts: parts.map((p) => p.PartNumber) });
    return { location: answer.location };
  },
  async abortMultipartUpload(file, { uploadId }) {
    log.push({ event: 'abort' });
    await call('DELETE', '/storage/abort-upload?' + ref(uploadId));
  },
});
uppy.on('s3-multipart:part-uploaded', (file, part) => {
  log.push({ event: 'part', partNumber: part.PartNumber });
  if (!paused) {
    paused = true;
    uppy.pauseAll();
    log.push({ event: 'paused' });
  }
});
uppy.on('upload-success', () => log.push({ event: 'success' }));
uppy.on('upload-error', (file, error) => log.push({ event: 'error', message: String(error && error.message) }));

window.uppyStart = (size) => {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i += 1) bytes[i] = Math.imul(i ^ (i >>> 11), 2654435761) >>> 24;
  uppy.addFile({ name: 'survey.bin', type: 'application/octet-stream', data: new Blob([bytes]) });
  uppy.upload();
};
window.uppyResume = () => {
  resumed = true;
  uppy.resumeAll();
};
`;

/** The bytes the page uploads. */
function fileBytes(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i += 1) bytes[i] = Math.imul(i ^ (i >>> 11), 2654435761) >>> 24;
  return bytes;
}

type LogEntry = { event: string; partNumber?: number; cached?: boolean; resumed?: boolean; expires?: number; key?: string; parts?: number[]; message?: string };

const uppyLog = (page: Page) => page.evaluate<LogEntry[]>('window.uppyLog');

describe.skipIf(!hasChromium)('Uppy (@uppy/aws-s3 5) through the local part URLs, in chromium', () => {
  let browser: Browser;
  let base: string;
  let owner: Session;
  let dir: string;
  let server: Server;
  let pageOrigin: string;

  beforeAll(async () => {
    // The page, bundled into a temporary directory and served from an origin of its own (CORS as in production).
    dir = mkdtempSync(path.join(os.tmpdir(), 'dam-uppy-'));
    await build({
      root: ROOT,
      configFile: false,
      logLevel: 'warn',
      publicDir: false,
      plugins: [{ name: 'uppy-s3-page', resolveId: (id) => (id === ENTRY ? `\0${ENTRY}` : undefined), load: (id) => (id === `\0${ENTRY}` ? PAGE_SOURCE : undefined) }],
      build: { outDir: dir, emptyOutDir: true, minify: false, rolldownOptions: { input: ENTRY, output: { entryFileNames: 'page.js', format: 'es' } } },
    });
    const script = readFileSync(path.join(dir, 'page.js'));
    server = createServer((req, res) => {
      if (req.url === '/page.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Uppy</title>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    pageOrigin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  useBrowserSuite(
    async (suite) => {
      ({ browser, base } = suite);
      owner = await registerApi(base, 'Uppy User');
    },
    () => ({ partUrlTtl: PART_URL_TTL }),
  );

  it('paused past the part URLs\' lifetime, resumes: the expired part is refused with S3\'s XML, re-signed, and the file completes whole', { timeout: 90_000 }, async () => {
    const workspaceId = owner.workspaces[0]!.id;
    const { context, page } = await newPage(browser);
    try {
      const puts: { partNumber: number; status: number; body: string }[] = [];
      page.on('response', (res) => {
        const match = /\/storage\/parts\/[^/]+\/(\d+)\?/.exec(res.url());
        if (!match || res.request().method() !== 'PUT') return;
        const put = { partNumber: Number(match[1]), status: res.status(), body: '' };
        puts.push(put);
        void res.text().then(
          (body) => (put.body = body),
          () => undefined,
        );
      });
      await page.goto(`${pageOrigin}/`);
      await page.evaluate(`window.uppyConfig = ${JSON.stringify({ api: base, token: owner.token, workspaceId })}`);
      await page.addScriptTag({ url: `${pageOrigin}/page.js`, type: 'module' });
      await page.waitForFunction('typeof window.uppyStart === "function"');
      await page.evaluate(`window.uppyStart(${FILE_SIZE})`);

      // Paused after the first part; the URLs of all parts were signed with its, before the pause.
      await page.waitForFunction('window.uppyLog.some((e) => e.event === "paused")');
      const beforePause = await uppyLog(page);
      expect(beforePause.filter((e) => e.event === 'part').map((e) => e.partNumber)).toEqual([1]);
      const expires = Math.max(...beforePause.filter((e) => e.event === 'sign').map((e) => e.expires!));
      // Past their lifetime (the server compares whole seconds).
      while (Math.floor(Date.now() / 1000) <= expires + 1) await new Promise((resolve) => setTimeout(resolve, 200));

      await page.evaluate('window.uppyResume()');
      await page.waitForFunction('window.uppyLog.some((e) => e.event === "success" || e.event === "error")', undefined, { timeout: 60_000 });
      const log = await uppyLog(page);
      expect(log.filter((e) => e.event === 'error')).toEqual([]);
      expect(log.find((e) => e.event === 'list')?.parts).toEqual([1]);

      // A URL of the batch handed out after the pause was refused with S3's answer to an expired URL...
      const refused = puts.filter((p) => p.status !== 200);
      expect(refused.length).toBeGreaterThan(0);
      for (const put of refused) {
        expect(put.status).toBe(403);
        expect(put.body).toContain('<Code>AccessDenied</Code><Message>Request has expired</Message>');
        // ... on which Uppy asked for that part's URL again, got a fresh one and the part was taken.
        const signs = log.filter((e) => e.event === 'sign' && e.partNumber === put.partNumber && e.resumed);
        expect(signs.map((e) => e.cached)).toEqual([true, false]);
        expect(puts.filter((p) => p.partNumber === put.partNumber).map((p) => p.status)).toEqual([403, 200]);
      }
      const complete = log.find((e) => e.event === 'complete')!;
      expect(complete.parts).toEqual([1, 2, 3]);
      expect(log.some((e) => e.event === 'abort')).toBe(false);

      // The stored object holds the file's bytes.
      const download = await fetch(`${base}/storage/download?${new URLSearchParams({ key: complete.key!, workspaceId: String(workspaceId) }).toString()}`, {
        headers: { authorization: `Bearer ${owner.token}` },
      });
      expect(download.status).toBe(200);
      const stored = Buffer.from(await download.arrayBuffer());
      expect(stored.length).toBe(FILE_SIZE);
      expect(stored.equals(fileBytes(FILE_SIZE))).toBe(true);
    } finally {
      await context.close();
    }
  });
});
