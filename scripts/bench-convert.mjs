#!/usr/bin/env node
// `npm run bench:convert [-- --images <n>] [--seconds <s>] [--width <px>] [--height <px>] [--size <px>]
//                        [--video-height <px>] [--concurrency <n>] [--rounds <n>] [--dir <path>]`
//
// Conversions (issue #15) through the API and the job queue, beside the same work done directly
// on the same files in the same run.
//
// (a) Images: `--images` generated JPEGs (default 100 of 4000 x 3000, about 3.5 MB each, like
//     photos) to WebP fitting `--size` px (default 2048). Direct: sharp called on the files
//     straight from disk (auto-orient, resize inside, keep metadata, WebP quality 80, to disk),
//     `concurrency` at a time. API: the JPEGs are uploaded first (not timed; their own thumbnail
//     jobs run before timing starts); then the clock runs from the first POST /convert/image to
//     the last conversion succeeded, with the app's worker running `concurrency` jobs at a time
//     (each: claim, stream the source from the store to a temporary file, convert, sniff and
//     store the result, create its asset and version, record it). Target: API >= 0.8 x direct.
// (b) Video: one generated `--seconds` long (default 60) 1920 x 1080 (`--video-height`) H.264 +
//     AAC clip to a 720p MP4. Direct: the very ffmpeg command the job runs (src/media/transcode.ts
//     ffmpegArgs). API: POST /convert/video {format: mp4, max_height: 720} until succeeded.
//     Target: API >= 0.9 x direct. Video previews are turned off (DAM_VIDEO_PREVIEWS=false) so the
//     upload does not queue a transcode of its own.
// Direct and API runs alternate for `rounds` rounds (default 1), so a change in the machine's load
// hits both alike. `--images 0` or `--seconds 0` skips a part. A measurement, not a test: it exits
// 0 below target, non-zero only when a conversion fails or a result is missing.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { Buffer } from 'node:buffer';
import console from 'node:console';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';

const IMAGE_TARGET = 0.8;
const VIDEO_TARGET = 0.9;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const run = promisify(execFile);

function fail(message, code = 1) {
  console.error(`bench:convert: ${message}`);
  process.exit(code);
}

