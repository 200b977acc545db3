import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readdirSync, rmSync, statfsSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import sharp from 'sharp';
import yazl from 'yazl';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { call, expectStatus, metricValue, sha256, waitFor, type Reply } from '../cluster/cluster.js';
import {
  adminVerify,
  countLost,
  incidentLines,
  recordFault,
  register,
  secondsUntil,
  startFaultServer,
  Tally,
  uploadFile,
  type Account,
  type FaultServer,
  type Uploaded,
} from './harness.js';

/**
 * Issue #37, fault 1: a full disk. The server's whole data directory (SQLite database, local store, upload spool, job
 * work directories) is a small tmpfs this test mounts; a steady load of uploads (through the server, the presigned
 * multipart flow and version uploads) and reads runs while a filler file takes the free space, first all but a little
 * (files no longer fit, the database still takes small writes: jobs get queued and then fail on the disk), then all of
 * it (the database's writes fail too, SQLITE_FULL). What must come of it: no 500, uploads answered 507
 * INSUFFICIENT_STORAGE with nothing of them left (no asset listed, no version, no storage counted, no reservation
 * held), reads still answered, jobs waiting with "the disk is full" as their last error, one incident in the log and
 * the metrics; and once the filler is gone, uploads and the waiting jobs succeed without a restart, and nothing
 * uploaded before or during the fault is lost.
 */

const TMPFS_SIZE = '64m';
/** Phase 1 keeps this much free: too little for any file of the load, enough for the database's small writes. */
const NEARLY_FULL_LEAVE = 160 * 1024;
const PHASE_NEARLY_FULL_MS = 10_000;
const PHASE_FULL_MS = 6_000;
/** Each load client pauses this long between its steps. */
const STEP_PAUSE_MS = 50;
/** DAM_MIN_PART_SIZE for the test: two parts per multipart upload. */
const MIN_PART = 64 * 1024;

const inCi = process.env.CI === 'true';

/** A file that takes the free space of the file system it is on, topped up while the fault lasts. */
class Filler {
  private fd: number | undefined;
  private readonly chunk = Buffer.alloc(1 << 20, 0x5a);

  constructor(
    private readonly dir: string,
    private readonly file: string,
  ) {}

  free(): number {
    const s = statfsSync(this.dir);
    return s.bavail * s.bsize;
  }

  /** Writes until at most `leave` bytes are free (0: until the file system refuses any more). */
  fill(leave: number): void {
    this.fd ??= openSync(this.file, 'a');
    for (;;) {
      const room = this.free() - leave;
      if (room <= 0) return;
      try {
        if (writeSync(this.fd, this.chunk, 0, Math.min(this.chunk.length, room)) === 0) return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOSPC') return;
        throw err;
      }
    }
  }

  release(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    rmSync(this.file, { force: true });
  }
}

/** The files (not directories) under `dir`, relative to it. */
function filesUnder(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => !e.isDirectory())
      .map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** Random bytes (no file type sniffs them: no renditions, so storage counts exactly the files), 200-400 KB. */
const payload = (): Buffer => randomBytes(200 * 1024 + Math.floor(Math.random() * 200 * 1024));

interface Attempt {
  via: 'server' | 'multipart' | 'version';
  name: string;
  size: number;
  uploaded?: Uploaded;
  /** The failed answer's status and code ("507 INSUFFICIENT_STORAGE"), when it failed. */
  failure?: string;
  /** The multipart flow's step that failed. */
  step?: string;
}

function answerKey(reply: Reply): string {
  try {
    return `${reply.status} ${reply.json<{ code?: string }>().code ?? ''}`.trim();
  } catch {
    return `${reply.status} ${/<Code>([^<]+)<\/Code>/.exec(reply.bytes.toString('utf8'))?.[1] ?? ''}`.trim();
  }
}

