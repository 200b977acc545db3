#!/usr/bin/env node
// `npm run bench:zip [-- --gib <n>] [--big-gib <n>] [--files <n>] [--entries <n>] [--many-only] [--dir <path>] [--keep]`
//
// Many entries (issue #38): first, a folder of --entries (default 100,000) empty sub-folders and a
// folder of as many tiny files are each streamed as one ZIP; time to the first byte and in all are
// printed, and the archive's entry count is checked with yauzl. Their rows are written straight into
// the server's SQLite database (the files all share the object of one uploaded 16-byte file): making
// 100,000 of them through the API would take longer than what is measured.
//
// Uploads a selection (default 6 GiB: one 4.5 GiB video, so one entry over 4 GiB, and 24 JPEG-typed
// files sharing the rest) through the presigned flow to a server on loopback (local store), then
// streams it as one ZIP through GET /zip/download. In the same run it reads the same objects raw
// from the store (the LocalObjects reader the server itself uses, in this process, discarding the
// bytes) before and after, and downloads them one by one through GET /storage/download on the same
// loopback (the server's plain file path, no ZIP); it samples the server's resident memory while the
// ZIP streams. HTTP downloads are made by curl when installed (its CPU cost is small and the same for
// both), else by node:http. By default the objects are in the page cache (warmed first); --cold drops
// the cache before every timed pass, so all three read the disk.
// The ZIP is then downloaded once more to a file and checked by independent readers: Info-ZIP's
// `unzip -t` (every entry's CRC-32) and yauzl (entry count, names, sizes, ZIP64 fields).
//
// Target: ZIP MB/s >= 0.80 x raw read MB/s; server RSS growth < 100 MB.
// It is a measurement, not a test: it exits 0 below target, non-zero only when the download
// fails or its result does not verify.
//
// MB here is 10^6 bytes, for speeds and for memory; GiB is 2^30 bytes, for sizes.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, rmdir, statfs } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, URL } from 'node:url';
import { parseArgs, promisify } from 'node:util';
// Node globals, imported so the file lints without a globals config.
import { Buffer } from 'node:buffer';
import console from 'node:console';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { clearInterval, setInterval } from 'node:timers';
import { freePort, procMemory, resetPeak, startServer, stopChild } from './bench-process.mjs';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
const MB = 1e6;
const PART = 64 * MiB;
const POOL = 4;
const RATIO_TARGET = 0.8;
const RSS_TARGET = 100 * MB;
const RSS_POLL_MS = 50;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const serverEntry = path.join(root, 'dist', 'server.js');

const usage = `usage: npm run bench:zip [-- options]
  --gib <n>        total size of the selection in GiB (default 6)
  --big-gib <n>    size of the largest file in GiB (default 4.5, or 3/4 of --gib when that is smaller)
  --files <n>      number of other files sharing the rest (default 24)
  --dir <path>     parent of the temporary data dir (default ./data, the server's default data dir)
  --entries <n>    entries of the many-entries cases (default 100000; 0 skips them)
  --many-only      run only the many-entries cases
  --keep           keep the data dir (objects and the downloaded ZIP) for inspection
  --cold           drop the page cache before every timed pass (Linux, root): all three read the disk`;

function fail(message, code = 1) {
  console.error(`bench:zip: ${message}`);
  process.exit(code);
}

