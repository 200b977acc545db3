// Compiles the CLI (cli/src and the SDK it imports) into cli/dist when it is missing or older than its sources.
// Used by the `dam` launcher on every start (a stat of a few dozen files when nothing changed) and by npm run build:cli.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const cliDir = path.dirname(fileURLToPath(import.meta.url));
export const entry = path.join(cliDir, 'dist', 'cli', 'src', 'main.js');
// tsc --incremental leaves unchanged outputs alone, so their times say nothing: a stamp marks a complete build.
const stamp = path.join(cliDir, 'dist', '.built');

function newestSource() {
  let newest = statSync(path.join(cliDir, 'tsconfig.json')).mtimeMs;
  for (const dir of [path.join(cliDir, 'src'), path.join(cliDir, '..', 'sdk', 'src')]) {
    for (const name of readdirSync(dir)) {
      if (name.endsWith('.ts')) newest = Math.max(newest, statSync(path.join(dir, name)).mtimeMs);
    }
  }
  return newest;
}

/** Returns an error message, or undefined once cli/dist is up to date. */
export function ensureBuilt() {
  if (existsSync(entry) && existsSync(stamp) && statSync(stamp).mtimeMs >= newestSource()) return undefined;
  let tsc;
  try {
    tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    return 'the CLI is not built and TypeScript is not installed: run npm ci (with dev dependencies), then npm run build:cli';
  }
  const built = spawnSync(process.execPath, [tsc, '-p', path.join(cliDir, 'tsconfig.json')], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (built.status !== 0) return 'compiling the CLI failed (see above)';
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
  return undefined;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const problem = ensureBuilt();
  if (problem) {
    process.stderr.write(`${problem}\n`);
    process.exit(1);
  }
}
