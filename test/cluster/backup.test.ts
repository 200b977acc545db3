import { execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startServer } from '../../scripts/bench-process.mjs';
import { tempDir } from '../helpers/databases.js';
import { call, ENTRY, expectStatus, ROOT, sha256, stopNodes } from './cluster.js';

/**
 * `npm run backup` / `npm run restore` (issue #18) on SQLite and the local store: a live instance keeps
 * receiving uploads while it is backed up; the backup restored into another data dir serves every
 * object of its manifest byte-identical.
 */

interface Manifest {
  format: string;
  storage: { kind: string };
  database: { size: number; sha256: string };
  objects: { key: string; size: number; sha256: string }[];
  missing: string[];
}

/** Runs scripts/<name> with the server's environment for `dataDir` (no DAM_* of the caller's). */
function runScript(name: string, args: string[], env: Record<string, string>): Promise<{ code: number; out: string }> {
  const clean: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('DAM_') && k !== 'DATABASE_URL') clean[k] = v;
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(ROOT, 'scripts', name), ...args], { cwd: ROOT, env: { ...clean, NODE_ENV: 'production', ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` });
    });
  });
}

const sqliteEnv = (dataDir: string) => ({ DAM_DATA_DIR: dataDir, DATABASE_URL: `sqlite:${path.join(dataDir, 'dam.sqlite')}` });

describe('backup and restore of a live SQLite instance', () => {
  const children = new Set<ChildProcess>();
  const liveDir = tempDir('dam-live-');
  let live: string;
  let token: string;
  let ws: number;
  const uploaded = new Map<number, string>();

  async function upload(base: string, i: number): Promise<void> {
    const bytes = Buffer.concat([Buffer.from(`file ${i}\n`), randomBytes(20_000 + i * 101)]);
    const form = new FormData();
    form.append('workspaceId', String(ws));
    form.append('file', new Blob([bytes], { type: 'application/octet-stream' }), `file-${i}.bin`);
    const asset = expectStatus(await call(base, 'POST', '/api/upload-asset', { token, body: form }), 201, 'upload').json<{ data: { id: number } }>().data;
    uploaded.set(asset.id, sha256(bytes));
  }

  beforeAll(async () => {
    ({ base: live } = await startServer({ entry: ENTRY, cwd: ROOT, dataDir: liveDir, port: await freePort() }, children));
    const reg = expectStatus(await call(live, 'POST', '/auth/register', { json: { email: 'me@backup.test', password: 'a long backup password', name: 'Me' } }), 201, 'register');
    ({ token } = reg.json<{ token: string }>());
    ws = reg.json<{ workspaces: { id: number }[] }>().workspaces[0]!.id;
  });

  afterAll(async () => {
    await stopNodes(children);
  });

  it('backs up while uploads go on, restores into an empty dir only, and the restored instance serves every object byte-identical', async () => {
    for (let i = 0; i < 5; i += 1) await upload(live, i);
    const before = new Set(uploaded.keys());

    // Uploads keep coming while the backup runs.
    let uploading = true;
    const during = (async () => {
      for (let i = 100; uploading; i += 1) await upload(live, i);
    })();
    const out = path.join(tempDir('dam-backup-'), 'backup');
    const backup = await runScript('backup.mjs', ['--out', out], sqliteEnv(liveDir));
    uploading = false;
    await during;
    expect(backup.code, backup.out).toBe(0);
    expect(uploaded.size - before.size, 'uploads finished while the backup ran').toBeGreaterThan(0);
    expect(statSync(out).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(out, 'jwt-secret')).mode & 0o777).toBe(0o600);

    const manifest = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8')) as Manifest;
    expect(manifest).toMatchObject({ format: 'dam-backup/1', storage: { kind: 'local' }, missing: [] });
    const assetKeys = manifest.objects.filter((o) => /^\d+\/digital_assets\/\d+$/.test(o.key));
    // Everything uploaded before the backup started is in it, with the hash of what was uploaded.
    for (const id of before) expect(assetKeys.find((o) => o.key === `${ws}/digital_assets/${id}`)?.sha256).toBe(uploaded.get(id));

    // Never over an existing instance.
    const refused = await runScript('restore.mjs', [out], sqliteEnv(liveDir));
    expect(refused.code).toBe(1);
    expect(refused.out).toMatch(/not empty/);

    const restoredDir = tempDir('dam-restored-');
    const restore = await runScript('restore.mjs', [out], sqliteEnv(restoredDir));
    expect(restore.code, restore.out).toBe(0);
    const { base: restored } = await startServer({ entry: ENTRY, cwd: ROOT, dataDir: restoredDir, port: await freePort() }, children);

    // The same secret: the session of the live instance is valid on the restored one.
    expect((await call(restored, 'GET', '/auth/me', { token })).status).toBe(200);
    for (const o of manifest.objects) {
      const assetId = /^\d+\/digital_assets\/(\d+)$/.exec(o.key)?.[1];
      if (!assetId) continue;
      const res = expectStatus(await call(restored, 'GET', `/storage/download?${new URLSearchParams({ key: o.key, workspaceId: String(ws) }).toString()}`, { token }), 200, o.key);
      expect(sha256(res.bytes), o.key).toBe(o.sha256);
      expect(o.sha256).toBe(uploaded.get(Number(assetId)));
    }
  });

  it('refuses on PostgreSQL and says how to back it up there', async () => {
    const res = await runScript('backup.mjs', ['--out', path.join(tempDir('dam-backup-'), 'pg')], { DATABASE_URL: 'postgres://user:pass@127.0.0.1:1/dam', DAM_DATA_DIR: tempDir('dam-pg-') });
    expect(res.code).toBe(2);
    expect(res.out).toMatch(/pg_dump/);
    expect(res.out).toMatch(/versioning/);
  });
});
