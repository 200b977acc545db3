#!/usr/bin/env node
// `npm start`: builds when the build is missing or older than the sources, then runs the server.
// Extra arguments (e.g. --migrate-only) are seen by dist/server.js, which runs in this process.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const entry = path.join(root, 'dist', 'server.js');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

const webEntry = path.join(root, 'web', 'dist', 'index.html');
const webSources = () =>
  Math.max(newestMtime(path.join(root, 'web', 'src')), newestMtime(path.join(root, 'web', 'public')), statSync(path.join(root, 'web', 'index.html')).mtimeMs);
const stale =
  !existsSync(entry) ||
  newestMtime(path.join(root, 'src')) > statSync(entry).mtimeMs ||
  // The web client (web/dist) is part of the build too.
  !existsSync(webEntry) ||
  webSources() > statSync(webEntry).mtimeMs;
if (stale) {
  // The build's own output (tsc, vue-tsc, vite) only matters when it fails: one line otherwise.
  process.stdout.write('building the server and the web client (first start, or sources changed) ... ');
  const started = Date.now();
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (build.status !== 0) {
    process.stdout.write('failed\n');
    process.stderr.write(`${build.stdout ?? ''}${build.stderr ?? ''}${build.error ? String(build.error) : ''}\n`);
    process.exit(build.status ?? 1);
  }
  process.stdout.write(`done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

// Run the server in this process, so that SIGTERM reaches its graceful shutdown directly.
await import(pathToFileURL(entry).href);