function parseOptions() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        gib: { type: 'string', default: '6' },
        'big-gib': { type: 'string' },
        files: { type: 'string', default: '24' },
        entries: { type: 'string', default: '100000' },
        'many-only': { type: 'boolean', default: false },
        dir: { type: 'string', default: path.join(root, 'data') },
        keep: { type: 'boolean', default: false },
        cold: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (err) {
    fail(`${err.message}\n${usage}`, 2);
  }
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  const total = Math.round(Number(values.gib) * GiB);
  const big = Math.round(Number(values['big-gib'] ?? Math.min(4.5, Number(values.gib) * 0.75)) * GiB);
  const files = Number(values.files);
  if (!Number.isFinite(total) || total < MiB) fail(`--gib must be a positive number, got "${values.gib}"`, 2);
  if (!Number.isFinite(big) || big < 1 || big >= total) fail('--big-gib must be positive and smaller than --gib', 2);
  if (!Number.isInteger(files) || files < 1 || files > 1000) fail(`--files must be an integer from 1 to 1000, got "${values.files}"`, 2);
  const rest = total - big;
  const small = Math.floor(rest / files);
  const sizes = [big, ...Array.from({ length: files }, (_, i) => (i === files - 1 ? rest - small * (files - 1) : small))];
  const entries = Number(values.entries);
  if (!Number.isInteger(entries) || entries < 0 || entries > 1_000_000) fail(`--entries must be an integer from 0 to 1000000, got "${values.entries}"`, 2);
  return { total, sizes, parentDir: path.resolve(values.dir), keep: values.keep, cold: values.cold, entries, manyOnly: values['many-only'] };
}

// ---------------------------------------------------------------- helpers

const now = () => performance.now();
const mbps = (bytes, ms) => bytes / MB / (ms / 1000);
const fmtMB = (bytes) => `${(bytes / MB).toFixed(1)} MB`;
const fmtGiB = (bytes) => `${+(bytes / GiB).toFixed(3)} GiB`;
const fmtS = (ms) => `${(ms / 1000).toFixed(2)} s`;
const fmtRate = (bytes, ms) => `${mbps(bytes, ms).toFixed(1)} MB/s`;

let agent;

