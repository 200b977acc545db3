import { cp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../src/admin-cli.js';
import { buildApp } from '../src/app.js';
import type { AppConfig } from '../src/config.js';
import { openDatabase, openMigratedDatabase, type DatabaseHandle } from '../src/db/database.js';
import { migrateTo } from '../src/db/migrator.js';
import type { FastifyInstance } from 'fastify';
import { testConfig } from './helpers/app.js';
import { tempDir } from './helpers/databases.js';
import { registerUser, type Account } from './helpers/factories.js';
import { STORE_KINDS, s3Client, startS3Server, startStorageApp, startUpload, uploadPart, type S3Server, type StorageTestApp } from './helpers/uploads.js';
import { listVersions, serverUpload, text, uploadVersion } from './helpers/versions.js';

/**
 * `npm run admin` (issue #27): an operator without SMTP makes a password link on the server, against the
 * database a running service uses; the link then works through the HTTP API like an e-mailed one.
 */
describe('npm run admin', () => {
  let config: AppConfig;
  let database: DatabaseHandle;
  let app: FastifyInstance;
  const email = 'locked-out@example.test';

  function run(args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    return runAdminCommand(args, { out: (l) => out.push(l), err: (l) => err.push(l) }, config).then((code) => ({ code, out, err }));
  }

  beforeAll(async () => {
    const dataDir = tempDir('dam-admin-cli-');
    config = testConfig({ dataDir, databaseUrl: `sqlite:${path.join(dataDir, 'dam.sqlite')}`, publicUrl: 'https://dam.example.test' });
    database = await openMigratedDatabase(config.databaseUrl);
    app = await buildApp(config, { database, logger: false });
    const res = await app.inject({ method: 'POST', url: '/auth/register', payload: { email, password: 'forgotten password', name: 'Locked Out' } });
    expect(res.statusCode).toBe(201);
    const second = await app.inject({ method: 'POST', url: '/auth/register', payload: { email: 'plain@example.test', password: 'plain password', name: 'Plain' } });
    expect(second.statusCode).toBe(201);
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it('reset-password prints a single-use link on DAM_PUBLIC_URL that sets the password', async () => {
    const { code, out } = await run(['reset-password', email.toUpperCase()]);
    expect(code).toBe(0);
    const url = out.find((l) => l.startsWith('https://dam.example.test/reset-password?token='));
    expect(url).toBeDefined();
    const token = new URL(url!).searchParams.get('token')!;

    const info = await app.inject({ method: 'GET', url: `/auth/password-reset?token=${token}` });
    expect(info.statusCode).toBe(200);
    expect(info.json<{ data: unknown }>().data).toMatchObject({ email, purpose: 'reset' });

    const confirm = await app.inject({ method: 'POST', url: '/auth/password-reset/confirm', payload: { token, password: 'a brand new password' } });
    expect(confirm.statusCode).toBe(200);
    const login = await app.inject({ method: 'POST', url: '/auth/login', payload: { email, password: 'a brand new password' } });
    expect(login.statusCode).toBe(200);
    const again = await app.inject({ method: 'POST', url: '/auth/password-reset/confirm', payload: { token, password: 'another new password' } });
    expect(again.statusCode).toBe(410);
    expect(again.json<{ code: string }>().code).toBe('LINK_INVALID');
  });

  it('make-admin makes an account an instance admin', async () => {
    const { code } = await run(['make-admin', 'plain@example.test']);
    expect(code).toBe(0);
    const login = await app.inject({ method: 'POST', url: '/auth/login', payload: { email: 'plain@example.test', password: 'plain password' } });
    const list = await app.inject({ method: 'GET', url: '/admin/users', headers: { authorization: `Bearer ${login.json<{ token: string }>().token}` } });
    expect(list.statusCode).toBe(200);
  });

  it('says what is wrong: an unknown e-mail exits 1, a wrong command 2', async () => {
    const unknown = await run(['reset-password', 'nobody@example.test']);
    expect(unknown.code).toBe(1);
    expect(unknown.err.join('\n')).toContain('No account with e-mail nobody@example.test');
    const usage = await run(['delete-everything', email]);
    expect(usage.code).toBe(2);
    expect(usage.err.join('\n')).toContain('usage: npm run admin');
    expect((await run([])).code).toBe(2);
  });
});

/**
 * `npm run admin -- verify` (issue #37): the store against the database, on both stores. A clean library passes (exit 0);
 * a removed object, a corrupted one (same length, other bytes) and an orphan are each found and named (exit 1), while
 * an upload in progress, an object queued for deletion and an object outside the asset layout are not faults.
 */
describe.each(STORE_KINDS)('npm run admin -- verify on the %s store', (kind) => {
  let s3: S3Server | undefined;
  let t: StorageTestApp;
  let owner: Account;
  const jpeg = () => sharp({ create: { width: 320, height: 200, channels: 3, background: '#a0a' } }).jpeg().toBuffer();

  function verify(args: string[] = [], config: AppConfig = t.config) {
    const out: string[] = [];
    const err: string[] = [];
    return runAdminCommand(['verify', ...args], { out: (l) => out.push(l), err: (l) => err.push(l) }, config).then((code) => ({
      code,
      out: out.join('\n'),
      err: err.join('\n'),
    }));
  }

  /** What the store holds, changed behind the service's back as a disk fault, an operator or another program would. */
  const store = {
    objectDir: (key: string) => path.join(t.config.dataDir, 'storage', 'objects', `${key}.obj`),
    async remove(key: string) {
      if (kind === 's3') await this.s3((c, Bucket) => c.send(new DeleteObjectCommand({ Bucket, Key: key })));
      else await rm(this.objectDir(key), { recursive: true });
    },
    /** Same length, other bytes: only the hash can tell. */
    async corrupt(key: string) {
      if (kind === 's3') {
        await this.s3(async (c, Bucket) => {
          const got = await c.send(new GetObjectCommand({ Bucket, Key: key }));
          const length = (await got.Body!.transformToByteArray()).length;
          await c.send(new PutObjectCommand({ Bucket, Key: key, Body: Buffer.alloc(length, 0x5a) }));
        });
        return;
      }
      // One piece rewritten at its own length (a new file: the old one may be hard-linked elsewhere); the manifest's size stays right.
      const dir = this.objectDir(key);
      const piece = path.join(dir, (await readdir(dir)).filter((f) => f !== 'manifest.json').sort()[0]!);
      const { size } = await stat(piece);
      await rm(piece);
      await writeFile(piece, Buffer.alloc(size, 0x5a));
    },
    async copy(source: string, target: string) {
      if (kind === 's3') {
        await this.s3(async (c, Bucket) => {
          const got = await c.send(new GetObjectCommand({ Bucket, Key: source }));
          await c.send(new PutObjectCommand({ Bucket, Key: target, Body: Buffer.from(await got.Body!.transformToByteArray()) }));
        });
      } else {
        await cp(this.objectDir(source), this.objectDir(target), { recursive: true });
      }
    },
    async s3(run: (client: ReturnType<typeof s3Client>, bucket: string) => Promise<unknown>) {
      const storage = t.config.storage as Extract<AppConfig['storage'], { kind: 's3' }>;
      const client = s3Client(storage);
      try {
        await run(client, storage.bucket);
      } finally {
        client.destroy();
      }
    },
  };

  beforeAll(async () => {
    if (kind === 's3') s3 = await startS3Server();
    const file = path.join(tempDir('dam-verify-'), 'dam.sqlite');
    const database = await openMigratedDatabase(`sqlite:${file}`);
    t = await startStorageApp(kind, s3, { database, config: { databaseUrl: `sqlite:${file}` } });
    owner = await registerUser(t);
  });
  afterAll(async () => {
    await t.close();
    await s3?.close();
  });

  it('passes a clean library, then names a removed object, a corrupted one and an orphan', async () => {
    const ws = owner.workspaceId;
    const photo = await serverUpload(t, owner, { bytes: await jpeg(), name: 'photo.jpg', type: 'image/jpeg' });
    await uploadVersion(t, owner, photo.id, text('second version of the photo'));
    const doomed = await serverUpload(t, owner, { bytes: Buffer.from('a file that will be lost'), name: 'lost.txt', type: 'text/plain' });
    const spoiled = await serverUpload(t, owner, { bytes: Buffer.from('a file whose bytes will rot'), name: 'rot.txt', type: 'text/plain' });
    await t.app.jobs.drain();
    const [v2, v1] = await listVersions(t, owner, photo.id);
    expect(v1!.preview_status).toBe('ready');

    // Not faults: an upload in progress (a part stored, not completed), a deletion queued and not yet drained, an object of someone else's.
    const inProgress = await startUpload(t, owner, { fileName: 'big.bin' });
    await uploadPart(t, owner, inProgress, 1, Buffer.from('first part of an upload in progress'));
    const queued = `${ws}/digital_assets/${doomed.id}/renditions/999/thumbnail.webp`;
    await store.copy(`${ws}/digital_assets/${doomed.id}`, queued);
    await t.database.db.insertInto('object_deletions').values({ storage_key: queued, queued_at: 0 }).execute();
    await store.copy(`${ws}/digital_assets/${doomed.id}`, 'backups/elsewhere.txt');

    const clean = await verify();
    expect(clean.err).toBe('');
    expect(clean.code).toBe(0);
    // Three assets, the photo's second version, the photo's v1 thumbnail and preview (and maybe v2's text has none).
    expect(clean.out).toMatch(/Checked (\d+) objects the database references \((\d+) hashed\)/);
    const [, checked, hashed] = /Checked (\d+) objects the database references \((\d+) hashed\)/.exec(clean.out)!;
    expect(Number(checked)).toBeGreaterThanOrEqual(6);
    expect(Number(hashed)).toBe(4);
    expect(clean.out).toContain('missing: 0');
    expect(clean.out).toContain('orphans: 0');
    expect(clean.out).toContain('(1 object outside the asset layout not judged)');
    expect(clean.out).toContain('OK: the store and the database agree.');

    const lostKey = `${ws}/digital_assets/${doomed.id}`;
    const rotKey = `${ws}/digital_assets/${spoiled.id}`;
    const orphanKey = `${ws}/digital_assets/987654`;
    await store.remove(lostKey);
    await store.corrupt(rotKey);
    await store.copy(`${ws}/digital_assets/${photo.id}/versions/${v2!.id}`, orphanKey);

    const found = await verify();
    expect(found.code).toBe(1);
    expect(found.out).toContain('missing: 1');
    expect(found.out).toContain(`  ${lostKey} (version `);
    expect(found.out).toContain('hash mismatches: 1');
    expect(found.out).toContain(`  ${rotKey} (version `);
    expect(found.out).toContain('size mismatches: 0');
    expect(found.out).toContain('orphans: 1');
    expect(found.out).toContain(`  ${orphanKey} (`);
    expect(found.out).toContain('PROBLEMS: 3');

    // Sizes only: the rotten bytes keep their length and pass; --examples 0 names none.
    const quick = await verify(['--no-hash', '--examples', '0']);
    expect(quick.code).toBe(1);
    expect(quick.out).toContain('sizes only, --no-hash');
    expect(quick.out).toContain('hash mismatches: 0');
    expect(quick.out).toContain('PROBLEMS: 2');
    expect(quick.out).not.toContain(lostKey);
  });

  it('exits 2 when it cannot check: bad arguments, no database, a schema behind', async () => {
    const bad = await verify(['--fast']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('usage: npm run admin -- verify [--no-hash] [--examples N]');
    expect((await verify(['--examples', 'many'])).code).toBe(2);
    const nowhere = path.join(tempDir('dam-verify-none-'), 'dam.sqlite');
    const none = await verify([], { ...t.config, databaseUrl: `sqlite:${nowhere}` });
    expect(none.code).toBe(2);
    expect(none.err).toContain('No database at');
    const oldFile = path.join(tempDir('dam-verify-old-'), 'dam.sqlite');
    const old = openDatabase(`sqlite:${oldFile}`);
    await migrateTo(old, '0030_upload_bounds');
    await old.close();
    const behind = await verify([], { ...t.config, databaseUrl: `sqlite:${oldFile}` });
    expect(behind.code).toBe(2);
    expect(behind.err).toMatch(/The database schema is behind this version \(\d+ migrations pending, first 0031_user_locale\)/);
  });
});
