#!/usr/bin/env node
// `npm run bench:upload [-- --size <MiB>] [--part <MiB>] [--concurrency <n>] [--dir <path>] [--store local|s3]`
//
// Uploads one file (default 1 GiB in 8 MiB parts) through the whole presigned
// flow on loopback: start-upload, N parallel get-upload-url + PUT (default 4),
// complete-upload, and samples the server's resident memory.
//
// --store local (default): against the local store. In the same run, on the same
// filesystem, it measures the raw write speed of the same bytes (fs stream + fsync)
// before and after the flow, and the cost of one part PUT by stage (receive, hash,
// write, fsync, request overhead) beside it, in µs per MiB.
// Targets: flow and part phase MB/s >= 0.90 x raw write MB/s; server RSS growth < 100 MB.
//
// --store s3: against s3rver (a child process), the part URLs being S3's presigned
// ones. In the same run, before and after the flow, the same bytes go to the same
// s3rver through the AWS SDK directly (CreateMultipartUpload, UploadPart, Complete).
// Target: flow MB/s >= 0.90 x the SDK's.
//
// It is a measurement, not a test: it exits 0 below target, non-zero only
// when the flow itself fails or its result does not verify.
// DAM_BENCH_ENTRY=<other>/dist/server.js measures another build (before/after a change);
// DAM_BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" profiles the server.
//
// MB here is 10^6 bytes, for speeds and for memory; MiB is 2^20 bytes, for sizes and per-MiB costs.
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
import { freePort, procCpu, procMemory, resetPeak, startServer, stopChild, tail } from './bench-process.mjs';

const MiB = 1024 * 1024;
const MB = 1e6;
const FLOW_TARGET = 0.9;
const RSS_TARGET = 100 * MB;
const RSS_POLL_MS = 50;
const POOL_BUFFERS = 4;
/** Each stage of one part PUT is measured this many times; the median counts. */
const STAGE_ROUNDS = 5;
/**
 * Before each raw write: memory freed just before (by a previous run, or a process that ended) is handed to the next
 * writer's page cache at once, while fresh pages come from the VM's host, several times slower (1.2 GB/s against
 * 250 MB/s on the reference machine). After this pause the freed pages are back with the host.
 */
const SETTLE_MS = 10_000;
/** The chunks an HTTP body arrives in, as the stage "write" feeds the file. */
const SOCKET_CHUNK = 64 * 1024;
const S3_BUCKET = 'bench';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const serverEntry = path.resolve(process.env.DAM_BENCH_ENTRY ?? path.join(root, 'dist', 'server.js'));

// ---------------------------------------------------------------- arguments

const usage = `usage: npm run bench:upload [-- options]
  --size <MiB>         file size (default 1024)
  --part <MiB>         part size (default 8)
  --concurrency <n>    parallel part PUTs (default 4)
  --store <kind>       local (default): the local store, beside a raw write of the same bytes;
                       s3: s3rver, beside the same upload through the AWS SDK directly
  --dir <path>         parent of the temporary data dir (default ./data, the server's default data dir)`;

function parseOptions() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        size: { type: 'string', default: '1024' },
        part: { type: 'string', default: '8' },
        concurrency: { type: 'string', default: '4' },
        store: { type: 'string', default: 'local' },
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
  if (values.store !== 'local' && values.store !== 's3') fail(`--store must be local or s3, got "${values.store}"`, 2);
  const partCount = Math.ceil(size / part);
  if (partCount > 10_000) fail(`${partCount} parts: at most 10000 are allowed; use a larger --part`, 2);
  if (values.store === 's3' && part < 5 * MiB && partCount > 1) fail('--store s3: S3 takes parts of 5 MiB at least (all but the last)', 2);
  return { size, part, partCount, concurrency, store: values.store, parentDir: path.resolve(values.dir) };
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
const fmtUs = (us) => Math.round(us).toLocaleString('en-US');
const mib = (b) => `${+(b / MiB).toFixed(2)} MiB`;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function fsyncFile(file) {
  const handle = await open(file, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** `buffer` in the pieces a socket delivers it in. */
function* socketChunks(buffer) {
  for (let at = 0; at < buffer.length; at += SOCKET_CHUNK) yield buffer.subarray(at, at + SOCKET_CHUNK);
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
  return now() - t0;
}

/** md5 in one thread: what the server's hashing thread does for every part. */
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

/** A server in another process that reads every PUT and discards it. */
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

/** Starts a child process that prints its port on its first line of output. */
async function portChild(args, children, what) {
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const err = tail(child.stderr);
  const port = await new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8');
    child.stdout.once('data', (d) => resolve(Number(d.trim())));
    child.once('exit', (code) => reject(new Error(`${what} exited (${code}): ${err.text}`)));
  });
  return { child, port };
}