function options() {
  const names = ['images', 'seconds', 'width', 'height', 'size', 'video-height', 'concurrency', 'rounds'];
  const { values } = parseArgs({
    options: {
      images: { type: 'string', default: '100' },
      seconds: { type: 'string', default: '60' },
      width: { type: 'string', default: '4000' },
      height: { type: 'string', default: '3000' },
      size: { type: 'string', default: '2048' },
      'video-height': { type: 'string', default: '1080' },
      concurrency: { type: 'string', default: String(availableParallelism()) },
      rounds: { type: 'string', default: '1' },
      dir: { type: 'string', default: path.join(root, 'data') },
    },
  });
  const ints = Object.fromEntries(names.map((k) => [k, Number(values[k])]));
  for (const [k, v] of Object.entries(ints)) {
    const min = k === 'images' || k === 'seconds' ? 0 : 1;
    if (!Number.isInteger(v) || v < min) fail(`--${k} must be an integer >= ${min}`, 2);
  }
  // One GET /convert/jobs page (200) holds every conversion of a round.
  if (ints.images > 200) fail('--images must be at most 200', 2);
  return { ...ints, videoHeight: ints['video-height'], dir: path.resolve(values.dir) };
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

async function generateJpegs(dir, { images, width, height, concurrency }) {
  const grain = await sharp({ create: { width, height, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 12 } } })
    .png({ compressionLevel: 0 })
    .toBuffer();
  const files = Array.from({ length: images }, (_, i) => path.join(dir, `photo-${String(i).padStart(4, '0')}.jpg`));
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

async function generateVideo(file, seconds, height) {
  const width = Math.round((height * 16) / 9 / 2) * 2;
  await run('ffmpeg', [
    '-hide_banner', '-loglevel', 'error', '-y',
    '-f', 'lavfi', '-i', `testsrc2=duration=${seconds}:size=${width}x${height}:rate=30`,
    '-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`,
    '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', file,
  ]);
  return { width, height };
}

/** Wall-clock seconds of `work()`. */
async function measure(work) {
  const started = performance.now();
  await work();
  return { wall: (performance.now() - started) / 1000 };
}

function spawnTimed(file, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited ${code}: ${stderr.slice(0, 500)}`))));
  });
}

async function multipartBody(workspaceId, file, type) {
  const form = new FormData();
  form.append('workspaceId', String(workspaceId));
  form.append('file', new Blob([await readFile(file)], { type }), path.basename(file));
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return { payload: Buffer.from(await request.arrayBuffer()), headers: { 'content-type': request.headers.get('content-type') } };
}

async function main() {
  const opts = options();
  const { buildApp } = await import(path.join(root, 'dist', 'app.js'));
  const { loadConfig } = await import(path.join(root, 'dist', 'config.js'));
  const { ffmpegArgs } = await import(path.join(root, 'dist', 'media', 'transcode.js'));

  await mkdir(opts.dir, { recursive: true });
  const work = await mkdtemp(path.join(opts.dir, 'bench-convert-'));
  const env = {
    DAM_DATA_DIR: path.join(work, 'app'),
    DAM_JWT_SECRET: randomBytes(32).toString('base64url'),
    DAM_ALLOW_REGISTRATION: 'true',
    LOG_LEVEL: 'silent',
    DAM_MAX_FILE_SIZE: String(4 * 1024 ** 3),
    DAM_VIDEO_PREVIEWS: 'false',
    DAM_JOB_CONCURRENCY: String(opts.concurrency),
    DAM_JOB_POLL_INTERVAL: '100',
    DAM_USER_RATE_LIMIT: '1000000',
  };
  const app = await buildApp(loadConfig(env), { logger: false });
  const reg = await app.inject({ method: 'POST', url: '/auth/register', payload: { email: 'bench@example.test', password: 'bench password 1', name: 'Bench' } });
  if (reg.statusCode !== 201) fail(`register answered ${reg.statusCode} ${reg.body}`);
  const { token, workspaces } = reg.json();
  const ws = workspaces[0].id;
  const auth = { authorization: `Bearer ${token}` };

  async function upload(file, type) {
    const body = await multipartBody(ws, file, type);
    const res = await app.inject({ method: 'POST', url: '/api/upload-asset', headers: { ...auth, ...body.headers }, payload: body.payload });
    if (res.statusCode !== 201) fail(`upload answered ${res.statusCode} ${res.body}`);
    return res.json().data.id;
  }
  /** The conversions of the workspace (newest first), one request per poll. */
  async function states() {
    const res = await app.inject({ method: 'GET', url: `/convert/jobs?workspaceId=${ws}&limit=200`, headers: auth });
    if (res.statusCode !== 200) fail(`GET /convert/jobs answered ${res.statusCode} ${res.body}`);
    return new Map(res.json().data.items.map((c) => [c.id, c]));
  }
  /** Asks for every conversion, then waits until each succeeded (the worker runs in the background meanwhile). */
  async function throughApi(kind, bodies) {
    const ids = [];
    const timing = await measure(async () => {
      for (const body of bodies) {
        const res = await app.inject({ method: 'POST', url: `/convert/${kind}`, headers: auth, payload: body });
        if (res.statusCode !== 202) fail(`convert answered ${res.statusCode} ${res.body}`);
        ids.push(res.json().data.id);
      }
      for (;;) {
        const known = await states();
        const mine = ids.map((id) => known.get(id));
        if (mine.some((c) => !c)) fail('a conversion is missing from GET /convert/jobs');
        const failed = mine.find((c) => c.status === 'failed' || c.status === 'canceled');
        if (failed) fail(`conversion ${failed.id} ${failed.status}: ${failed.error}`);
        if (mine.every((c) => c.status === 'succeeded')) return;
        await sleep(50);
      }
    });
    // Thumbnails and metadata of the results: after the clock, before the next round.
    await app.jobs.drain();
    return { ...timing, ids };
  }

  const report = [];
  try {
    // ------------------------------------------------------------------ images
    if (opts.images > 0) {
      const dir = path.join(work, 'images');
      const outDir = path.join(work, 'direct');
      await mkdir(dir);
      await mkdir(outDir);
      console.log(`generating ${opts.images} JPEGs of ${opts.width} x ${opts.height} ...`);
      const files = await generateJpegs(dir, opts);
      const bytes = (await Promise.all(files.map((f) => stat(f).then((s) => s.size)))).reduce((a, b) => a + b, 0);
      const assetIds = [];
      for (const file of files) assetIds.push(await upload(file, 'image/jpeg'));
      await app.jobs.drain();
      const direct = () =>
        measure(() =>
          pool(files, opts.concurrency, (file, i) =>
            sharp(file, { limitInputPixels: 100_000_000 })
              .autoOrient()
              .resize({ width: opts.size, height: opts.size, fit: 'inside', withoutEnlargement: true })
              .keepMetadata()
              .webp({ quality: 80 })
              .toFile(path.join(outDir, `${i}.webp`)),
          ),
        );
      const runs = { direct: [], api: [] };
      for (let round = 1; round <= opts.rounds; round += 1) {
        const d = await direct();
        runs.direct.push(d);
        console.log(`round ${round}: images, sharp directly ${d.wall.toFixed(2)} s`);
        // Each round converts to another size, so no request is answered by an earlier conversion (deduplication).
        const a = await throughApi('image', assetIds.map((assetId) => ({ assetId, format: 'webp', width: opts.size, height: opts.size + round - 1 })));
        runs.api.push(a);
        console.log(`round ${round}: images, API + queue   ${a.wall.toFixed(2)} s`);
      }
      const total = (list) => list.reduce((sum, r) => sum + r.wall, 0);
      const n = files.length * opts.rounds;
      const rate = (list) => n / total(list);
      report.push({
        title: `(a) ${files.length} JPEGs of ${opts.width} x ${opts.height} (${(bytes / files.length / 1e6).toFixed(1)} MB each) to WebP within ${opts.size} px, concurrency ${opts.concurrency}`,
        unit: 'conversions/s',
        direct: rate(runs.direct),
        api: rate(runs.api),
        target: IMAGE_TARGET,
      });
    }

    // ------------------------------------------------------------------- video
    if (opts.seconds > 0) {
      const source = path.join(work, 'clip.mp4');
      console.log(`generating a ${opts.seconds} s ${opts.videoHeight}p H.264 + AAC clip ...`);
      await generateVideo(source, opts.seconds, opts.videoHeight);
      const assetId = await upload(source, 'video/mp4');
      await app.jobs.drain();
      const runs = { direct: [], api: [] };
      for (let round = 1; round <= opts.rounds; round += 1) {
        const out = path.join(work, `direct-${round}.mp4`);
        const args = ffmpegArgs(source, out, { format: 'mp4', size: { maxHeight: 720 }, bitrateKbps: null, audio: true }, { start: 0, duration: null });
        const d = await measure(() => spawnTimed('ffmpeg', args));
        runs.direct.push(d);
        console.log(`round ${round}: video, ffmpeg directly ${d.wall.toFixed(2)} s`);
        const a = await throughApi('video', [{ assetId, format: 'mp4', max_height: 720, ...(round > 1 ? { duration: opts.seconds + round } : {}) }]);
        runs.api.push(a);
        console.log(`round ${round}: video, API + queue     ${a.wall.toFixed(2)} s`);
      }
      const total = (list) => list.reduce((sum, r) => sum + r.wall, 0);
      const rate = (list) => (opts.seconds * opts.rounds) / total(list);
      report.push({
        title: `(b) one ${opts.seconds} s ${opts.videoHeight}p clip (H.264 + AAC) to 720p MP4 (H.264 veryfast CRF 23 + AAC, +faststart)`,
        unit: 'video seconds/s',
        direct: rate(runs.direct),
        api: rate(runs.api),
        target: VIDEO_TARGET,
      });
    }

    console.log('');
    console.log(`${availableParallelism()} cores; ${opts.rounds} round(s)`);
    for (const r of report) {
      const ratio = r.api / r.direct;
      console.log('');
      console.log(r.title);
      console.log(`| | ${r.unit} |`);
      console.log('|---|---:|');
      console.log(`| directly (the floor) | ${r.direct.toFixed(2)} |`);
      console.log(`| through the API and the job queue | ${r.api.toFixed(2)} |`);
      console.log(`| **ratio API / direct** | **${ratio.toFixed(2)}** (target >= ${r.target}) |`);
      if (ratio < r.target) console.log('below target');
    }
  } finally {
    await app.close();
    await rm(work, { recursive: true, force: true });
  }
}

main().catch((err) => fail(err?.stack ?? String(err)));