function request(method, url, { headers = {}, body, timeoutMs = 600_000 } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent, headers: body ? { ...headers, 'content-length': body.length } : headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', (err) => reject(new Error(`${method} ${new URL(url).pathname}: ${err.message}`, { cause: err })));
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${url}: no answer in ${timeoutMs} ms`)));
    req.end(body);
  });
}

/** GET whose body is counted (or written to `file`), never kept: the ZIP of several GiB. */
function download(url, headers, file) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers }, (res) => {
      if (res.statusCode !== 200) {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => reject(new Error(`GET ${new URL(url).pathname} answered ${res.statusCode}: ${Buffer.concat(chunks).toString('utf8').slice(0, 500)}`)));
        return;
      }
      let bytes = 0;
      res.on('data', (c) => {
        bytes += c.length;
      });
      const done = () => resolve({ bytes, headers: res.headers });
      if (file) pipeline(res, createWriteStream(file, { highWaterMark: 4 * MiB })).then(done, reject);
      else {
        res.on('end', done);
        res.on('error', reject);
        res.on('aborted', () => reject(new Error('the server cut the download')));
      }
    });
    req.on('error', reject);
  });
}

let hasCurl = true;

/** GET with curl, body discarded: { bytes, ms }. The token goes in on stdin, not on the command line. */
function curlGet(url, headers) {
  return new Promise((resolve, reject) => {
    const child = spawn('curl', ['-sS', '--fail', '-o', '/dev/null', '-w', '%{http_code} %{size_download} %{time_total}', '-H', '@-', url], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const [status, size, seconds] = out.trim().split(' ');
      if (code !== 0) return reject(new Error(`curl ${new URL(url).pathname} failed (${code}, HTTP ${status}): ${err.trim()}`));
      resolve({ bytes: Number(size), ms: Number(seconds) * 1000 });
    });
    child.stdin.end(Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join('\n') + '\n');
  });
}

/** One timed GET whose body is discarded: curl when installed, else node:http. */
async function timedGet(url, headers) {
  if (hasCurl) {
    try {
      return await curlGet(url, headers);
    } catch (err) {
      if (err.code !== 'ENOENT') throw err;
      hasCurl = false;
    }
  }
  const t0 = now();
  const { bytes } = await download(url, headers);
  return { bytes, ms: now() - t0 };
}

/** Writes dirty pages out and drops the page cache (Linux, root), so the next read comes from the disk. */
function dropCaches() {
  execFileSync('sync');
  writeFileSync('/proc/sys/vm/drop_caches', '3');
}

function makeApi(base) {
  let token;
  const call = async (method, route, { json, query, expect = [200] } = {}) => {
    const url = new URL(route, base);
    for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, String(v));
    const h = {};
    if (token) h.authorization = `Bearer ${token}`;
    let body;
    if (json !== undefined) {
      body = Buffer.from(JSON.stringify(json));
      h['content-type'] = 'application/json';
    }
    const res = await request(method, url, { headers: h, body });
    if (!expect.includes(res.status)) throw new Error(`${method} ${url.pathname} answered ${res.status}: ${res.body.toString('utf8').slice(0, 500)}`);
    const type = res.headers['content-type'] ?? '';
    return { ...res, json: type.includes('json') ? JSON.parse(res.body.toString('utf8')) : undefined };
  };
  return { call, setToken: (t) => (token = t), authHeaders: () => ({ authorization: `Bearer ${token}` }) };
}

// ---------------------------------------------------------------- server and its memory

// ---------------------------------------------------------------- data

/** A few random 64 MiB buffers; part n of every file is pool[n % POOL], cut short for a short last part. */
function makePool() {
  return Array.from({ length: POOL }, () => randomBytes(PART));
}

async function uploadFile(api, pool, workspaceId, { size, name, type }) {
  const started = await api.call('GET', '/storage/start-upload', { query: { workspaceId, fileType: type, fileName: name } });
  const { uploadId, assetId } = started.json;
  const ref = { UploadId: uploadId, assetId, workspaceId };
  const count = Math.ceil(size / PART);
  const etags = [];
  for (let n = 1; n <= count; n++) {
    const { url } = (await api.call('GET', '/storage/get-upload-url', { query: { PartNumber: n, ...ref } })).json;
    const bytes = pool[n % POOL].subarray(0, n < count ? PART : size - PART * (count - 1));
    const res = await request('PUT', url, { headers: { 'content-type': 'application/octet-stream' }, body: bytes });
    if (res.status !== 200) throw new Error(`PUT part ${n} of ${name} answered ${res.status}: ${res.body.toString('utf8').slice(0, 300)}`);
    etags.push(res.headers.etag);
  }
  await api.call('POST', '/storage/complete-upload', {
    json: { uploadId, assetId, workspaceId, parts: etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })) },
  });
  return assetId;
}

// ---------------------------------------------------------------- baseline and checks

/** Reads every object once, in order, through the store's own reader, discarding the bytes. */
async function rawRead(objects, keys) {
  let bytes = 0;
  const t0 = now();
  for (const key of keys) {
    const { stream } = await objects.read(key);
    for await (const chunk of stream) bytes += chunk.length;
  }
  return { bytes, ms: now() - t0 };
}

/** yauzl (independent of the writer) over the downloaded file: entries, names, sizes, ZIP64 where needed. */
async function checkWithYauzl(yauzl, file, expected) {
  const zip = await yauzl.openPromise(file, { lazyEntries: true, strictFileNames: true, validateEntrySizes: true });
  const seen = [];
  for await (const entry of zip.eachEntry()) {
    seen.push({ name: entry.fileName, size: entry.uncompressedSize, method: entry.compressionMethod, zip64: entry.extraFields.some((f) => f.id === 1) });
  }
  zip.close();
  if (seen.length !== expected.length) throw new Error(`yauzl read ${seen.length} entries, expected ${expected.length}`);
  for (const [i, e] of expected.entries()) {
    const s = seen[i];
    if (s.name !== e.name || s.size !== e.size) throw new Error(`entry ${i}: yauzl read ${s.name} (${s.size} bytes), expected ${e.name} (${e.size})`);
    if (s.method !== 0) throw new Error(`entry ${s.name} is not stored (method ${s.method})`);
    if (s.size > 0xfffffffe && !s.zip64) throw new Error(`entry ${s.name} is over 4 GiB without a ZIP64 extra field`);
  }
  return seen;
}

async function unzipTest(file) {
  try {
    const { stdout } = await promisify(execFile)('unzip', ['-t', file], { maxBuffer: 16 * MiB });
    return stdout.trim().split('\n').pop();
  } catch (err) {
    if (err.code === 'ENOENT') return undefined;
    throw new Error(`unzip -t failed:\n${err.stdout ?? ''}${err.stderr ?? ''}`);
  }
}

// ---------------------------------------------------------------- many entries (issue #38)

/** GET whose body goes to `file`: { firstByteMs, ms, bytes }; the first byte is the first body chunk. */
function timedDownload(url, headers, file) {
  const t0 = now();
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return reject(new Error(`GET ${new URL(url).pathname} answered ${res.statusCode}`));
      }
      let firstByteMs;
      let bytes = 0;
      res.on('data', (c) => {
        firstByteMs ??= now() - t0;
        bytes += c.length;
      });
      pipeline(res, createWriteStream(file)).then(() => resolve({ firstByteMs, ms: now() - t0, bytes }), reject);
    });
    req.on('error', reject);
  });
}

async function countEntries(yauzl, file) {
  const zip = await yauzl.openPromise(file, { lazyEntries: true });
  let n = 0;
  for await (const entry of zip.eachEntry()) if (entry) n++;
  zip.close();
  return n;
}

/**
 * A folder of `n` empty sub-folders and one of `n` tiny files, each downloaded as one ZIP. The rows are
 * inserted into the server's database directly (it runs in WAL mode; better-sqlite3 waits for its lock).
 */
async function manyEntries({ api, base, dataDir, workspaceId, n, yauzl, benchDir }) {
  const { default: Database } = await import('better-sqlite3');
  const folder = async (name) => (await api.call('POST', '/dam/folders', { json: { workspace_id: workspaceId, name }, expect: [200, 201] })).json.data.id;
  const empty = await folder('Empty folders');
  const tiny = await folder('Tiny files');
  const pool = Array.from({ length: POOL }, () => Buffer.from('sixteen bytes..\n'));
  const one = await uploadFile(api, pool, workspaceId, { size: 16, name: 'tiny.txt', type: 'text/plain' });
  const db = new Database(path.join(dataDir, 'dam.sqlite'), { timeout: 60_000 });
  process.stdout.write(`inserting ${n} folders and ${n} assets into the database ... `);
  const t0 = now();
  const at = Math.floor(Date.now() / 1000);
  const insertFolder = db.prepare(
    'INSERT INTO folders (workspace_id, parent_id, name, name_key, visibility, tags, created_at, modified_at) VALUES (?, ?, ?, ?, 0, ?, ?, ?)',
  );
  const columns = db
    .prepare('PRAGMA table_info(assets)')
    .all()
    .map((c) => c.name)
    .filter((c) => c !== 'id' && c !== 'folder_id' && c !== 'display_file_name');
  const cloneAsset = db.prepare(`INSERT INTO assets (${columns.join(', ')}, folder_id, display_file_name) SELECT ${columns.join(', ')}, ?, ? FROM assets WHERE id = ?`);
  db.transaction(() => {
    for (let i = 0; i < n; i++) {
      const name = `folder ${String(i).padStart(6, '0')}`;
      insertFolder.run(workspaceId, empty, name, name, '[]', at, at);
      cloneAsset.run(tiny, `file ${String(i).padStart(6, '0')}.txt`, one);
    }
  })();
  db.close();
  console.log(fmtS(now() - t0));
  const rows = [];
  for (const [label, folderId] of [
    [`${n} empty folders`, empty],
    [`${n} tiny files (16 bytes, deflated)`, tiny],
  ]) {
    process.stdout.write(`GET /zip/download of ${label} ... `);
    const file = path.join(benchDir, `many-${folderId}.zip`);
    const got = await timedDownload(`${base}/zip/download?workspaceId=${workspaceId}&folder_id=${folderId}`, api.authHeaders(), file);
    const entries = await countEntries(yauzl, file);
    await rm(file, { force: true });
    if (entries !== n) throw new Error(`the ZIP of ${label} has ${entries} entries, expected ${n}`);
    console.log(`first byte ${fmtS(got.firstByteMs)}, all ${fmtS(got.ms)}, ${fmtMB(got.bytes)}`);
    rows.push({ label, ...got, entries });
  }
  return rows;
}

function printMany(rows) {
  if (!rows) return;
  console.log('\nMany entries (issue #38): GET /zip/download on loopback, node:http, checked by yauzl\n');
  console.log(`  ${'case'.padEnd(44)}${'first byte'.padStart(12)}${'total'.padStart(10)}${'per entry'.padStart(12)}${'ZIP'.padStart(12)}`);
  for (const r of rows) {
    console.log(
      `  ${r.label.padEnd(44)}${fmtS(r.firstByteMs).padStart(12)}${fmtS(r.ms).padStart(10)}${`${((r.ms * 1000) / r.entries).toFixed(0)} µs`.padStart(12)}${fmtMB(r.bytes).padStart(12)}`,
    );
  }
}

// ---------------------------------------------------------------- main

async function main() {
  const opts = parseOptions();
  const entry = serverEntry;
  if (!existsSync(entry)) fail('dist/server.js is missing: run npm run build (npm run bench:zip builds the server)');
  const { LocalObjects } = await import(path.join(path.dirname(entry), 'storage', 'local-objects.js'));
  const { default: yauzl } = await import('yauzl');

  const children = new Set();
  let benchDir;
  let createdParent = false;
  let sampler;
  const cleanup = async () => {
    if (sampler) clearInterval(sampler);
    await Promise.all([...children].map((c) => stopChild(c, children)));
    agent?.destroy();
    if (benchDir && !opts.keep) await rm(benchDir, { recursive: true, force: true });
    if (createdParent && !opts.keep) await rmdir(opts.parentDir).catch(() => undefined);
  };
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      console.error(`\nbench:zip: ${signal}, cleaning up`);
      cleanup().finally(() => process.exit(130));
    });
  }

  try {
    createdParent = !existsSync(opts.parentDir);
    await mkdir(opts.parentDir, { recursive: true });
    benchDir = await mkdtemp(path.join(opts.parentDir, 'bench-zip-'));
    const fsInfo = await statfs(benchDir);
    const needed = opts.manyOnly ? GiB : 2 * opts.total + GiB;
    if (fsInfo.bavail * fsInfo.bsize < needed) {
      throw new Error(`${benchDir}: ${fmtMB(fsInfo.bavail * fsInfo.bsize)} free; the benchmark needs about ${fmtMB(needed)} (the objects, then the ZIP for unzip -t)`);
    }
    agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    const files = opts.sizes.map((size, i) =>
      i === 0 ? { size, name: 'big-video.mp4', type: 'video/mp4' } : { size, name: `photo-${String(i).padStart(3, '0')}.jpg`, type: 'image/jpeg' },
    );
    console.log(`bench:zip: ${fmtGiB(opts.total)} (${opts.total} bytes) in ${files.length} files, the largest ${fmtGiB(opts.sizes[0])}; local store, loopback`);
    console.log(`data dir: ${benchDir}`);
    console.log(`node ${process.version}, ${process.platform}/${process.arch}; MB = 10^6 bytes\n`);

    const dataDir = path.join(benchDir, 'server');
    const port = await freePort();
    const env = {
      DAM_MAX_FILE_SIZE: String(Math.max(5 * GiB, opts.sizes[0])),
      DAM_USER_RATE_LIMIT: '100000000',
      // No thumbnails of random bytes while we measure.
      DAM_JOB_CONCURRENCY: '0',
    };
    const server = await startServer({ entry, cwd: root, dataDir, port, env }, children);
    const api = makeApi(server.base);
    let result;
    try {
      const reg = await api.call('POST', '/auth/register', { json: { email: 'bench@example.com', password: 'bench-password-123', name: 'Bench' }, expect: [201] });
      api.setToken(reg.json.token);
      const workspaceId = reg.json.workspaces[0].id;
      const many = opts.entries > 0 ? await manyEntries({ api, base: server.base, dataDir, workspaceId, n: opts.entries, yauzl, benchDir }) : undefined;
      if (opts.manyOnly) {
        printMany(many);
        return 0;
      }

      process.stdout.write('uploading the selection ... ');
      const pool = makePool();
      const t0 = now();
      const ids = [];
      for (const f of files) ids.push(await uploadFile(api, pool, workspaceId, f));
      console.log(`${fmtS(now() - t0)}`);
      const keys = ids.map((id) => `${workspaceId}/digital_assets/${id}`);
      const objects = new LocalObjects(path.join(dataDir, 'storage', 'objects'), path.join(dataDir, 'storage', 'tmp'));
      const zipUrl = `${server.base}/zip/download?workspaceId=${workspaceId}&asset_ids=${ids.join(',')}`;

      const prepare = opts.cold ? dropCaches : () => undefined;
      if (opts.cold) {
        try {
          dropCaches();
        } catch (err) {
          throw new Error(`--cold needs root on Linux to drop the page cache: ${err.message}`);
        }
      } else {
        // Warm the page cache the same way for all: one untimed read of everything.
        process.stdout.write('warming the page cache ... ');
        await rawRead(objects, keys);
        console.log('done');
      }

      prepare();
      process.stdout.write('raw read (before) ... ');
      const rawBefore = await rawRead(objects, keys);
      if (rawBefore.bytes !== opts.total) throw new Error(`raw read got ${rawBefore.bytes} bytes, expected ${opts.total}`);
      console.log(fmtRate(rawBefore.bytes, rawBefore.ms));

      prepare();
      process.stdout.write('plain downloads, one GET /storage/download per file ... ');
      let plain = { bytes: 0, ms: 0 };
      for (const key of keys) {
        const one = await timedGet(`${server.base}/storage/download?key=${encodeURIComponent(key)}&workspaceId=${workspaceId}`, api.authHeaders());
        plain = { bytes: plain.bytes + one.bytes, ms: plain.ms + one.ms };
      }
      if (plain.bytes !== opts.total) throw new Error(`plain downloads got ${plain.bytes} bytes, expected ${opts.total}`);
      console.log(fmtRate(plain.bytes, plain.ms));

      const pid = server.child.pid;
      await sleep(300);
      prepare();
      const baseline = procMemory(pid);
      const hwmReset = resetPeak(pid);
      let sampledPeak = baseline?.rss ?? 0;
      let samples = 0;
      sampler = setInterval(() => {
        const m = procMemory(pid);
        if (!m) return;
        samples++;
        sampledPeak = Math.max(sampledPeak, m.rss);
      }, RSS_POLL_MS);
      sampler.unref();

      process.stdout.write(`GET /zip/download (${hasCurl ? 'curl' : 'node:http'}) ... `);
      const zipped = await timedGet(zipUrl, api.authHeaders());
      const zipMs = zipped.ms;
      clearInterval(sampler);
      sampler = undefined;
      const end = procMemory(pid);
      console.log(`${fmtRate(opts.total, zipMs)} (${fmtMB(zipped.bytes)} of ZIP)`);

      prepare();
      process.stdout.write('raw read (after) ... ');
      const rawAfter = await rawRead(objects, keys);
      console.log(fmtRate(rawAfter.bytes, rawAfter.ms));

      process.stdout.write('downloading again to a file for the independent checks ... ');
      const zipFile = path.join(benchDir, 'selection.zip');
      const saved = await download(zipUrl, api.authHeaders(), zipFile);
      if (saved.bytes !== zipped.bytes) throw new Error(`the second download has ${saved.bytes} bytes, the first ${zipped.bytes}`);
      console.log('done');
      process.stdout.write('yauzl: entries, names, sizes, ZIP64 ... ');
      const expected = files.map((f) => ({ name: f.name, size: f.size }));
      await checkWithYauzl(yauzl, zipFile, expected);
      console.log('ok');
      process.stdout.write('unzip -t (CRC-32 of every entry) ... ');
      const unzip = await unzipTest(zipFile);
      console.log(unzip ?? 'unzip is not installed (apt-get install unzip): skipped');
      if (unzip !== undefined && !/No errors detected/.test(unzip)) throw new Error(`unzip -t: ${unzip}`);

      const peakRss = Math.max(sampledPeak, hwmReset ? (end?.hwm ?? 0) : 0);
      result = { rawBefore, rawAfter, plain, zipMs, zipBytes: zipped.bytes, baseline: baseline?.rss, peakRss, samples, hwmReset, unzip, many };
    } catch (err) {
      const logs = server.logs();
      if (logs) err.message += `\n--- server output ---\n${logs}`;
      throw err;
    } finally {
      await stopChild(server.child, children);
    }

    const rawMbps = (mbps(result.rawBefore.bytes, result.rawBefore.ms) + mbps(result.rawAfter.bytes, result.rawAfter.ms)) / 2;
    const plainMbps = mbps(result.plain.bytes, result.plain.ms);
    const zipMbps = mbps(opts.total, result.zipMs);
    const ratio = zipMbps / rawMbps;
    const row = (label, time, rate) => console.log(`  ${label.padEnd(56)}${time.padStart(9)}${rate.padStart(14)}`);
    const cache = opts.cold ? 'page cache dropped before each pass' : 'objects in the page cache';
    console.log(`\nResults for ${opts.total} bytes in ${files.length} files (largest ${opts.sizes[0]} bytes), ${cache}:\n`);
    row('', 'time', 'speed');
    row('GET /zip/download on loopback (file bytes / time)', fmtS(result.zipMs), fmtRate(opts.total, result.zipMs));
    row('raw read of the same objects from the store, before', fmtS(result.rawBefore.ms), fmtRate(result.rawBefore.bytes, result.rawBefore.ms));
    row('raw read of the same objects from the store, after', fmtS(result.rawAfter.ms), fmtRate(result.rawAfter.bytes, result.rawAfter.ms));
    row('raw read (mean of the two)', '', `${rawMbps.toFixed(1)} MB/s`);
    row('the same files by GET /storage/download, one by one', fmtS(result.plain.ms), `${plainMbps.toFixed(1)} MB/s`);
    console.log('');
    console.log(`  ratio ZIP / raw read            ${ratio.toFixed(2)}   target >= ${RATIO_TARGET.toFixed(2)}   ${ratio >= RATIO_TARGET ? 'PASS' : 'BELOW'}`);
    console.log(`  ratio ZIP / plain downloads     ${(zipMbps / plainMbps).toFixed(2)}   (the cost of the ZIP itself: CRC-32, headers, one stream)`);
    if (result.baseline) {
      const growth = result.peakRss - result.baseline;
      console.log(
        `  server RSS                      baseline ${fmtMB(result.baseline)}, peak ${fmtMB(result.peakRss)}, growth ${fmtMB(growth)}` +
          `   target < ${fmtMB(RSS_TARGET)}   ${growth < RSS_TARGET ? 'PASS' : 'BELOW'}`,
      );
      console.log(`                                  (${result.hwmReset ? 'VmHWM reset before the download; ' : ''}${result.samples} VmRSS samples every ${RSS_POLL_MS} ms)`);
    } else {
      console.log('  server RSS                      not measured (needs Linux /proc)');
    }
    console.log(`  ZIP size                        ${result.zipBytes} bytes (${result.zipBytes - opts.total} bytes of headers, descriptors and directory)`);
    const zip64 = opts.sizes[0] > 0xfffffffe ? ', ZIP64 on the entry over 4 GiB' : '';
    console.log(`  verified                        yauzl: ${files.length} stored entries, names and sizes${zip64}; unzip -t: ${result.unzip ?? 'skipped'}`);
    printMany(result.many);
    return 0;
  } finally {
    await cleanup();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`\nbench:zip: FAILED: ${err?.stack ?? err}`);
    process.exit(1);
  },
);
