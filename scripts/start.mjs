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
  console.log('building (first start, or sources changed) ...');
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

// Run the server in this process, so that SIGTERM reaches its graceful shutdown directly.
await import(pathToFileURL(entry).href);
