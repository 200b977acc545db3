#!/usr/bin/env node
// `npm run bench:cli [-- --small <n>] [--small-max <KiB>] [--large <n>] [--large-size <MiB>] [--concurrency <n>] [--dir <path>]`
//
// Imports a tree through the `dam` CLI (cli/) into the built server (dist/server.js, SQLite, local store) on
// loopback, and copies the same tree with `cp -r` on the same disk in the same run:
//   small: 2,000 files of 1-500 KiB (in directories of 100), large: 5 files of 200 MiB.
// Prints both times and the ratio of speeds, CLI / cp (targets: at least 0.5 small, 0.7 large).
// The CLI's time is everything a user waits for: listing, hashing, check-duplicates, folders, uploads, summary.
// It is a measurement, not a test: it exits 0 below target, non-zero only when an import fails.
import { spawn } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { mkdir, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
// Node globals, imported so the file lints without a globals config.
import console from 'node:console';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { freePort, startServer, stopChild } from './bench-process.mjs';

const KiB = 1024;
const MiB = 1024 * KiB;
const TARGETS = { small: 0.5, large: 0.7 };
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const serverEntry = path.join(root, 'dist', 'server.js');
const launcher = path.join(root, 'cli', 'bin', 'dam.mjs');

const usage = `usage: npm run bench:cli [-- options]
  --small <n>          small files (default 2000)
  --small-max <KiB>    small files are 1 KiB to this (default 500)
  --large <n>          large files (default 5)
  --large-size <MiB>   size of each large file (default 200)
  --concurrency <n>    files the CLI uploads at once (default 4)
  --dir <path>         parent of the temporary directories (default ./data)
  --rate-limit <n>     the server's DAM_USER_RATE_LIMIT per minute (default 1000000: the import, not the limit, is measured)`;

function options() {
  const { values } = parseArgs({
    options: {
      small: { type: 'string', default: '2000' },
      'small-max': { type: 'string', default: '500' },
      large: { type: 'string', default: '5' },
      'large-size': { type: 'string', default: '200' },
      concurrency: { type: 'string', default: '4' },
      dir: { type: 'string', default: path.join(root, 'data') },
      'rate-limit': { type: 'string', default: '1000000' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  const n = (name, min) => {
    const v = Number(values[name]);
    if (!Number.isInteger(v) || v < min) {
      console.error(`--${name} must be an integer >= ${min}\n${usage}`);
      process.exit(2);
    }
    return v;
  };
  return {
    small: n('small', 0),
    smallMax: n('small-max', 1) * KiB,
    large: n('large', 0),
    largeSize: n('large-size', 1) * MiB,
    concurrency: n('concurrency', 1),
    rateLimit: n('rate-limit', 1),
    dir: path.resolve(values.dir),
  };
}

/** Runs a command, resolves with its wall time in seconds (and its stdout); rejects on a non-zero exit. */
function timed(cmd, args, env = process.env) {
  return new Promise((resolve, reject) => {
    const began = performance.now();
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = (performance.now() - began) / 1000;
      if (code === 0) resolve({ seconds, out });
      else reject(new Error(`${cmd} ${args.join(' ')} exited with ${code}:\n${err}${out.slice(-4000)}`));
    });
  });
}

async function makeTree(dir, o) {
  const bytes = { small: 0, large: 0 };
  for (let i = 0; i < o.small; i++) {
    const sub = path.join(dir, 'small', `d${String(Math.floor(i / 100)).padStart(3, '0')}`);
    await mkdir(sub, { recursive: true });
    const size = randomInt(KiB, o.smallMax + 1);
    bytes.small += size;
    await writeFile(path.join(sub, `f${i}.bin`), randomBytes(size));
  }
  await mkdir(path.join(dir, 'large'), { recursive: true });
  for (let i = 0; i < o.large; i++) {
    const file = path.join(dir, 'large', `big${i}.bin`);
    // Written in 8 MiB chunks: a 200 MiB buffer of random bytes is not needed.
    const fh = await open(file, 'w');
    for (let off = 0; off < o.largeSize; off += 8 * MiB) await fh.write(randomBytes(Math.min(8 * MiB, o.largeSize - off)));
    await fh.close();
    bytes.large += o.largeSize;
  }
  return bytes;
}

const mbps = (bytes, s) => `${(bytes / 1e6 / s).toFixed(1)} MB/s`;

async function main() {
  const o = options();
  await mkdir(o.dir, { recursive: true });
  const work = await mkdtemp(path.join(o.dir, 'bench-cli-'));
  const children = new Set();
  try {
    const src = path.join(work, 'src');
    console.log(`making the tree in ${src}: ${o.small} files of 1-${o.smallMax / KiB} KiB, ${o.large} of ${o.largeSize / MiB} MiB`);
    const bytes = await makeTree(src, o);

    const port = await freePort();
    // The import is measured, not the per-user rate limit (DAM_USER_RATE_LIMIT, 1,200 a minute by default), which
    // 2,000 small files would reach: the CLI waits it out (Retry-After), and that wait would be most of the figure.
    const server = await startServer(
      { entry: serverEntry, cwd: root, dataDir: path.join(work, 'server'), port, env: { DAM_USER_RATE_LIMIT: String(o.rateLimit) } },
      children,
    );
    const reg = await fetch(`${server.base}/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench@example.test', password: 'bench password 1', name: 'Bench' }),
    });
    if (reg.status !== 201) throw new Error(`register: ${reg.status} ${await reg.text()}`);
    const { token, workspaces } = await reg.json();
    const env = { ...process.env, DAM_CONFIG_DIR: path.join(work, 'config') };
    await timed(process.execPath, [launcher, 'login', '--url', server.base, '--token', token], env);

    const rows = [];
    for (const kind of ['small', 'large']) {
      if (bytes[kind] === 0) continue;
      const cp = await timed('cp', ['-r', path.join(src, kind), path.join(work, `copy-${kind}`)]);
      // The server fsyncs what it stores and cp does not: the time to flush the copy is shown too.
      const flush = await timed('sync', ['-f', path.join(work, `copy-${kind}`)]);
      const cli = await timed(
        process.execPath,
        [launcher, 'upload', path.join(src, kind), '-w', String(workspaces[0].id), '-r', '-c', String(o.concurrency), '--json'],
        env,
      );
      const summary = JSON.parse(cli.out);
      if (summary.failed.length > 0) throw new Error(`${summary.failed.length} files failed, e.g. ${JSON.stringify(summary.failed[0])}`);
      const ratio = cp.seconds / cli.seconds;
      rows.push({ kind, files: summary.uploaded.length, bytes: bytes[kind], cp: cp.seconds, synced: cp.seconds + flush.seconds, cli: cli.seconds, ratio });
    }

    console.log('\n| tree | files | MB | cp -r | cp -r + sync | dam upload | ratio (CLI speed / cp speed) | vs cp + sync | target |');
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const r of rows) {
      console.log(
        `| ${r.kind} | ${r.files} | ${(r.bytes / 1e6).toFixed(0)} | ${r.cp.toFixed(2)} s (${mbps(r.bytes, r.cp)}) | ${r.synced.toFixed(2)} s | ` +
          `${r.cli.toFixed(2)} s (${mbps(r.bytes, r.cli)}) | ${r.ratio.toFixed(2)} | ${(r.synced / r.cli).toFixed(2)} | ` +
          `${TARGETS[r.kind]} ${r.ratio >= TARGETS[r.kind] ? 'met' : 'NOT met'} |`,
      );
    }
  } finally {
    for (const child of children) await stopChild(child, children);
    await rm(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err.stack ?? String(err));
  process.exitCode = 1;
});
