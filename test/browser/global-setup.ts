import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..', '..');
const web = path.join(root, 'web');
const built = path.join(web, 'dist', 'index.html');

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(full) : statSync(full).mtimeMs);
  }
  return latest;
}

/** The browser tests drive the built client: build it when it is missing or older than its sources. */
export default function setup(): void {
  // No browser, no browser tests (they report themselves as skipped): nothing to build for.
  if (!existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium')) return;
  const sources = Math.max(newest(path.join(web, 'src')), newest(path.join(web, 'public')), statSync(path.join(web, 'index.html')).mtimeMs);
  if (existsSync(built) && statSync(built).mtimeMs >= sources) return;
  // In a child process: Vue's compiler caches per file, and the web project's own (dev-mode)
  // transforms run in this process at the same time.
  const vite = path.join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  const result = spawnSync(process.execPath, [vite, 'build', '--config', path.join(web, 'vite.config.ts'), '--logLevel', 'warn'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) throw new Error(`building the web client failed (exit ${result.status})`);
}
