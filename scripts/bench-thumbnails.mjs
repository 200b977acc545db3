#!/usr/bin/env node
// `npm run bench:thumbnails [-- --count <n>] [--width <px>] [--height <px>] [--concurrency <n>] [--rounds <n>] [--dir <path>]`
//
// Thumbnails per second for generated JPEGs (default 200 of 4000 x 3000) through the durable
// job queue, beside sharp called directly on the same files in the same run (the floor).
//
// 1. Generates the JPEGs (smooth colour fields with grain, about 3.5 MB each, like photos).
// 2. Direct: the renditions function the job uses (src/media/renditions.ts: one decode with
//    shrink-on-load, a 1440 px preview and a 256 px thumbnail as WebP), on the files straight
//    from disk, `concurrency` at a time, outputs written to disk.
// 3. Queue: an app with no worker (DAM_JOB_CONCURRENCY=0) uploads every file through
//    POST /api/upload-asset (each upload queues a job in the same commit); it stops; a second
//    app on the same data starts its worker (`concurrency` jobs at a time) and is timed from
//    build to the last job done: claim, read from the store, render, store both renditions
//    (fsynced), record them, finish the job.
// Direct and queue runs alternate for `rounds` rounds (default 2), so a change in the load of
// the machine hits both alike; rates are over all rounds. CPU seconds (all threads of this
// process) per thumbnail are reported beside, as a measure of the queue's own cost that a
// busy machine does not skew.
//
// Target: queue thumbnails/s >= 0.8 x direct. A measurement, not a test: it exits 0 below
// target, non-zero only when a job fails or a rendition is missing.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Buffer } from 'node:buffer';
import console from 'node:console';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import sharp from 'sharp';

const TARGET = 0.8;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function fail(message, code = 1) {
  console.error(`bench:thumbnails: ${message}`);
  process.exit(code);
}

function options() {
  const { values } = parseArgs({
    options: {
      count: { type: 'string', default: '200' },
      width: { type: 'string', default: '4000' },
      height: { type: 'string', default: '3000' },
      concurrency: { type: 'string', default: String(availableParallelism()) },
      rounds: { type: 'string', default: '2' },
      dir: { type: 'string', default: path.join(root, 'data') },
    },
  });
  const ints = Object.fromEntries(['count', 'width', 'height', 'concurrency', 'rounds'].map((k) => [k, Number(values[k])]));
  for (const [k, v] of Object.entries(ints)) if (!Number.isInteger(v) || v < 1) fail(`--${k} must be a positive integer`, 2);
  return { ...ints, dir: path.resolve(values.dir) };
}

/** Runs `work(item)` over items, `limit` at a time. */
async function pool(items, limit, work) {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      await work(items[i], i);
    }
  });
  await Promise.all(lanes);
}

async function generate(dir, { count, width, height, concurrency }) {
  const grain = await sharp({ create: { width, height, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 12 } } })
    .png({ compressionLevel: 0 })
    .toBuffer();
  const files = Array.from({ length: count }, (_, i) => path.join(dir, `photo-${String(i).padStart(4, '0')}.jpg`));
  await pool(files, concurrency, async (file) => {
    const field = await sharp({
      create: { width: Math.ceil(width / 8), height: Math.ceil(height / 8), channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 60 } },
    })
      .png()
      .toBuffer();
    await sharp(field).resize(width, height, { kernel: 'cubic' }).composite([{ input: grain, blend: 'soft-light' }]).jpeg({ quality: 88 }).toFile(file);
  });
  return files;
}

/** Wall-clock and CPU seconds (all threads of this process: sharp's included) of `work()`. */
async function measure(work) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await work();
  const used = process.cpuUsage(cpu);
  return { wall: (performance.now() - started) / 1000, cpu: (used.user + used.system) / 1e6 };
}

function direct(files, concurrency, renderImage, outDir) {
  return measure(async () => {
    await pool(files, concurrency, async (file, i) => {
      for (const r of await renderImage(file)) await writeFile(path.join(outDir, `${i}-${r.kind}.webp`), r.data);
    });
  });
}

async function multipartBody(workspaceId, file) {
  const form = new FormData();
  form.append('workspaceId', String(workspaceId));
  form.append('file', new Blob([await readFile(file)], { type: 'image/jpeg' }), path.basename(file));
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return { payload: Buffer.from(await request.arrayBuffer()), headers: { 'content-type': request.headers.get('content-type') } };
}

