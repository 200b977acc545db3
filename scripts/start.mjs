#!/usr/bin/env node
// `npm start`: builds when the build is missing or older than the sources, then runs the server.
// Extra arguments (e.g. --migrate-only, --help-config) are seen by dist/server.js, which runs in this process.
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
const serverStale = !existsSync(entry) || newestMtime(path.join(root, 'src')) > statSync(entry).mtimeMs;
// The web client (web/dist) is part of the build too, but not of printing the configuration reference.
const helpOnly = process.argv.includes('--help-config');
const webStale = !helpOnly && (!existsSync(webEntry) || webSources() > statSync(webEntry).mtimeMs);

const bin = (name) => path.join(root, 'node_modules', '.bin', name);
/** The steps of `npm run build` (package.json), run one by one so that each says how long it took. */
const steps = [
  ...(serverStale ? [['the server (TypeScript)', bin('tsc'), ['-p', 'tsconfig.build.json']]] : []),
  ...(webStale
    ? [
        ['the web client: type check (vue-tsc)', bin('vue-tsc'), ['-p', 'web/tsconfig.json', '--noEmit']],
        ['the web client: bundle (vite)', bin('vite'), ['build', '--config', 'web/vite.config.ts', '--logLevel', 'warn']],
      ]
    : []),
];

if (steps.length > 0) {
  // Each step's own output (tsc, vue-tsc, vite) only matters when it fails: one line per step otherwise.
  process.stdout.write(`building (first start, or sources changed): ${steps.length} steps, usually 1 to 3 minutes in all\n`);
  const started = Date.now();
  const seconds = (since) => `${((Date.now() - since) / 1000).toFixed(1)} s`;
  for (const [i, [what, command, args]] of steps.entries()) {
    process.stdout.write(`  ${i + 1}/${steps.length} ${what} ... `);
    const stepStarted = Date.now();
    const run = spawnSync(command, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if (run.status !== 0) {
      process.stdout.write(`failed after ${seconds(stepStarted)}\n`);
      process.stderr.write(`${run.stdout ?? ''}${run.stderr ?? ''}${run.error ? String(run.error) : ''}\n`);
      process.exit(run.status ?? 1);
    }
    process.stdout.write(`done in ${seconds(stepStarted)}\n`);
  }
  process.stdout.write(`built in ${seconds(started)}\n`);
}

// Run the server in this process, so that SIGTERM reaches its graceful shutdown directly.
await import(pathToFileURL(entry).href);
