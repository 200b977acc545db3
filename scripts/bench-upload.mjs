#!/usr/bin/env node
// `npm run bench:upload [-- --size <MiB>] [--part <MiB>] [--concurrency <n>] [--dir <path>]`
//
// Uploads one file (default 1 GiB in 8 MiB parts) through the whole presigned
// flow against the local store on loopback: start-upload, N parallel
// get-upload-url + PUT (default 4), complete-upload. In the same run, on the
// same filesystem, it measures the raw write speed of the same bytes (fs
// stream + fsync), and samples the server's resident memory.
//
// Target: flow MB/s >= 0.70 x raw write MB/s; server RSS growth < 100 MB.
// It is a measurement, not a test: it exits 0 below target, non-zero only
// when the flow itself fails or its result does not verify.
//
// MB here is 10^6 bytes, for speeds and for memory.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, mkdtemp, open, rm, rmdir, statfs } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, URL } from 'node:url';
import { parseArgs } from 'node:util';
// Node globals, imported so the file lints without a globals config.
import { Buffer } from 'node:buffer';
import console from 'node:console';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { clearInterval, setInterval } from 'node:timers';
import { freePort, procMemory, resetPeak, startServer, stopChild } from './bench-process.mjs';

const MiB = 1024 * 1024;
const MB = 1e6;
const FLOW_TARGET = 0.7;
const RSS_TARGET = 100 * MB;
const RSS_POLL_MS = 50;
const POOL_BUFFERS = 4;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const serverEntry = path.join(root, 'dist', 'server.js');

// ---------------------------------------------------------------- arguments

const usage = `usage: npm run bench:upload [-- options]
  --size <MiB>         file size (default 1024)
  --part <MiB>         part size (default 8)
  --concurrency <n>    parallel part PUTs (default 4)
  --dir <path>         parent of the temporary data dir (default ./data, the server's default data dir)`;

function parseOptions() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        size: { type: 'string', default: '1024' },
        part: { type: 'string', default: '8' },
        concurrency: { type: 'string', default: '4' },
        dir: { type: 'string', default: path.join(root, 'data') },
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
  const size = Math.round(Number(values.size) * MiB);
  const part = Math.round(Number(values.part) * MiB);
  const concurrency = Number(values.concurrency);
  if (!Number.isFinite(size) || size < 1) fail(`--size must be a positive number of MiB, got "${values.size}"`, 2);
  if (!Number.isFinite(part) || part < 1) fail(`--part must be a positive number of MiB, got "${values.part}"`, 2);
  if (!Number.isInteger(concurrency) || concurrency < 1) fail(`--concurrency must be a positive integer, got "${values.concurrency}"`, 2);
  const partCount = Math.ceil(size / part);
  if (partCount > 10_000) fail(`${partCount} parts: at most 10000 are allowed; use a larger --part`, 2);
  return { size, part, partCount, concurrency, parentDir: path.resolve(values.dir) };
}

function fail(message, code = 1) {
  console.error(`bench:upload: ${message}`);
  process.exit(code);
}

// ---------------------------------------------------------------- helpers

const now = () => performance.now();
const mbps = (bytes, ms) => bytes / MB / (ms / 1000);
const fmtMB = (bytes) => `${(bytes / MB).toFixed(1)} MB`;
const fmtS = (ms) => `${(ms / 1000).toFixed(2)} s`;
const fmtRate = (bytes, ms) => `${mbps(bytes, ms).toFixed(1)} MB/s`;

