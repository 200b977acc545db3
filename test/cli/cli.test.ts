import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpTestApp, type TestApp } from '../helpers/app.js';
import { dialects, tempDir } from '../helpers/databases.js';
import { registerUser, type Account } from '../helpers/factories.js';

/** The `dam` CLI (cli/) run as a child process, as a user runs it, against a real server on 127.0.0.1. */

const launcher = path.resolve('cli/bin/dam.mjs');
const MiB = 1024 * 1024;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function dam(configDir: string, args: string[], input?: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [launcher, ...args], { env: { ...process.env, DAM_CONFIG_DIR: configDir }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

interface UploadSummary {
  uploaded: { path: string; assetId: number }[];
  duplicates: { path: string; assetIds: number[] }[];
  resumed: { path: string; assetId: number }[];
  failed: { path: string; reason: string }[];
}

const summaryOf = (run: Run): UploadSummary => JSON.parse(run.stdout) as UploadSummary;

/** Every file under `dir`, relative path -> SHA-256. */
async function treeHashes(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const visit = async (d: string, rel: string) => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await visit(path.join(d, e.name), r);
      else out.set(r, sha(await readFile(path.join(d, e.name))));
    }
  };
  await visit(dir, '');
  return out;
}

/** `photos/`: 300 small files over nested directories and 3 files of 30 MiB. */
async function makeTree(root: string, small: number, big: number, bigSize = 30 * MiB): Promise<void> {
  for (let i = 0; i < small; i++) {
    const dir = path.join(root, `dir-${i % 5}`, i % 2 ? `sub-${i % 3}` : '');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, `file-${i}.txt`), randomBytes(100 + (i % 50) * 40));
  }
  for (let i = 0; i < big; i++) await writeFile(path.join(root, `zz-big-${i}.bin`), randomBytes(bigSize));
}

beforeAll(() => {
  // Compiles the CLI once (cli/build.mjs) so that the runs below measure the CLI, not tsc.
  const built = spawnSync(process.execPath, ['cli/build.mjs'], { stdio: 'inherit' });
  expect(built.status).toBe(0);
}, 120_000);