/** The same PUTs, same concurrency, same client, to the discard server: the HTTP side alone. */
async function clientCeiling(parts, opts, sinkPort) {
  let next = 1;
  const t0 = now();
  const worker = async () => {
    while (next <= opts.partCount) {
      const n = next++;
      const res = await request('PUT', `http://127.0.0.1:${sinkPort}/part/${n}`, {
        headers: { 'content-type': 'application/octet-stream' },
        body: parts.buffer(n),
      });
      if (res.status !== 200) throw new Error(`discard server answered ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  return now() - t0;
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

async function registerBench(api) {
  const reg = await api.call('POST', '/auth/register', {
    json: { email: 'bench@example.com', password: 'bench-password-123', name: 'Bench' },
    expect: [201],
  });
  api.setToken(reg.json.token);
  return reg.json.workspaces[0].id;
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

/**
 * The flow with the server's memory sampled from a settled baseline, and its CPU time (main thread, other threads)
 * counted over the flow.
 */
async function measuredFlow(api, parts, opts, workspaceId, pid) {
  const sampler = new RssSampler(pid);
  try {
    await sleep(300); // let start-up garbage settle
    const baseline = procMemory(pid);
    const hwmReset = resetPeak(pid);
    sampler.resetPeak();
    const cpu0 = procCpu(pid);
    let partsPeak = 0;
    const flow = await uploadFlow(api, parts, opts, workspaceId, () => {
      sampler.sample();
      partsPeak = sampler.peak;
    });
    const end = sampler.sample();
    const cpu1 = procCpu(pid);
    const rss = {
      available: Boolean(baseline && end),
      baseline: baseline?.rss ?? 0,
      sampledPeak: sampler.peak,
      samples: sampler.samples,
      partsPeak,
      hwm: hwmReset ? (end?.hwm ?? 0) : undefined,
    };
    rss.peak = Math.max(rss.sampledPeak, rss.hwm ?? 0);
    const cpu = cpu0 && cpu1 ? { main: cpu1.main - cpu0.main, others: cpu1.others - cpu0.others } : undefined;
    return { flow, rss, cpu };
  } finally {
    sampler.stop();
  }
}

// ---------------------------------------------------------------- one part PUT, stage by stage

/**
 * What one part PUT costs, stage by stage, each measured alone (STAGE_ROUNDS times, the median), in ms:
 * receive (the PUT to the discard server), hash (MD5), write (the part to a new file, in socket-sized chunks
 * through a 1 MiB stream, as the server writes it), fsync, request overhead (an empty part PUT on the server:
 * hooks, signature, database, the part file's create, fsync, rename and record), and one whole part PUT on the
 * server, alone, for comparison with their sum.
 */
async function stageCosts(api, parts, workspaceId, sinkPort, stageDir) {
  const body = parts.buffer(1);
  const rounds = async (fn) => {
    const ms = [];
    for (let r = 0; r < STAGE_ROUNDS; r++) ms.push(await fn(r));
    return median(ms);
  };
  const timed = async (fn) => {
    const t0 = now();
    await fn();
    return now() - t0;
  };
  const put = async (url, bytes) => {
    const res = await request('PUT', url, { headers: { 'content-type': 'application/octet-stream' }, body: bytes });
    if (res.status !== 200) throw new Error(`PUT ${new URL(url).pathname} answered ${res.status}: ${res.body.toString('utf8').slice(0, 300)}`);
  };
  const receive = await rounds(() => timed(() => put(`http://127.0.0.1:${sinkPort}/stage`, body)));
  const hash = await rounds(() => timed(() => createHash('md5').update(body).digest()));
  await mkdir(stageDir, { recursive: true });
  const writes = [];
  const fsyncs = [];
  for (let r = 0; r < STAGE_ROUNDS; r++) {
    const file = path.join(stageDir, `part-${r}`);
    writes.push(await timed(() => pipeline(Readable.from(socketChunks(body)), createWriteStream(file, { highWaterMark: MiB }))));
    fsyncs.push(await timed(() => fsyncFile(file)));
  }

  const started = (await api.call('GET', '/storage/start-upload', { query: { workspaceId, fileType: 'application/octet-stream', fileName: 'stages.bin' } })).json;
  const ref = { UploadId: started.uploadId, assetId: started.assetId, workspaceId };
  const urlOf = async (n) => (await api.call('GET', '/storage/get-upload-url', { query: { PartNumber: n, ...ref } })).json.url;
  const emptyUrl = await urlOf(1);
  const overhead = await rounds(() => timed(() => put(emptyUrl, Buffer.alloc(0))));
  // A part number each: no part replaced, no file removed (see SETTLE_MS); all go with the data dir at the end.
  const whole = await rounds(async (r) => {
    const url = await urlOf(2 + r);
    return timed(() => put(url, body));
  });
  return { bytes: body.length, receive, hash, write: median(writes), fsync: median(fsyncs), overhead, whole };
}

// ---------------------------------------------------------------- the local store

async function localMain(opts, ctx) {
  const { benchDir, children } = ctx;
  const parts = makeParts(opts);
  for (let n = 1; n <= Math.min(opts.partCount, POOL_BUFFERS); n++) parts.etag(n);
  parts.etag(opts.partCount);

  // Raw disk baselines, same bytes, same directory. Every file stays until the end, and each raw write follows a
  // pause (SETTLE_MS): pages freed just before would make whichever writer comes next look faster than the disk.
  process.stdout.write(`raw write (before the flow, after ${SETTLE_MS / 1000} s of settling) ... `);
  await sleep(SETTLE_MS);
  const rawBeforeMs = await rawWrite(path.join(benchDir, 'raw-before.bin'), parts);
  console.log(fmtRate(opts.size, rawBeforeMs));
  const sink = await portChild(['-e', SINK_SOURCE], children, 'the discard server');
  process.stdout.write('client ceiling (same PUTs to a discard server) ... ');
  const ceilingMs = await clientCeiling(parts, opts, sink.port);
  console.log(fmtRate(opts.size, ceilingMs));
  const md5Rate = md5Speed(parts);

  // The server, its account and workspace.
  const port = await freePort();
  const env = {
    DAM_MAX_FILE_SIZE: String(Math.max(5 * 1024 ** 3, opts.size)),
    DAM_MIN_PART_SIZE: String(Math.min(5 * MiB, opts.part)),
    // One user asks for every part URL: the per-user rate limit must not shape the measurement.
    DAM_USER_RATE_LIMIT: '100000000',
  };
  const server = await startServer({ entry: serverEntry, cwd: root, dataDir: path.join(benchDir, 'server'), port, env }, children);
  const api = makeApi(server.base);
  let measured;
  let checkedRanges;
  let stages;
  try {
    const workspaceId = await registerBench(api);
    console.log(`server: pid ${server.child.pid}, ${server.base}`);
    process.stdout.write('presigned flow ... ');
    measured = await measuredFlow(api, parts, opts, workspaceId, server.child.pid);
    console.log(fmtRate(opts.size, measured.flow.totalMs));
    checkedRanges = await verify(api, parts, opts, workspaceId, measured.flow);
    process.stdout.write(`one part PUT by stage (each alone, median of ${STAGE_ROUNDS}) ... `);
    stages = await stageCosts(api, parts, workspaceId, sink.port, path.join(benchDir, 'stages'));
    console.log('done');
  } catch (err) {
    const logs = server.logs();
    if (logs) err.message += `\n--- server output ---\n${logs}`;
    throw err;
  } finally {
    await stopChild(server.child, children);
    await stopChild(sink.child, children);
  }

  process.stdout.write(`raw write (after the flow, after ${SETTLE_MS / 1000} s of settling) ... `);
  await sleep(SETTLE_MS);
  const rawAfterMs = await rawWrite(path.join(benchDir, 'raw-after.bin'), parts);
  console.log(fmtRate(opts.size, rawAfterMs));

  // Report.
  const { flow, rss, cpu } = measured;
  const rawMbps = (mbps(opts.size, rawBeforeMs) + mbps(opts.size, rawAfterMs)) / 2;
  const ratio = mbps(opts.size, flow.totalMs) / rawMbps;
  const partsRatio = mbps(opts.size, flow.partsMs) / rawMbps;
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
  row('md5 in one thread (the server hashes parts)', '', `${md5Rate.toFixed(1)} MB/s`);
  if (Math.max(rawBeforeMs, rawAfterMs) > 1.5 * Math.min(rawBeforeMs, rawAfterMs)) {
    console.log('  (the two raw writes differ by more than 1.5x: the page cache was fast for one of them; repeat the run)');
  }

  const perMiB = (ms) => (ms * 1000) / (stages.bytes / MiB);
  const rawUs = ((rawBeforeMs + rawAfterMs) / 2) * 1000 / (opts.size / MiB);
  const sum = stages.receive + stages.hash + stages.write + stages.fsync + stages.overhead;
  const stage = (label, us, note = '') => console.log(`  ${label.padEnd(52)}${fmtUs(us).padStart(8)}  ${note}`);
  console.log(`\nOne part PUT of ${mib(stages.bytes)}, by stage (each alone, median of ${STAGE_ROUNDS}), in µs per MiB:\n`);
  stage('receive: the PUT to the discard server', perMiB(stages.receive), '(client, loopback and an HTTP parser)');
  stage('hash: MD5 of the part', perMiB(stages.hash), '(on the server\'s hashing thread)');
  stage('write: the part to a new file (1 MiB stream)', perMiB(stages.write), '(page cache)');
  stage('fsync of that file', perMiB(stages.fsync));
  stage('request overhead: an empty part PUT', perMiB(stages.overhead), `(${stages.overhead.toFixed(1)} ms a request: hooks, signature, DB, file create/fsync/rename)`);
  stage('sum of the stages', perMiB(sum), '(what the part costs if nothing overlaps)');
  stage('one part PUT on the server, alone', perMiB(stages.whole), '(hashing runs beside receiving and writing)');
  stage('raw write + fsync of the same bytes (this run)', rawUs);
  if (cpu) {
    const flowMiB = opts.size / MiB;
    console.log(
      `\n  server CPU during the flow, µs per MiB: event loop ${fmtUs((cpu.main * 1000) / flowMiB)}, ` +
        `other threads ${fmtUs((cpu.others * 1000) / flowMiB)} (MD5 thread, file writes and fsyncs of libuv's pool, GC)`,
    );
  }

  console.log('');
  const verdict = (r) => `${r.toFixed(2)}   target >= ${FLOW_TARGET.toFixed(2)}   ${r >= FLOW_TARGET ? 'PASS' : 'BELOW'}`;
  console.log(`  ratio flow / raw disk          ${verdict(ratio)}`);
  console.log(`  ratio part phase / raw disk    ${verdict(partsRatio)}`);
  printRss(rss);
  console.log(`\n  verified: asset file_size = ${opts.size}, ETags = MD5 of the bytes sent, ${checkedRanges} ranged downloads match`);
  console.log(
    '\n  What is measured: "raw" writes the same bytes once, sequentially, 8 MiB at a time, then fsyncs.' +
      '\n  The flow streams each part to disk while a thread hashes it, and fsyncs it before answering its ETag;' +
      '\n  complete-upload then publishes the object by hard-linking the parts under a manifest (no copy).',
  );
}

function printRss(rss) {
  if (!rss.available) {
    console.log('  server RSS                     not measured (needs Linux /proc)');
    return;
  }
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
}

// ---------------------------------------------------------------- s3rver

/** s3rver 3.7.1 in a child process, on the directory given, with the bucket configured. */
const S3RVER_SOURCE = `
const S3rver = require('s3rver');
const server = new S3rver({ address: '127.0.0.1', port: 0, directory: process.argv[1], silent: true, configureBuckets: [{ name: '${S3_BUCKET}' }] });
server.run().then(({ port }) => console.log(port));
process.on('SIGTERM', () => server.close().finally(() => process.exit(0)));
`;

/** The same upload through the AWS SDK: CreateMultipartUpload, UploadPart (same concurrency), CompleteMultipartUpload. */
async function sdkUpload(client, sdk, parts, opts, key) {
  const t0 = now();
  const { UploadId } = await client.send(new sdk.CreateMultipartUploadCommand({ Bucket: S3_BUCKET, Key: key, ContentType: 'application/octet-stream' }));
  const etags = new Array(opts.partCount);
  let next = 1;
  const worker = async () => {
    while (next <= opts.partCount) {
      const n = next++;
      const res = await client.send(new sdk.UploadPartCommand({ Bucket: S3_BUCKET, Key: key, UploadId, PartNumber: n, Body: parts.buffer(n) }));
      if (res.ETag?.replace(/"/g, '') !== parts.etag(n)) throw new Error(`SDK part ${n}: ETag ${res.ETag} is not the MD5 of the bytes sent`);
      etags[n - 1] = res.ETag;
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  const t1 = now();
  await client.send(
    new sdk.CompleteMultipartUploadCommand({
      Bucket: S3_BUCKET,
      Key: key,
      UploadId,
      MultipartUpload: { Parts: etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })) },
    }),
  );
  const head = await client.send(new sdk.HeadObjectCommand({ Bucket: S3_BUCKET, Key: key }));
  if (head.ContentLength !== opts.size) throw new Error(`SDK upload: the object holds ${head.ContentLength} bytes, expected ${opts.size}`);
  return { totalMs: now() - t0, partsMs: t1 - t0 };
}

async function s3Main(opts, ctx) {
  const { benchDir, children } = ctx;
  const parts = makeParts(opts);
  for (let n = 1; n <= Math.min(opts.partCount, POOL_BUFFERS); n++) parts.etag(n);
  parts.etag(opts.partCount);
  const s3Dir = path.join(benchDir, 's3rver');
  await mkdir(s3Dir, { recursive: true });
  const s3 = await portChild(['-e', S3RVER_SOURCE, s3Dir], children, 's3rver');
  const endpoint = `http://127.0.0.1:${s3.port}`;
  console.log(`s3rver: pid ${s3.child.pid}, ${endpoint}, bucket ${S3_BUCKET}`);
  const sdk = await import('@aws-sdk/client-s3');
  // The SDK's defaults but two: its keep-alive sockets as many as the flow's, and no CRC32 of every part body
  // (WHEN_REQUIRED), which the presigned flow does not compute either. It still signs each body (SHA-256 over http).
  const client = new sdk.S3Client({
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: { httpAgent: new http.Agent({ keepAlive: true, maxSockets: opts.concurrency + 2 }) },
  });
  try {
    process.stdout.write('AWS SDK UploadPart, direct (before the flow) ... ');
    const sdkBefore = await sdkUpload(client, sdk, parts, opts, 'direct/before.bin');
    console.log(fmtRate(opts.size, sdkBefore.totalMs));

    const port = await freePort();
    const env = {
      DAM_STORAGE: 's3',
      DAM_S3_BUCKET: S3_BUCKET,
      DAM_S3_ENDPOINT: endpoint,
      DAM_S3_REGION: 'us-east-1',
      DAM_S3_ACCESS_KEY_ID: 'S3RVER',
      DAM_S3_SECRET_ACCESS_KEY: 'S3RVER',
      DAM_S3_FORCE_PATH_STYLE: 'true',
      DAM_MAX_FILE_SIZE: String(Math.max(5 * 1024 ** 3, opts.size)),
      DAM_USER_RATE_LIMIT: '100000000',
    };
    const server = await startServer({ entry: serverEntry, cwd: root, dataDir: path.join(benchDir, 'server'), port, env }, children);
    const api = makeApi(server.base);
    let measured;
    let checkedRanges;
    try {
      const workspaceId = await registerBench(api);
      console.log(`server: pid ${server.child.pid}, ${server.base}`);
      process.stdout.write('presigned flow (PUTs to s3rver) ... ');
      measured = await measuredFlow(api, parts, opts, workspaceId, server.child.pid);
      console.log(fmtRate(opts.size, measured.flow.totalMs));
      checkedRanges = await verify(api, parts, opts, workspaceId, measured.flow);
    } catch (err) {
      const logs = server.logs();
      if (logs) err.message += `\n--- server output ---\n${logs}`;
      throw err;
    } finally {
      await stopChild(server.child, children);
    }

    process.stdout.write('AWS SDK UploadPart, direct (after the flow) ... ');
    const sdkAfter = await sdkUpload(client, sdk, parts, opts, 'direct/after.bin');
    console.log(fmtRate(opts.size, sdkAfter.totalMs));

    const { flow, rss } = measured;
    const sdkMbps = (mbps(opts.size, sdkBefore.totalMs) + mbps(opts.size, sdkAfter.totalMs)) / 2;
    const sdkPartsMbps = (mbps(opts.size, sdkBefore.partsMs) + mbps(opts.size, sdkAfter.partsMs)) / 2;
    const ratio = mbps(opts.size, flow.totalMs) / sdkMbps;
    const partsRatio = mbps(opts.size, flow.partsMs) / sdkPartsMbps;
    const row = (label, time, rate, note = '') => console.log(`  ${label.padEnd(48)}${time.padStart(9)}${rate.padStart(14)}  ${note}`);
    console.log(`\nResults for ${opts.size} bytes (${opts.partCount} x ${mib(opts.part)}, ${opts.concurrency} parallel), s3rver:\n`);
    row('', 'time', 'speed');
    row('presigned flow, start -> complete answer', fmtS(flow.totalMs), fmtRate(opts.size, flow.totalMs));
    row('  part phase: start + URLs + PUTs to s3rver', fmtS(flow.partsMs), fmtRate(opts.size, flow.partsMs), `(get-upload-url: ${fmtS(flow.signMs)} summed over calls)`);
    row('  complete phase: s3rver joins the parts', fmtS(flow.completeMs), fmtRate(opts.size, flow.completeMs));
    row('AWS SDK, create -> complete, before the flow', fmtS(sdkBefore.totalMs), fmtRate(opts.size, sdkBefore.totalMs));
    row('  of which UploadPart phase', fmtS(sdkBefore.partsMs), fmtRate(opts.size, sdkBefore.partsMs));
    row('AWS SDK, create -> complete, after the flow', fmtS(sdkAfter.totalMs), fmtRate(opts.size, sdkAfter.totalMs));
    row('  of which UploadPart phase', fmtS(sdkAfter.partsMs), fmtRate(opts.size, sdkAfter.partsMs));
    console.log('');
    const verdict = (r) => `${r.toFixed(2)}   target >= ${FLOW_TARGET.toFixed(2)}   ${r >= FLOW_TARGET ? 'PASS' : 'BELOW'}`;
    console.log(`  ratio flow / SDK direct               ${verdict(ratio)}`);
    console.log(`  ratio part phase / SDK UploadPart     ${verdict(partsRatio)}`);
    printRss(rss);
    console.log(`\n  verified: asset file_size = ${opts.size}, ETags = MD5 of the bytes sent, ${checkedRanges} ranged downloads match`);
  } finally {
    client.destroy();
  }
}

// ---------------------------------------------------------------- main

async function main() {
  const opts = parseOptions();
  if (!existsSync(serverEntry)) fail(`${path.relative(root, serverEntry)} is missing: run npm run build (npm run bench:upload does)`);

  const children = new Set();
  let benchDir;
  let createdParent = false;
  const cleanup = async () => {
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
    // local: two raw files and the parts; s3: two direct uploads and the flow's, each as parts and joined.
    const needed = (opts.store === 'local' ? 3 : 6) * opts.size + 256 * MiB;
    if (fsInfo.bavail * fsInfo.bsize < needed) {
      throw new Error(`${benchDir}: ${fmtMB(fsInfo.bavail * fsInfo.bsize)} free, the benchmark needs about ${fmtMB(needed)}`);
    }
    agent = new http.Agent({ keepAlive: true, maxSockets: opts.concurrency + 2 });
    console.log(
      `bench:upload: ${mib(opts.size)} (${opts.size} bytes) in ${opts.partCount} parts of ${mib(opts.part)}, ` +
        `${opts.concurrency} parallel PUTs, ${opts.store === 'local' ? 'local store' : 's3rver'}, loopback`,
    );
    console.log(`data dir: ${benchDir}`);
    console.log(`node ${process.version}, ${process.platform}/${process.arch}; MB = 10^6 bytes\n`);
    await (opts.store === 'local' ? localMain : s3Main)(opts, { benchDir, children });
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