async function fsyncFile(file) {
  const handle = await open(file, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

// ---------------------------------------------------------------- HTTP client (node:http, keep-alive)

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

function makeApi(base) {
  let token;
  const call = async (method, route, { json, query, expect = [200], headers = {} } = {}) => {
    const url = new URL(route, base);
    for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, String(v));
    const h = { ...headers };
    if (token) h.authorization = `Bearer ${token}`;
    let body;
    if (json !== undefined) {
      body = Buffer.from(JSON.stringify(json));
      h['content-type'] = 'application/json';
    }
    const res = await request(method, url, { headers: h, body });
    if (!expect.includes(res.status)) {
      throw new Error(`${method} ${url.pathname} answered ${res.status}: ${res.body.toString('utf8').slice(0, 500)}`);
    }
    const type = res.headers['content-type'] ?? '';
    return { ...res, json: type.includes('json') ? JSON.parse(res.body.toString('utf8')) : undefined };
  };
  return {
    call,
    setToken: (t) => {
      token = t;
    },
  };
}

// ---------------------------------------------------------------- data

/**
 * A few random part-sized buffers, reused round-robin: part n is pool[(n-1) % pool.length],
 * cut short for a short last part. Adjacent parts differ, so misplaced bytes are detectable.
 */
function makeParts({ size, part, partCount }) {
  const pool = Array.from({ length: Math.min(POOL_BUFFERS, partCount) }, () => randomBytes(Math.min(part, size)));
  const length = (n) => (n < partCount ? part : size - part * (partCount - 1));
  const buffer = (n) => pool[(n - 1) % pool.length].subarray(0, length(n));
  const md5 = new Map();
  const etag = (n) => {
    const k = `${(n - 1) % pool.length}:${length(n)}`;
    if (!md5.has(k)) md5.set(k, createHash('md5').update(buffer(n)).digest('hex'));
    return md5.get(k);
  };
  /** Expected bytes of the joined object in [start, end). */
  const slice = (start, end) => {
    const out = [];
    for (let pos = start; pos < end; ) {
      const n = Math.floor(pos / part) + 1;
      const off = pos - (n - 1) * part;
      const take = Math.min(end - pos, length(n) - off);
      out.push(buffer(n).subarray(off, off + take));
      pos += take;
    }
    return Buffer.concat(out);
  };
  return { buffer, etag, slice, *all() {
    for (let n = 1; n <= partCount; n++) yield buffer(n);
  } };
}

// ---------------------------------------------------------------- baselines

/** Raw write: the same bytes, sequentially, through an fs write stream, then fsync (as the server does for each part). */
async function rawWrite(file, parts) {
  const t0 = now();
  await pipeline(Readable.from(parts.all()), createWriteStream(file));
  await fsyncFile(file);
  const ms = now() - t0;
  return ms;
}

/** md5 in one thread: the server hashes every part on its event-loop thread. */
function md5Speed(parts) {
  const buf = parts.buffer(1);
  let bytes = 0;
  const t0 = now();
  while (now() - t0 < 300) {
    createHash('md5').update(buf).digest();
    bytes += buf.length;
  }
  return mbps(bytes, now() - t0);
}

/** The HTTP side alone: the same PUTs, same concurrency, same client, to a server in another process that discards them. */
const SINK_SOURCE = `
const http = require('node:http');
const s = http.createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => { res.writeHead(200, { etag: '"sink"' }); res.end(); });
});
s.keepAliveTimeout = 60000;
s.listen(0, '127.0.0.1', () => console.log(s.address().port));
process.on('SIGTERM', () => process.exit(0));
`;

async function clientCeiling(parts, opts, children) {
  const sink = spawn(process.execPath, ['-e', SINK_SOURCE], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.add(sink);
  const port = await new Promise((resolve, reject) => {
    sink.stdout.setEncoding('utf8');
    sink.stdout.once('data', (d) => resolve(Number(d.trim())));
    sink.once('exit', (code) => reject(new Error(`discard server exited (${code})`)));
  });
  try {
    let next = 1;
    const t0 = now();
    const worker = async () => {
      while (next <= opts.partCount) {
        const n = next++;
        const res = await request('PUT', `http://127.0.0.1:${port}/part/${n}`, {
          headers: { 'content-type': 'application/octet-stream' },
          body: parts.buffer(n),
        });
        if (res.status !== 200) throw new Error(`discard server answered ${res.status}`);
      }
    };
    await Promise.all(Array.from({ length: opts.concurrency }, worker));
    return now() - t0;
  } finally {
    await stopChild(sink, children);
  }
}

// ---------------------------------------------------------------- server and its memory

class RssSampler {
  constructor(pid) {
    this.pid = pid;
    this.peak = 0;
    this.samples = 0;
    this.timer = setInterval(() => this.sample(), RSS_POLL_MS);
    this.timer.unref();
  }

  sample() {
    const m = procMemory(this.pid);
    if (!m) return undefined;
    this.samples++;
    this.peak = Math.max(this.peak, m.rss);
    return m;
  }

  resetPeak() {
    this.peak = 0;
    this.samples = 0;
    this.sample();
  }

  stop() {
    clearInterval(this.timer);
  }
}

// ---------------------------------------------------------------- the flow

async function uploadFlow(api, parts, opts, workspaceId, onPartsDone = () => undefined) {
  const t0 = now();
  const started = await api.call('GET', '/storage/start-upload', {
    query: { workspaceId, fileType: 'application/octet-stream', fileName: 'bench.bin' },
  });
  const { uploadId, assetId } = started.json;
  const ref = { UploadId: uploadId, assetId, workspaceId };
  const etags = new Array(opts.partCount);
  let next = 1;
  let signMs = 0;
  const worker = async () => {
    while (next <= opts.partCount) {
      const n = next++;
      const s0 = now();
      const { url } = (await api.call('GET', '/storage/get-upload-url', { query: { PartNumber: n, ...ref } })).json;
      signMs += now() - s0;
      const res = await request('PUT', url, { headers: { 'content-type': 'application/octet-stream' }, body: parts.buffer(n) });
      if (res.status !== 200) throw new Error(`PUT part ${n} answered ${res.status}: ${res.body.toString('utf8').slice(0, 500)}`);
      const etag = res.headers.etag;
      if (!etag || etag.replace(/"/g, '') !== parts.etag(n)) throw new Error(`part ${n}: ETag ${etag} is not the MD5 of the bytes sent (${parts.etag(n)})`);
      etags[n - 1] = etag;
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  const t1 = now();
  onPartsDone();
  const done = await api.call('POST', '/storage/complete-upload', {
    json: { uploadId, assetId, workspaceId, parts: etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })) },
  });
  const t2 = now();
  if (!done.json?.success) throw new Error(`complete-upload did not succeed: ${done.body.toString('utf8')}`);
  return { assetId, key: done.json.key, totalMs: t2 - t0, partsMs: t1 - t0, completeMs: t2 - t1, signMs };
}

/** The asset says the right size, and a few ranges (start, every part boundary sampled, end) hold the right bytes. */
async function verify(api, parts, opts, workspaceId, { assetId, key }) {
  const asset = (await api.call('GET', `/dam/assets/${assetId}`)).json;
  const fileSize = asset?.data?.file_size;
  if (fileSize !== opts.size) throw new Error(`asset ${assetId} has file_size ${fileSize}, expected ${opts.size}`);
  const span = Math.min(4096, opts.size);
  const starts = new Set([0, opts.size - span]);
  for (const n of [2, Math.ceil(opts.partCount / 2), opts.partCount]) {
    if (n >= 2 && n <= opts.partCount) starts.add(Math.max(0, (n - 1) * opts.part - span / 2));
  }
  for (const start of starts) {
    const end = Math.min(opts.size, start + span);
    const res = await api.call('GET', '/storage/download', { query: { key, workspaceId }, headers: { range: `bytes=${start}-${end - 1}` }, expect: [206] });
    if (!res.body.equals(parts.slice(start, end))) throw new Error(`downloaded bytes ${start}-${end - 1} differ from the bytes uploaded`);
  }
  return starts.size;
}

// ---------------------------------------------------------------- main

async function main() {
  const opts = parseOptions();
  if (!existsSync(serverEntry)) fail(`${path.relative(root, serverEntry)} is missing: run npm run build (npm run bench:upload does)`);

  const children = new Set();
  let benchDir;
  let createdParent = false;
  let sampler;
  const cleanup = async () => {
    sampler?.stop();
    await Promise.all([...children].map((c) => stopChild(c, children)));
    agent?.destroy();
    if (benchDir) await rm(benchDir, { recursive: true, force: true });
    if (createdParent) await rmdir(opts.parentDir).catch(() => undefined); // only if still empty
  };
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      console.error(`\nbench:upload: ${signal}, cleaning up`);
      cleanup().finally(() => process.exit(130));
    });
  }

  try {
    createdParent = !existsSync(opts.parentDir);
    await mkdir(opts.parentDir, { recursive: true });
    benchDir = await mkdtemp(path.join(opts.parentDir, 'bench-'));
    const fsInfo = await statfs(benchDir);
    const needed = 2 * opts.size + 256 * MiB;
    if (fsInfo.bavail * fsInfo.bsize < needed) {
      throw new Error(`${benchDir}: ${fmtMB(fsInfo.bavail * fsInfo.bsize)} free, the benchmark needs about ${fmtMB(needed)}`);
    }
    agent = new http.Agent({ keepAlive: true, maxSockets: opts.concurrency + 2 });
    const parts = makeParts(opts);
    for (let n = 1; n <= Math.min(opts.partCount, POOL_BUFFERS); n++) parts.etag(n);
    parts.etag(opts.partCount);

    const mib = (b) => `${+(b / MiB).toFixed(2)} MiB`;
    console.log(
      `bench:upload: ${mib(opts.size)} (${opts.size} bytes) in ${opts.partCount} parts of ${mib(opts.part)}, ` +
        `${opts.concurrency} parallel PUTs, local store, loopback`,
    );
    console.log(`data dir: ${benchDir}`);
    console.log(`node ${process.version}, ${process.platform}/${process.arch}; MB = 10^6 bytes\n`);

    // Raw disk baselines, same bytes, same directory. Files are removed (and their page cache with them) before the flow.
    const rawFile = path.join(benchDir, 'raw-write.bin');
    process.stdout.write('raw write (before the flow) ... ');
    const rawBeforeMs = await rawWrite(rawFile, parts);
    console.log(fmtRate(opts.size, rawBeforeMs));
    await rm(rawFile, { force: true });
    process.stdout.write('client ceiling (same PUTs to a discard server) ... ');
    const ceilingMs = await clientCeiling(parts, opts, children);
    console.log(fmtRate(opts.size, ceilingMs));
    const md5Rate = md5Speed(parts);

    // The server, its account and workspace.
    const dataDir = path.join(benchDir, 'server');
    const port = await freePort();
    const env = {
      DAM_MAX_FILE_SIZE: String(Math.max(5 * 1024 ** 3, opts.size)),
      DAM_MIN_PART_SIZE: String(Math.min(5 * MiB, opts.part)),
      // One user asks for every part URL: the per-user rate limit must not shape the measurement.
      DAM_USER_RATE_LIMIT: '100000000',
    };
    const server = await startServer({ entry: serverEntry, cwd: root, dataDir, port, env }, children);
    const api = makeApi(server.base);
    let flow;
    let rss;
    let checkedRanges;
    try {
      const reg = await api.call('POST', '/auth/register', {
        json: { email: 'bench@example.com', password: 'bench-password-123', name: 'Bench' },
        expect: [201],
      });
      api.setToken(reg.json.token);
      const workspaceId = reg.json.workspaces[0].id;

      const pid = server.child.pid;
      console.log(`server: pid ${pid}, ${server.base}`);
      sampler = new RssSampler(pid);
      await sleep(300); // let start-up garbage settle
      const baseline = procMemory(pid);
      const hwmReset = resetPeak(pid);
      sampler.resetPeak();

      process.stdout.write('presigned flow ... ');
      let partsPeak = 0;
      flow = await uploadFlow(api, parts, opts, workspaceId, () => {
        sampler.sample();
        partsPeak = sampler.peak;
      });
      const end = sampler.sample();
      sampler.stop();
      console.log(fmtRate(opts.size, flow.totalMs));
      rss = {
        available: Boolean(baseline && end),
        baseline: baseline?.rss ?? 0,
        sampledPeak: sampler.peak,
        samples: sampler.samples,
        partsPeak,
        hwm: hwmReset ? (end?.hwm ?? 0) : undefined,
      };
      rss.peak = Math.max(rss.sampledPeak, rss.hwm ?? 0);
      checkedRanges = await verify(api, parts, opts, workspaceId, flow);
    } catch (err) {
      const logs = server.logs();
      if (logs) err.message += `\n--- server output ---\n${logs}`;
      throw err;
    } finally {
      await stopChild(server.child, children);
    }

    process.stdout.write('raw write (after the flow) ... ');
    const rawAfterMs = await rawWrite(rawFile, parts);
    console.log(fmtRate(opts.size, rawAfterMs));
    await rm(rawFile, { force: true });

    // Report.
    const rawMbps = (mbps(opts.size, rawBeforeMs) + mbps(opts.size, rawAfterMs)) / 2;
    const flowMbps = mbps(opts.size, flow.totalMs);
    const ratio = flowMbps / rawMbps;
    const row = (label, time, rate, note = '') => console.log(`  ${label.padEnd(44)}${time.padStart(9)}${rate.padStart(14)}  ${note}`);
    console.log(`\nResults for ${opts.size} bytes (${opts.partCount} x ${mib(opts.part)}, ${opts.concurrency} parallel):\n`);
    row('', 'time', 'speed');
    row('presigned flow, start -> complete answer', fmtS(flow.totalMs), fmtRate(opts.size, flow.totalMs));
    row('  part phase: start + URLs + PUTs', fmtS(flow.partsMs), fmtRate(opts.size, flow.partsMs), `(get-upload-url: ${fmtS(flow.signMs)} summed over calls)`);
    row('  complete phase: publish + DB', fmtS(flow.completeMs), fmtRate(opts.size, flow.completeMs));
    row('raw write + fsync, before the flow', fmtS(rawBeforeMs), fmtRate(opts.size, rawBeforeMs));
    row('raw write + fsync, after the flow', fmtS(rawAfterMs), fmtRate(opts.size, rawAfterMs));
    row('raw disk speed (mean of the two)', '', `${rawMbps.toFixed(1)} MB/s`);
    row('client ceiling (PUTs to a discard server)', fmtS(ceilingMs), fmtRate(opts.size, ceilingMs));
    row('md5 in one thread (server hashes parts)', '', `${md5Rate.toFixed(1)} MB/s`);
    console.log('');
    console.log(`  ratio flow / raw disk          ${ratio.toFixed(2)}   target >= ${FLOW_TARGET.toFixed(2)}   ${ratio >= FLOW_TARGET ? 'PASS' : 'BELOW'}`);
    if (rss.available) {
      const growth = rss.peak - rss.baseline;
      console.log(
        `  server RSS                     baseline ${fmtMB(rss.baseline)}, peak ${fmtMB(rss.peak)}, growth ${fmtMB(growth)}` +
          `   target < ${fmtMB(RSS_TARGET)}   ${growth < RSS_TARGET ? 'PASS' : 'BELOW'}`,
      );
      console.log(
        `                                 (peak: ${rss.hwm !== undefined ? `VmHWM reset before the flow, ${fmtMB(rss.hwm)}; ` : ''}` +
          `${rss.samples} VmRSS samples every ${RSS_POLL_MS} ms, ${fmtMB(rss.sampledPeak)})`,
      );
      console.log(`                                 (sampled peak by the end of the part phase: ${fmtMB(rss.partsPeak)})`);
    } else {
      console.log('  server RSS                     not measured (needs Linux /proc)');
    }
    console.log(`\n  verified: asset file_size = ${opts.size}, ETags = MD5 of the bytes sent, ${checkedRanges} ranged downloads match`);
    console.log(
      '\n  What is measured: "raw" writes the same bytes once, sequentially, 8 MiB at a time, then fsyncs.' +
        '\n  The flow streams each part to disk while hashing it and fsyncs it before answering its ETag;' +
        '\n  complete-upload then publishes the object by hard-linking the parts under a manifest (no copy).',
    );
    return 0;
  } finally {
    await cleanup();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`\nbench:upload: FAILED: ${err?.stack ?? err}`);
    process.exit(1);
  },
);