describe.each(dialects)('dam CLI on %s', (dialect) => {
  let t: TestApp & { baseUrl: string };
  let owner: Account;
  const work = tempDir('dam-cli-');
  const config = path.join(work, 'config');
  const run = (args: string[], input?: string) => dam(config, args, input);
  const get = async <T>(url: string) => (await t.request({ method: 'GET', url, token: owner.token })).json<{ data: T }>().data;
  const countAssets = async () => (await get<{ total: number }>(`/dam/assets?workspaceId=${owner.workspaceId}&per_page=1`)).total;

  beforeAll(async () => {
    t = await startHttpTestApp({ dialect });
    owner = await registerUser(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('logs in with a prompted password, stores the session 0600, whoami and workspaces (--json)', async () => {
    const bad = await run(['login', '--url', t.baseUrl, '--email', owner.user.email], 'wrong password\n');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/login failed: 401/);

    const login = await run(['login', '--url', t.baseUrl, '--email', owner.user.email], `${owner.password}\n`);
    expect(login.stderr).not.toMatch(/dam:/);
    expect(login.code).toBe(0);
    const file = path.join(config, 'session.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ url: t.baseUrl, email: owner.user.email });

    expect((await run(['whoami'])).stdout).toContain(owner.user.email);
    const ws = await run(['workspaces', '--json']);
    expect(JSON.parse(ws.stdout)).toEqual([expect.objectContaining({ id: owner.workspaceId, role: 'admin' })]);
    expect((await run(['upload', '--help'])).stdout).toMatch(/--exclude <glob>/);
  });

  it('uploads a tree of 300 small files and 3 of 30 MiB as folders; downloads it byte for byte; a second run skips all', async () => {
    const src = path.join(work, 'photos');
    await makeTree(src, 300, 3);
    const first = await run(['upload', src, '-w', String(owner.workspaceId), '--recursive', '--tag', 'imported', '--json']);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const summary = summaryOf(first);
    expect(summary.failed).toEqual([]);
    expect(summary.uploaded).toHaveLength(303);
    expect(await countAssets()).toBe(303);

    // The tree as folders: photos/ at the top level, dir-0..4 in it, sub-N in those.
    const top = await get<{ items: { id: number; name: string }[] }>(`/dam/folders?workspaceId=${owner.workspaceId}&parent_id=root`);
    expect(top.items.map((f) => f.name)).toEqual(['photos']);
    const photos = top.items[0]!.id;
    const children = await get<{ items: { name: string }[] }>(`/dam/folders?workspaceId=${owner.workspaceId}&parent_id=${photos}`);
    expect(children.items.map((f) => f.name).sort()).toEqual(['dir-0', 'dir-1', 'dir-2', 'dir-3', 'dir-4']);
    const one = await get<{ tags: string[] }>(`/dam/assets/${summary.uploaded[0]!.assetId}`);
    expect(one.tags).toEqual(['imported']);

    const out = path.join(work, 'out');
    const down = await run(['download', '--folder', String(photos), '--out', out]);
    expect(down.code).toBe(0);
    expect(await treeHashes(path.join(out, 'photos'))).toEqual(await treeHashes(src));

    // The server hashes stored files in a job; once it has, every file is a duplicate.
    await t.app.jobs.drain();
    const second = await run(['upload', src, '-w', String(owner.workspaceId), '--recursive', '--json']);
    expect(second.code).toBe(0);
    expect(summaryOf(second)).toMatchObject({ uploaded: [], failed: [] });
    expect(summaryOf(second).duplicates).toHaveLength(303);
    expect(await countAssets()).toBe(303);

    // search --json and versions --json parse.
    const search = await run(['search', '*', '-w', String(owner.workspaceId), '--filter', 'tags:=imported', '--limit', '1000', '--json']);
    expect(search.stderr).toBe('');
    const hits = JSON.parse(search.stdout) as { id: string; display_file_name: string }[];
    expect(hits).toHaveLength(303);
    const versions = await run(['versions', hits[0]!.id, '--json']);
    expect(JSON.parse(versions.stdout)).toEqual([expect.objectContaining({ version: 'v1', is_current: true })]);
  }, 120_000);

  it('resumes a run killed midway without uploading anything twice', async () => {
    const src = path.join(work, 'resume');
    await makeTree(src, 40, 1);
    const state = path.join(work, 'resume-state.jsonl');
    const before = await countAssets();
    const args = ['upload', src, '-w', String(owner.workspaceId), '-r', '-c', '1', '--part-size', '5', '--state', state, '--no-progress'];
    const child: ChildProcess = spawn(process.execPath, [launcher, ...args], { env: { ...process.env, DAM_CONFIG_DIR: config }, stdio: 'ignore' });
    // Killed once the first big file's upload is open and some of its parts are stored.
    for (let i = 0; i < 1500 && !(existsSync(state) && readFileSync(state, 'utf8').includes('zz-big-0.bin')); i++) await sleep(20);
    await sleep(100);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const journal = readFileSync(state, 'utf8');
    const open = journal.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { t: string; file?: string; upload?: { assetId: number } });
    const bigOpen = open.find((e) => e.t === 'open' && e.file?.endsWith('zz-big-0.bin'));
    expect(bigOpen).toBeDefined();
    const doneBefore = open.filter((e) => e.t === 'done').length;
    expect(doneBefore).toBeGreaterThanOrEqual(40);

    const resumed = await run([...args, '--json']);
    expect(resumed.code).toBe(0);
    const summary = summaryOf(resumed);
    expect(summary.resumed).toHaveLength(doneBefore);
    expect(summary.uploaded.length + summary.resumed.length).toBe(41);
    // The big file continued the upload the killed run opened (same asset), and no file became two assets.
    expect(summary.uploaded.find((u) => u.path.endsWith('zz-big-0.bin'))?.assetId).toBe(bigOpen!.upload!.assetId);
    expect((await countAssets()) - before).toBe(41);
    expect(existsSync(state)).toBe(false);

    const top = await get<{ items: { id: number; name: string }[] }>(`/dam/folders?workspaceId=${owner.workspaceId}&parent_id=root`);
    const folder = top.items.find((f) => f.name === 'resume')!;
    const out = path.join(work, 'out-resume');
    expect((await run(['download', '--folder', String(folder.id), '--out', out])).code).toBe(0);
    expect(await treeHashes(path.join(out, 'resume'))).toEqual(await treeHashes(src));
  }, 120_000);

  it('reports the files that fail, uploads the rest, exits 1; --dry-run changes nothing', async () => {
    const small = await startHttpTestApp({ dialect, config: { maxFileSize: 1000 } });
    try {
      const who = await registerUser(small);
      const cfg = path.join(work, 'config-failing');
      expect((await dam(cfg, ['login', '--url', small.baseUrl, '--token', who.token])).code).toBe(0);
      const src = path.join(work, 'failing');
      await mkdir(src, { recursive: true });
      await writeFile(path.join(src, 'ok.txt'), 'fine');
      await writeFile(path.join(src, 'too-big.bin'), randomBytes(2000));
      await writeFile(path.join(src, 'skip.tmp'), 'excluded');
      await symlink(path.join(src, 'gone'), path.join(src, 'broken-link'));

      const dry = await dam(cfg, ['upload', src, '-w', String(who.workspaceId), '--exclude', '*.tmp', '--dry-run']);
      expect(dry.stdout).toMatch(/would upload failing\/ok.txt/);
      expect(dry.stdout).not.toMatch(/skip.tmp/);
      expect((await small.request({ method: 'GET', url: `/dam/assets?workspaceId=${who.workspaceId}`, token: who.token })).json<{ data: { total: number } }>().data.total).toBe(0);

      const failing = await dam(cfg, ['upload', src, '-w', String(who.workspaceId), '--exclude', '*.tmp']);
      expect(failing.code).toBe(1);
      expect(failing.stdout).toMatch(/uploaded: 1 files/);
      expect(failing.stdout).toMatch(/failed: 2/);
      expect(failing.stdout).toMatch(/failing\/too-big.bin: .*413 The file is larger than the limit of 1000 bytes/);
      expect(failing.stdout).toMatch(/failing\/broken-link: .*ENOENT/);
    } finally {
      await small.close();
    }
  }, 60_000);
  it('leaves out hidden files and OS debris unless --include-hidden; search says when it shows the first N of more', async () => {
    const src = path.join(work, 'debris');
    await mkdir(path.join(src, '.git'), { recursive: true });
    await mkdir(path.join(src, '__MACOSX'), { recursive: true });
    await writeFile(path.join(src, 'keep-1.jpg'), randomBytes(64));
    await writeFile(path.join(src, 'keep-2.jpg'), randomBytes(64));
    for (const name of ['.DS_Store', 'Thumbs.db', 'desktop.ini', 'draft.tmp', '~$report.docx', '._keep-1.jpg']) await writeFile(path.join(src, name), randomBytes(16));
    await writeFile(path.join(src, '.git', 'HEAD'), 'ref: refs/heads/main');
    await writeFile(path.join(src, '__MACOSX', '._keep-2.jpg'), randomBytes(16));
    const ws = String(owner.workspaceId);

    const plain = await run(['upload', src, '-w', ws, '-r', '--json']);
    expect(plain.code).toBe(0);
    const summary = JSON.parse(plain.stdout) as UploadSummary & { hidden: string[] };
    expect(summary.uploaded.map((u) => u.path).sort()).toEqual(['debris/keep-1.jpg', 'debris/keep-2.jpg']);
    expect(summary.hidden.sort()).toEqual(
      ['debris/.DS_Store', 'debris/.git', 'debris/._keep-1.jpg', 'debris/Thumbs.db', 'debris/__MACOSX', 'debris/desktop.ini', 'debris/draft.tmp', 'debris/~$report.docx'].sort(),
    );
    const words = await run(['upload', src, '-w', ws, '-r', '--dry-run']);
    expect(words.stdout).toMatch(/skipped as hidden or system files: 8 \(--include-hidden uploads them\)/);

    const all = await run(['upload', src, '-w', ws, '-r', '--include-hidden', '--json']);
    expect(all.code).toBe(0);
    const everything = JSON.parse(all.stdout) as UploadSummary & { hidden: string[] };
    expect(everything.hidden).toEqual([]);
    // The two kept files are there already (same bytes); the eight others are new, .git/HEAD and __MACOSX/._keep-2.jpg included.
    expect(everything.uploaded).toHaveLength(8);
    expect(everything.uploaded.map((u) => u.path)).toContain('debris/.git/HEAD');

    // A search that finds more than --limit says so on stderr; --all pages through everything.
    const total = await countAssets();
    const some = await run(['search', '*', '-w', ws, '--limit', '3']);
    expect(some.code).toBe(0);
    expect(some.stderr).toContain(`showing the first 3 of ${total} hits; --limit <n> or --all for more`);
    const every = await run(['search', '*', '-w', ws, '--all', '--json']);
    expect(every.stderr).toBe('');
    expect(JSON.parse(every.stdout)).toHaveLength(total);
  }, 120_000);
});