describe('a full disk (tmpfs: SQLite, local store, spool)', () => {
  let mountDir: string | undefined;
  let skipReason: string | undefined;
  let server: FaultServer;
  let load: Account;
  let jobsAccount: Account;
  let filler: Filler;

  beforeAll(async () => {
    if (process.getuid?.() !== 0) {
      skipReason = 'needs root to mount a tmpfs';
    } else {
      const dir = path.join(os.tmpdir(), `dam-faults-disk-${process.pid}`);
      mkdirSync(dir, { recursive: true });
      try {
        execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${TMPFS_SIZE}`, 'tmpfs', dir], { stdio: 'pipe' });
        mountDir = dir;
      } catch (err) {
        skipReason = `mounting a tmpfs failed: ${(err as { stderr?: Buffer }).stderr?.toString().trim() || (err as Error).message}`;
      }
    }
    if (skipReason) {
      if (inCi) throw new Error(`the full-disk fault test cannot run in CI: ${skipReason}`);
      return;
    }
    const dataDir = path.join(mountDir!, 'data');
    mkdirSync(dataDir);
    filler = new Filler(mountDir!, path.join(mountDir!, 'filler'));
    server = await startFaultServer(
      {
        // Payments on (the shipped plans; Stripe itself is never called here): the storage quota is reserved and counted.
        DAM_STRIPE_SECRET_KEY: 'sk_test_faults',
        DAM_STRIPE_WEBHOOK_SECRET: 'whsec_faults',
        DAM_STRIPE_API_URL: 'http://127.0.0.1:9',
        DAM_MIN_PART_SIZE: String(MIN_PART),
        DAM_JOB_POLL_INTERVAL: '200',
        DAM_JOB_CONCURRENCY: '2',
        // The load is one user's: not this test's subject.
        DAM_USER_RATE_LIMIT: '1000000',
        // /readyz calls the disk low below 1 MiB free (the tmpfs is smaller than the 512 MiB default).
        DAM_READY_MIN_FREE_BYTES: String(1024 * 1024),
      },
      dataDir,
    );
    // The first account is the instance admin (GET /admin/jobs).
    load = await register(server.base, 'load@faults.test');
    jobsAccount = await register(server.base, 'jobs@faults.test');
  }, 120_000);

  afterAll(async () => {
    filler?.release();
    await server?.stop();
    if (mountDir) {
      try {
        execFileSync('umount', [mountDir], { stdio: 'pipe' });
      } catch {
        execFileSync('umount', ['-l', mountDir], { stdio: 'pipe' });
      }
      rmSync(mountDir, { recursive: true, force: true });
    }
  });

  it('answers 507 and keeps nothing of a failed upload, lets jobs wait, and recovers by itself', async ({ skip }) => {
    if (skipReason) {
      skip(`skipped: ${skipReason}`);
      return;
    }
    const { base } = server;
    onTestFailed(() => console.log(`the server's last log lines:\n${server.logs().slice(-6000)}`));
    let tally = new Tally();
    const outside = new Tally();
    let inFault = false;
    const send = async (method: string, url: string, o: Parameters<typeof call>[3] = {}, account: Account = load): Promise<Reply> => {
      let reply: Reply;
      try {
        reply = await call(base, method, url, { token: account.token, ...o });
      } catch (err) {
        (inFault ? tally : outside).add(err as Error);
        throw err;
      }
      (inFault ? tally : outside).add(reply);
      return reply;
    };

    const attempts: Attempt[] = [];
    /** Aborts the fault refused (they are writes too): done again once space is back. */
    const pendingAborts: string[] = [];

    const serverUpload = async (): Promise<Attempt> => {
      const bytes = payload();
      const name = `server-${attempts.length}-${randomBytes(3).toString('hex')}.bin`;
      const attempt: Attempt = { via: 'server', name, size: bytes.length };
      attempts.push(attempt);
      const form = new FormData();
      form.set('workspaceId', String(load.workspaceId));
      form.set('file', new Blob([bytes], { type: 'application/octet-stream' }), name);
      const reply = await send('POST', '/api/upload-asset', { body: form });
      if (reply.status === 201) {
        const id = reply.json<{ data: { id: number } }>().data.id;
        attempt.uploaded = { assetId: id, key: `${load.workspaceId}/digital_assets/${id}`, sha256: sha256(bytes) };
      } else {
        attempt.failure = answerKey(reply);
        if (reply.status === 507) expect(reply.headers.get('retry-after')).toBe('60');
      }
      return attempt;
    };

    const multipartUpload = async (): Promise<Attempt> => {
      const bytes = payload();
      const name = `multipart-${attempts.length}-${randomBytes(3).toString('hex')}.bin`;
      const attempt: Attempt = { via: 'multipart', name, size: bytes.length };
      attempts.push(attempt);
      const ws = String(load.workspaceId);
      const start = await send('GET', `/storage/start-upload?${new URLSearchParams({ workspaceId: ws, fileType: 'application/octet-stream', fileName: name, fileSize: String(bytes.length) }).toString()}`);
      if (start.status !== 200) {
        attempt.failure = answerKey(start);
        attempt.step = 'start-upload';
        return attempt;
      }
      const { uploadId, assetId } = start.json<{ uploadId: string; assetId: number }>();
      const ref = new URLSearchParams({ UploadId: uploadId, assetId: String(assetId), workspaceId: ws });
      const fail = async (reply: Reply, step: string) => {
        attempt.failure = answerKey(reply);
        attempt.step = step;
        // As a client does with an upload it gives up on; a refused abort is left for later (or the stale-upload sweep).
        const abort = await send('DELETE', `/storage/abort-upload?${ref.toString()}`).catch(() => undefined);
        if (abort?.status !== 200) pendingAborts.push(ref.toString());
        return attempt;
      };
      const half = Math.ceil(bytes.length / 2);
      const parts: { PartNumber: number; ETag: string }[] = [];
      for (const [i, body] of [bytes.subarray(0, half), bytes.subarray(half)].entries()) {
        const q = new URLSearchParams({ PartNumber: String(i + 1), UploadId: uploadId, assetId: String(assetId), workspaceId: ws });
        const url = await send('GET', `/storage/get-upload-url?${q.toString()}`);
        if (url.status !== 200) return fail(url, 'get-upload-url');
        const partUrl = new URL(url.json<{ url: string }>().url);
        const put = await send('PUT', `${partUrl.pathname}${partUrl.search}`, { body, token: undefined });
        if (put.status !== 200) return fail(put, 'part');
        parts.push({ PartNumber: i + 1, ETag: put.headers.get('etag') ?? '' });
      }
      const complete = await send('POST', '/storage/complete-upload', { json: { uploadId, assetId, workspaceId: load.workspaceId, parts } });
      if (complete.status !== 200) return fail(complete, 'complete-upload');
      attempt.uploaded = { assetId, key: `${ws}/digital_assets/${assetId}`, sha256: sha256(bytes) };
      return attempt;
    };

    /** A multipart upload whose parts are in and whose completion is left for later (to be asked during the fault). */
    const stageMultipart = async () => {
      const bytes = payload();
      const attempt: Attempt = { via: 'multipart', name: `staged-${attempts.length}-${randomBytes(3).toString('hex')}.bin`, size: bytes.length };
      attempts.push(attempt);
      const ws = String(load.workspaceId);
      const query = new URLSearchParams({ workspaceId: ws, fileType: 'application/octet-stream', fileName: attempt.name, fileSize: String(bytes.length) });
      const { uploadId, assetId } = expectStatus(await send('GET', `/storage/start-upload?${query.toString()}`), 200, 'start-upload').json<{ uploadId: string; assetId: number }>();
      const half = Math.ceil(bytes.length / 2);
      const parts: { PartNumber: number; ETag: string }[] = [];
      for (const [i, body] of [bytes.subarray(0, half), bytes.subarray(half)].entries()) {
        const q = new URLSearchParams({ PartNumber: String(i + 1), UploadId: uploadId, assetId: String(assetId), workspaceId: ws });
        const partUrl = new URL(expectStatus(await send('GET', `/storage/get-upload-url?${q.toString()}`), 200, 'part url').json<{ url: string }>().url);
        const put = expectStatus(await send('PUT', `${partUrl.pathname}${partUrl.search}`, { body, token: undefined }), 200, 'part');
        parts.push({ PartNumber: i + 1, ETag: put.headers.get('etag') ?? '' });
      }
      return async () => {
        const reply = await send('POST', '/storage/complete-upload', { json: { uploadId, assetId, workspaceId: load.workspaceId, parts } });
        if (reply.status === 200) {
          attempt.uploaded = { assetId, key: `${ws}/digital_assets/${assetId}`, sha256: sha256(bytes) };
          attempt.failure = undefined;
          attempt.step = undefined;
        } else {
          attempt.failure = answerKey(reply);
          attempt.step = 'complete-upload';
        }
        return reply;
      };
    };

    let versionTarget = 0;
    const versionUpload = async (): Promise<Attempt> => {
      const bytes = payload();
      const name = `version-${attempts.length}-${randomBytes(3).toString('hex')}.bin`;
      const attempt: Attempt = { via: 'version', name, size: bytes.length };
      attempts.push(attempt);
      const form = new FormData();
      form.set('file', new Blob([bytes], { type: 'application/octet-stream' }), name);
      const reply = await send('POST', `/dam/assets/${versionTarget}/versions`, { body: form });
      if (reply.status === 201) {
        const id = reply.json<{ id: number }>().id;
        attempt.uploaded = { assetId: versionTarget, key: `${load.workspaceId}/digital_assets/${versionTarget}/versions/${id}`, sha256: sha256(bytes) };
      } else {
        attempt.failure = answerKey(reply);
      }
      return attempt;
    };

    /**
     * Metadata edits of about 60 KB each (the most a PATCH takes): rows only, several pages of the database's log per
     * edit, so that the database meets the full disk within the fault (SQLITE_FULL) instead of living on the room its
     * write-ahead log already has.
     */
    let editTarget = 0;
    const edits = { refused: 0, stored: 0, other: [] as string[] };
    let lastEdit: string | undefined;
    /** Phase 2 only: in phase 1 the database keeps its room, so that jobs get queued. */
    let editing = false;
    const edit = async () => {
      if (!editing) return;
      const note = randomBytes(30_000).toString('hex');
      const reply = await send('PATCH', `/dam/assets/${editTarget}`, { json: { metadata: { note } } });
      if (reply.status === 200) {
        edits.stored += 1;
        lastEdit = note;
      } else if (answerKey(reply) === '507 INSUFFICIENT_STORAGE') edits.refused += 1;
      else edits.other.push(`${reply.status} ${reply.bytes.toString('utf8').slice(0, 200)}`);
    };

    const uploaded = () => attempts.flatMap((a) => (a.uploaded ? [a.uploaded] : []));
    /** Reads: the catalog, a version list, and a download of an earlier upload (checked on the spot). */
    const readFailures: string[] = [];
    const read = async (url: string) => {
      const reply = await send('GET', url);
      if (reply.status !== 200) readFailures.push(`GET ${url}: ${reply.status} ${reply.bytes.toString('utf8').slice(0, 200)}`);
      return reply;
    };
    const reads = async () => {
      await read(`/dam/assets?workspaceId=${load.workspaceId}&per_page=20`);
      await read(`/dam/assets/${versionTarget}/versions`);
      const done = uploaded();
      const pick = done[Math.floor(Math.random() * done.length)];
      if (pick) {
        const reply = await read(`/storage/download?${new URLSearchParams({ key: pick.key, workspaceId: String(load.workspaceId) }).toString()}`);
        if (reply.status === 200 && sha256(reply.bytes) !== pick.sha256) readFailures.push(`download of ${pick.key}: other bytes`);
      }
    };

    let running = false;
    /** What went wrong in the load's own steps (a broken connection is tallied too, as "transport"). */
    const loadErrors: string[] = [];
    const client = async (withVersions: boolean) => {
      const steps = [serverUpload, multipartUpload, ...(withVersions ? [versionUpload] : [edit, edit]), reads];
      while (running) {
        for (const step of steps) {
          await step().catch((err: unknown) => loadErrors.push(`${step.name}: ${String(err)}; ${(err as Error).cause instanceof Error ? (err as { cause: Error }).cause.message : ''}`));
          // A steady load, not a flood: refusals are quick.
          await new Promise((resolve) => setTimeout(resolve, STEP_PAUSE_MS));
        }
      }
    };
    const runLoad = () => {
      running = true;
      const clients = [client(true), client(false)];
      return async () => {
        running = false;
        await Promise.all(clients);
      };
    };

    const usageOf = async (account: Account) =>
      expectStatus(await call(base, 'GET', `/payments/subscription?workspaceId=${account.workspaceId}`, { token: account.token }), 200, 'subscription').json<{
        data: { usage: { storage_bytes: number; assets: number } };
      }>().data.usage;
    const usage = async (account: Account) => (await usageOf(account)).storage_bytes;
    const reservedBytes = () => {
      // Not on any endpoint: the bytes reserved for uploads in flight, read from the database file itself.
      const db = new SQLite(path.join(server.dataDir, 'dam.sqlite'), { readonly: true, fileMustExist: true });
      try {
        return db.prepare('SELECT workspace_id, reserved_bytes FROM workspace_usage WHERE reserved_bytes <> 0').all() as { workspace_id: number; reserved_bytes: number }[];
      } finally {
        db.close();
      }
    };
    const jobsIdle = async () => {
      const page = expectStatus(await call(base, 'GET', '/admin/jobs?per_page=1', { token: load.token }), 200, 'admin jobs').json<{
        data: { counts: { queued: number; running: number } };
      }>().data.counts;
      return page.queued + page.running === 0 ? true : undefined;
    };

    // --- Before the fault: files of every kind, a version target, and (in another workspace) an image and a ZIP for jobs.
    for (let i = 0; i < 3; i++) {
      expect((await serverUpload()).uploaded, 'server upload before the fault').toBeDefined();
      expect((await multipartUpload()).uploaded, 'multipart upload before the fault').toBeDefined();
    }
    versionTarget = attempts[0]!.uploaded!.assetId;
    editTarget = attempts[1]!.uploaded!.assetId;
    const v1 = expectStatus(await call(base, 'GET', `/dam/assets/${versionTarget}/versions`, { token: load.token }), 200, 'versions').json<{ id: number }[]>()[0]!;
    // The asset key serves the current version: v1 is checked by its version key.
    attempts[0]!.uploaded!.key = `${load.workspaceId}/digital_assets/${versionTarget}/versions/${v1.id}`;
    expect((await versionUpload()).uploaded, 'version upload before the fault').toBeDefined();

    const image = await sharp(randomBytes(320 * 320 * 3), { raw: { width: 320, height: 320, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    const imageUpload = (await uploadFile(base, jobsAccount, image, 'noise.png')).uploaded!;
    expect(imageUpload, 'image upload').toBeDefined();
    const zip = new yazl.ZipFile();
    const entries = [randomBytes(300 * 1024), randomBytes(300 * 1024)];
    entries.forEach((bytes, i) => zip.addBuffer(bytes, `entry-${i}.bin`, { compress: false }));
    zip.end();
    const zipChunks: Buffer[] = [];
    for await (const chunk of zip.outputStream as AsyncIterable<Buffer>) zipChunks.push(chunk);
    const zipBytes = Buffer.concat(zipChunks);
    const zipUpload = (await uploadFile(base, jobsAccount, zipBytes, 'archive.zip')).uploaded!;
    expect(zipUpload, 'zip upload').toBeDefined();
    // Two uploads whose parts are in: completed during the fault (refused), and again after it.
    const staged = [await stageMultipart(), await stageMultipart()];
    await waitFor('the jobs of the first uploads', jobsIdle, 60_000);
    const storedBefore = await usage(load);
    const sizeBefore = attempts.filter((a) => a.uploaded).reduce((n, a) => n + a.size, 0);

    // --- The fault, phase 1: all but NEARLY_FULL_LEAVE bytes taken.
    inFault = true;
    const faultStarted = performance.now();
    filler.fill(NEARLY_FULL_LEAVE);
    let leave = NEARLY_FULL_LEAVE;
    const topUp = setInterval(() => filler.fill(leave), 100);
    const stopLoad = runLoad();
    let conversionId: number | undefined;
    let importId: number | undefined;
    try {
      // Jobs asked for now are queued (a small database write) and then fail on the disk: the source or an entry does not fit.
      await waitFor('a conversion and a ZIP import queued during the fault', async () => {
        if (conversionId === undefined) {
          const r = await send('POST', '/convert/image', { json: { assetId: imageUpload.assetId, format: 'webp' } }, jobsAccount);
          if (r.status === 202) conversionId = r.json<{ data: { id: number } }>().data.id;
        }
        if (importId === undefined) {
          const r = await send('POST', '/zip/extract', { json: { assetId: zipUpload.assetId } }, jobsAccount);
          if (r.status === 202) importId = r.json<{ data: { id: number } }>().data.id;
        }
        return conversionId !== undefined && importId !== undefined ? true : undefined;
      }, PHASE_NEARLY_FULL_MS);
      const waiting = await waitFor(
        'the jobs to wait for space ("the disk is full")',
        async () => {
          const page = expectStatus(await call(base, 'GET', '/admin/jobs?status=queued&per_page=100', { token: load.token }), 200, 'admin jobs').json<{
            data: { items: { kind: string; payload: unknown; last_error: string | null; attempts: number }[] };
          }>().data.items;
          const full = page.filter((j) => ['asset.convert', 'zip.import'].includes(j.kind) && /the disk is full/.test(j.last_error ?? ''));
          return new Set(full.map((j) => j.kind)).size === 2 ? full : undefined;
        },
        30_000,
      );
      for (const job of waiting) expect(job.last_error).toMatch(/^Waiting: the disk is full \(.*(ENOSPC|no space left)/i);
      // What the workspace's members see meanwhile.
      const waitingConversion = expectStatus(await call(base, 'GET', `/convert/status/${conversionId}`, { token: jobsAccount.token }), 200, 'conversion').json<{
        data: { status: string; error: string | null };
      }>().data;
      expect(waitingConversion).toMatchObject({ status: 'queued', error: 'Waiting: the disk is full; the conversion runs again by itself' });
      const waitingImport = expectStatus(await call(base, 'GET', `/zip/extract/${importId}`, { token: jobsAccount.token }), 200, 'zip import').json<{
        data: { status: string; error: string | null };
      }>().data;
      expect(waitingImport).toMatchObject({ status: 'queued', error: 'Waiting: the disk is full; the import goes on by itself' });
      const elapsed = performance.now() - faultStarted;
      if (elapsed < PHASE_NEARLY_FULL_MS) await new Promise((resolve) => setTimeout(resolve, PHASE_NEARLY_FULL_MS - elapsed));

      // Phase 2: every byte taken; the database's writes fail too (SQLITE_FULL), reads go on.
      leave = 0;
      filler.fill(0);
      editing = true;
      await new Promise((resolve) => setTimeout(resolve, PHASE_FULL_MS));
      // Joining parts already stored needs room too (the object's manifest, the rows): refused, the upload stays open.
      for (const complete of staged) {
        const reply = await complete();
        expect(answerKey(reply), `complete-upload during the fault: ${reply.bytes.toString('utf8').slice(0, 300)}`).toBe('507 INSUFFICIENT_STORAGE');
      }
      // A probe, not load: the readiness check names the disk.
      const notReady = await call(base, 'GET', '/readyz');
      expect(notReady.status).toBe(503);
      expect(notReady.json<{ checks: { disk: string } }>().checks.disk).toMatch(/^low: /);
    } finally {
      await stopLoad();
      clearInterval(topUp);
      inFault = false;
    }
    const faultSeconds = Math.round((performance.now() - faultStarted) / 100) / 10;
    const faultTally = tally;
    tally = new Tally();

    // --- Space returns: no restart.
    filler.release();
    const recoverSeconds = await secondsUntil('uploads to succeed again', async () => {
      const a = await serverUpload();
      const b = await multipartUpload();
      return a.uploaded !== undefined && b.uploaded !== undefined;
    });
    // Ready again, which closes the incident ("fault ended").
    const ready = await call(base, 'GET', '/readyz');
    expect(ready.status, ready.bytes.toString('utf8')).toBe(200);
    for (let i = 0; i < 2; i++) {
      expect((await serverUpload()).uploaded, 'server upload after the fault').toBeDefined();
      expect((await multipartUpload()).uploaded, 'multipart upload after the fault').toBeDefined();
      expect((await versionUpload()).uploaded, 'version upload after the fault').toBeDefined();
    }
    // The uploads whose completion was refused complete now, as they are.
    for (const complete of staged) {
      const reply = await complete();
      expect(reply.status, `complete-upload after the fault: ${reply.bytes.toString('utf8').slice(0, 300)}`).toBe(200);
    }
    for (const ref of pendingAborts.splice(0)) {
      const abort = await call(base, 'DELETE', `/storage/abort-upload?${ref}`, { token: load.token });
      expect([200, 404], `abort after the fault: ${abort.bytes.toString('utf8')}`).toContain(abort.status);
    }
    // The jobs that waited run once their delay is over (at most as long as the fault lasted).
    const conversion = await waitFor(
      'the conversion to succeed after the fault',
      async () => {
        const c = expectStatus(await call(base, 'GET', `/convert/status/${conversionId}`, { token: jobsAccount.token }), 200, 'conversion').json<{
          data: { status: string; error: string | null };
        }>().data;
        return c.status === 'queued' || c.status === 'running' ? undefined : c;
      },
      faultSeconds * 1000 + 60_000,
    );
    expect(conversion).toMatchObject({ status: 'succeeded' });
    const zipImport = await waitFor(
      'the ZIP import to succeed after the fault',
      async () => {
        const z = expectStatus(await call(base, 'GET', `/zip/extract/${importId}`, { token: jobsAccount.token }), 200, 'zip import').json<{
          data: { status: string; imported: number; failed: number; error: string | null };
        }>().data;
        return z.status === 'queued' || z.status === 'running' ? undefined : z;
      },
      faultSeconds * 1000 + 60_000,
    );
    expect(zipImport).toMatchObject({ status: 'succeeded', imported: 2, failed: 0 });
    await waitFor('the jobs to finish', jobsIdle, 60_000);

    // --- What the fault did.
    const failedDuring = attempts.filter((a) => a.failure);
    // By the step refused: start-upload writes rows and makes an empty directory (which a full tmpfs still takes), so
    // its 507s are the database's own writes refused (SQLITE_FULL), when the database met the full disk.
    const refusedBy: Record<string, number> = {};
    for (const a of failedDuring) refusedBy[`${a.via}${a.step ? ` ${a.step}` : ''}`] = (refusedBy[`${a.via}${a.step ? ` ${a.step}` : ''}`] ?? 0) + 1;
    console.log(
      `disk full: ${faultTally.requests} requests in ${faultSeconds} s, answers ${JSON.stringify(faultTally.statuses)}, ` +
        `uploads refused ${JSON.stringify(refusedBy)}, ${attempts.filter((a) => a.uploaded).length} stored, edits ${JSON.stringify(edits)}, ` +
        `recovered in ${recoverSeconds} s`,
    );
    expect(loadErrors).toEqual([]);
    // Reads go on whatever the disk: the catalog, version lists, downloads (the same bytes).
    expect(readFailures).toEqual([]);
    expect(Object.keys(faultTally.statuses).filter((k) => k.startsWith('500')), 'no 500 during the fault').toEqual([]);
    expect(faultTally.errors.transport ?? 0, 'no broken connection during the fault').toBe(0);
    // Every 5xx of the fault is the disk's: 507 in the error shape (the part URL's in S3's XML).
    expect(Object.keys(faultTally.errors).filter((k) => !['507 INSUFFICIENT_STORAGE', '507 XMinioStorageFull'].includes(k))).toEqual([]);
    expect(outside.errors, 'no 5xx before or after the fault').toEqual({});
    for (const via of ['server', 'multipart', 'version'] as const) {
      expect(failedDuring.filter((a) => a.via === via && a.failure?.startsWith('507')).length, `${via} uploads answered 507 during the fault`).toBeGreaterThan(0);
    }
    expect(failedDuring.every((a) => a.failure?.startsWith('507')), JSON.stringify(failedDuring.map((a) => a.failure))).toBe(true);
    // The database met the full disk too: its writes were refused with 507 (SQLITE_FULL), never a 500; the asset keeps
    // the last edit it took.
    expect(edits.other).toEqual([]);
    expect(edits.refused, 'metadata edits refused by the full database').toBeGreaterThan(0);
    const edited = expectStatus(await call(base, 'GET', `/dam/assets/${editTarget}`, { token: load.token }), 200, 'asset').json<{ data: { metadata: { note?: string } } }>();
    expect(edited.data.metadata.note === lastEdit, 'the last edit stored').toBe(true);

    // Nothing of a refused upload is left: not listed, no version, not counted, no reservation held.
    const listed: { id: number; file_name: string }[] = [];
    for (let page = 1; ; page++) {
      const body = expectStatus(await call(base, 'GET', `/dam/assets?workspaceId=${load.workspaceId}&per_page=250&page=${page}`, { token: load.token }), 200, 'list').json<{
        data: { items: { id: number; file_name: string }[]; total: number };
      }>().data;
      listed.push(...body.items);
      if (listed.length >= body.total || body.items.length === 0) break;
    }
    const storedAssets = new Set(attempts.filter((a) => a.uploaded && a.via !== 'version').map((a) => a.uploaded!.assetId));
    expect(listed.map((a) => a.id).sort((x, y) => x - y)).toEqual([...storedAssets].sort((x, y) => x - y));
    const refusedNames = new Set(failedDuring.map((a) => a.name));
    expect(listed.filter((a) => refusedNames.has(a.file_name))).toEqual([]);
    const versions = expectStatus(await call(base, 'GET', `/dam/assets/${versionTarget}/versions`, { token: load.token }), 200, 'versions').json<{ file_name: string }[]>();
    const versionNames = [attempts[0]!.name, ...attempts.filter((a) => a.uploaded && a.via === 'version').map((a) => a.name)];
    expect(versions.map((v) => v.file_name).sort()).toEqual(versionNames.sort());
    const sizeAfter = attempts.filter((a) => a.uploaded).reduce((n, a) => n + a.size, 0);
    expect(await usage(load), 'storage counted: the stored files, none of the refused').toBe(storedBefore + sizeAfter - sizeBefore);
    // Clean-ups the full database refused too are tried again in the background (faults/retry-later.ts: 1 s doubling
    // to 30 s): soon no storage stays reserved, nor an unlisted row of a refused upload counted against the plan.
    await waitFor(
      'the reservations of refused uploads to be released',
      async () => (reservedBytes().length === 0 ? true : undefined),
      40_000,
    ).catch((err: Error) => {
      const whose = reservedBytes().map((r) => JSON.stringify(attempts.filter((a) => a.size === r.reserved_bytes)));
      throw new Error(`${err.message}: ${JSON.stringify(reservedBytes())} (of ${whose.join('; ')})`);
    });
    await waitFor('the rows of refused uploads to go', async () => ((await usageOf(load)).assets === listed.length ? true : undefined), 40_000);

    // The operator saw one incident: one log line, and the metrics.
    expect(incidentLines(server.logs(), 'disk_full'), server.logs().slice(-4000)).toBe(1);
    expect(server.logs().split('\n').filter((l) => l.includes('fault ended') && l.includes('"fault":"disk_full"'))).toHaveLength(1);
    const metrics = (await call(base, 'GET', '/metrics')).bytes.toString('utf8');
    expect(metricValue(metrics, 'dam_fault_incidents_total', { fault: 'disk_full' })).toBe(1);
    expect(metricValue(metrics, 'dam_fault_active', { fault: 'disk_full' })).toBe(0);
    const refused = Object.entries(faultTally.errors).reduce((n, [, count]) => n + count, 0);
    expect(metricValue(metrics, 'dam_fault_failures_total', { fault: 'disk_full' })).toBeGreaterThanOrEqual(refused);

    // Nothing uploaded before, during or after the fault is lost; the database and the store agree.
    const { lost, details } = await countLost(base, load, uploaded());
    expect(details).toEqual([]);
    // No temporary file outlives its request or job (spooled uploads, part files, work directories), however it failed.
    for (const dir of ['tmp', 'storage/tmp', 'storage/multipart']) expect(filesUnder(path.join(server.dataDir, dir)), dir).toEqual([]);
    const verify = await adminVerify(server.env);
    recordFault({
      fault: 'disk full (tmpfs, SQLite + local store)',
      requests: faultTally.requests,
      errors: faultTally.errors,
      recoverSeconds,
      objectsLost: lost + (verify.code === 0 ? 0 : 1),
    });
    expect(verify.code, verify.output).toBe(0);
  });
});