async function main() {
  const opts = options();
  const { buildApp } = await import(path.join(root, 'dist', 'app.js'));
  const { loadConfig } = await import(path.join(root, 'dist', 'config.js'));
  const { renderImage } = await import(path.join(root, 'dist', 'media', 'renditions.js'));

  await mkdir(opts.dir, { recursive: true });
  const work = await mkdtemp(path.join(opts.dir, 'bench-thumbnails-'));
  const env = {
    DAM_DATA_DIR: path.join(work, 'app'),
    DAM_JWT_SECRET: randomBytes(32).toString('base64url'),
    DAM_ALLOW_REGISTRATION: 'true',
    LOG_LEVEL: 'silent',
    DAM_MAX_FILE_SIZE: String(1024 ** 3),
  };
  try {
    const images = path.join(work, 'images');
    const outDir = path.join(work, 'direct');
    await mkdir(images);
    await mkdir(outDir);
    console.log(`generating ${opts.count} JPEGs of ${opts.width} x ${opts.height} ...`);
    let t = performance.now();
    const files = await generate(images, opts);
    const bytes = (await Promise.all(files.map((f) => readFile(f).then((b) => b.length)))).reduce((a, b) => a + b, 0);
    console.log(`  ${((performance.now() - t) / 1000).toFixed(1)} s, ${(bytes / files.length / 1e6).toFixed(2)} MB each on average`);

    const uploader = await buildApp(loadConfig({ ...env, DAM_JOB_CONCURRENCY: '0' }), { logger: false });
    const reg = await uploader.inject({ method: 'POST', url: '/auth/register', payload: { email: 'bench@example.test', password: 'bench password 1', name: 'Bench' } });
    if (reg.statusCode !== 201) fail(`register answered ${reg.statusCode} ${reg.body}`);
    const { token, workspaces } = reg.json();
    const auth = { authorization: `Bearer ${token}` };
    await uploader.close();

    /** Every file uploaded while no worker runs (each upload queues its job), then a worker app timed from build to the last job done. */
    async function throughQueue() {
      const app = await buildApp(loadConfig({ ...env, DAM_JOB_CONCURRENCY: '0' }), { logger: false });
      for (const file of files) {
        const body = await multipartBody(workspaces[0].id, file);
        const res = await app.inject({ method: 'POST', url: '/api/upload-asset', headers: { ...auth, ...body.headers }, payload: body.payload });
        if (res.statusCode !== 201) fail(`upload answered ${res.statusCode} ${res.body}`);
      }
      await app.close();
      let worker;
      const timing = await measure(async () => {
        worker = await buildApp(loadConfig({ ...env, DAM_JOB_CONCURRENCY: String(opts.concurrency) }), { logger: false });
        await worker.jobs.drain();
      });
      const counts = (await worker.inject({ method: 'GET', url: '/admin/jobs?per_page=1', headers: auth })).json().data.counts;
      await worker.close();
      if (counts.failed !== 0 || counts.queued !== 0 || counts.running !== 0) fail(`jobs left or failed: ${JSON.stringify(counts)}`);
      return timing;
    }

    // Direct and queue runs alternate, so that a change in the machine's load hits both alike.
    const runs = { direct: [], queue: [] };
    for (let round = 1; round <= opts.rounds; round += 1) {
      const d = await direct(files, opts.concurrency, renderImage, outDir);
      runs.direct.push(d);
      console.log(`round ${round}: direct sharp ${d.wall.toFixed(2)} s (cpu ${d.cpu.toFixed(1)} s)`);
      const q = await throughQueue();
      runs.queue.push(q);
      console.log(`round ${round}: job queue    ${q.wall.toFixed(2)} s (cpu ${q.cpu.toFixed(1)} s)`);
    }
    const total = (list, key) => list.reduce((sum, r) => sum + r[key], 0);
    const n = files.length * opts.rounds;
    const rate = (list) => n / total(list, 'wall');
    const cpuPer = (list) => (total(list, 'cpu') / n) * 1000;
    const ratio = rate(runs.queue) / rate(runs.direct);
    console.log('');
    console.log(
      `${files.length} JPEGs of ${opts.width} x ${opts.height} (${(bytes / files.length / 1e6).toFixed(1)} MB each), ${opts.rounds} rounds, ` +
        `concurrency ${opts.concurrency} on ${availableParallelism()} cores; each: 256 px thumbnail + 1440 px preview (WebP)`,
    );
    console.log('| | thumbnails/s | CPU ms per thumbnail |');
    console.log('|---|---|---|');
    console.log(`| sharp called directly (the floor) | ${rate(runs.direct).toFixed(2)} | ${cpuPer(runs.direct).toFixed(0)} |`);
    console.log(`| through the job queue | ${rate(runs.queue).toFixed(2)} | ${cpuPer(runs.queue).toFixed(0)} |`);
    console.log(`| **ratio queue / direct** | **${ratio.toFixed(2)}** (target >= ${TARGET}) | ${(cpuPer(runs.direct) / cpuPer(runs.queue)).toFixed(2)} |`);
    if (ratio < TARGET) console.log('below target');
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

main().catch((err) => fail(err?.stack ?? String(err)));
