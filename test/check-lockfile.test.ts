import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers/databases.js';

/** Issue #28: `npm run check:lockfile`, the dependency check CI runs without any advisory service. */
const run = promisify(execFile);
const SCRIPT = path.resolve('scripts/check-lockfile.mjs');
/** The registry the script is told npm uses (as `npm run` tells it); no request goes to it. */
const REGISTRY = 'https://registry.example.test/';
const env = { ...process.env, npm_config_registry: REGISTRY };

async function check(lock: unknown, manifest: unknown): Promise<{ code: number; out: string }> {
  const dir = tempDir('dam-lockfile-');
  writeFileSync(path.join(dir, 'package-lock.json'), JSON.stringify(lock));
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest));
  try {
    const { stdout } = await run(process.execPath, [SCRIPT, path.join(dir, 'package-lock.json'), path.join(dir, 'package.json')], { env });
    return { code: 0, out: stdout };
  } catch (err) {
    const e = err as { code: number; stderr: string };
    return { code: e.code, out: e.stderr };
  }
}

const sha = 'sha512-' + 'A'.repeat(86) + '==';

describe('check:lockfile', () => {
  it('passes the project\'s own lockfile', async () => {
    const { stdout } = await run(process.execPath, [SCRIPT], { env });
    expect(stdout).toMatch(/packages, each with a sha512 integrity hash/);
  });

  it('names every package without a sha512 hash, from outside the registry or from git, and every unpinned dependency', async () => {
    const lock = {
      lockfileVersion: 3,
      packages: {
        '': { name: 'x' },
        'node_modules/good': { version: '1.0.0', integrity: sha },
        'node_modules/good-resolved': { version: '1.0.0', resolved: `${REGISTRY}good-resolved/-/good-resolved-1.0.0.tgz`, integrity: sha },
        'node_modules/nohash': { version: '1.0.0' },
        'node_modules/sha1': { version: '1.0.0', integrity: 'sha1-abc=' },
        'node_modules/elsewhere': { version: '1.0.0', resolved: 'http://registry.example.test/elsewhere/-/elsewhere-1.0.0.tgz', integrity: sha },
        'node_modules/fromgit': { version: 'git+ssh://git@example.com/a/b.git#abc', integrity: sha },
        'web/node_modules/linked': { link: true, resolved: 'web' },
      },
    };
    const { code, out } = await check(lock, { dependencies: { good: '1.0.0', loose: '^2.0.0' }, devDependencies: { tilde: '~1.2.3' } });
    expect(code).toBe(1);
    expect(out).toContain('node_modules/nohash: no integrity hash');
    expect(out).toContain('node_modules/sha1: integrity is not sha512');
    expect(out).toContain('node_modules/elsewhere: resolved from http://registry.example.test/elsewhere/-/elsewhere-1.0.0.tgz, outside the registry');
    expect(out).toContain('node_modules/fromgit: version "git+ssh://');
    expect(out).toContain('package.json dependencies.loose: "^2.0.0" is not one exact version');
    expect(out).toContain('package.json devDependencies.tilde');
    expect(out).not.toMatch(/node_modules\/good|linked/);
    expect(out).toMatch(/^\S+: 6 problem\(s\)/);
  });
});
