import type { FastifyBaseLogger } from 'fastify';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import type { JobsConfig } from '../src/config.js';
import type { DatabaseHandle } from '../src/db/database.js';
import { lockCandidates } from '../src/jobs/dialects/index.js';
import { JobQueue } from '../src/jobs/queue.js';
import { defineHandler, jobKind, PermanentJobError } from '../src/jobs/types.js';
import { JobWorker } from '../src/jobs/worker.js';
import { startHttpTestApp, startTestApp, type TestApp } from './helpers/app.js';
import { expectError } from './helpers/catalog-factories.js';
import { dialects, openTestDatabase } from './helpers/databases.js';
import { registerUser } from './helpers/factories.js';
import { listVersions, serverUpload } from './helpers/versions.js';

const quiet = { warn: () => undefined, error: () => undefined, info: () => undefined } as unknown as FastifyBaseLogger;
const CONFIG: JobsConfig = { concurrency: 2, pollIntervalMs: 50, leaseSeconds: 60, maxAttempts: 5, retryBaseSeconds: 10 };
const FLAKY = jobKind<{ label: string }>('test.flaky');

/** The durable job queue (src/jobs/) on each database: claims, retries with back-off, leases, restarts. */
describe.each(dialects)('job queue on %s', (dialect) => {
  const open: (DatabaseHandle | TestApp)[] = [];
  afterEach(async () => {
    for (const item of open.splice(0).reverse()) await item.close();
  });

  async function setup(config: Partial<JobsConfig> = {}) {
    const database = await openTestDatabase(dialect);
    open.push(database);
    const clock = { now: 1_000_000 };
    const makeQueue = () => new JobQueue(database.db, lockCandidates[dialect], { ...CONFIG, ...config }, () => clock.now);
    const queue = makeQueue();
    const job = (id: number) => database.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    return { database, clock, queue, makeQueue, job };
  }

  it('retries a job that fails twice, backing off 10 s then 20 s, and records its success', async () => {
    const { database, clock, queue, job } = await setup();
    const runs: string[] = [];
    const worker = new JobWorker(queue, CONFIG, quiet).register(
      defineHandler(FLAKY, ({ label }) => {
        runs.push(label);
        return runs.length <= 2 ? Promise.reject(new Error(`boom ${runs.length}`)) : Promise.resolve();
      }),
    );
    const id = await queue.enqueue(database.db, FLAKY, { label: 'a' });

    await worker.drain();
    expect(runs).toEqual(['a']);
    expect(await job(id)).toMatchObject({ status: 'queued', attempts: 1, run_at: clock.now + 10, locked_by: null });
    expect((await job(id)).last_error).toContain('boom 1');

    await worker.drain(); // not due yet
    expect(runs).toHaveLength(1);
    clock.now += 10;
    await worker.drain();
    expect(runs).toHaveLength(2);
    expect(await job(id)).toMatchObject({ status: 'queued', attempts: 2, run_at: clock.now + 20 });

    clock.now += 19;
    await worker.drain();
    expect(runs).toHaveLength(2);
    clock.now += 1;
    await worker.drain();
    expect(runs).toEqual(['a', 'a', 'a']);
    expect(await job(id)).toMatchObject({ status: 'succeeded', attempts: 3, last_error: null, finished_at: clock.now, locked_by: null });
  });

  it('fails a job for good after its last attempt, or at once on a permanent error, and tells its handler', async () => {
    const { database, clock, queue, job } = await setup({ maxAttempts: 2 });
    const gaveUp: string[] = [];
    const worker = new JobWorker(queue, CONFIG, quiet).register(
      defineHandler(
        FLAKY,
        ({ label }) => Promise.reject(label === 'permanent' ? new PermanentJobError('cannot ever work') : new Error('still broken')),
        ({ label }, error) => {
          gaveUp.push(`${label}: ${error}`);
          return Promise.resolve();
        },
      ),
    );
    const transient = await queue.enqueue(database.db, FLAKY, { label: 'transient' });
    const permanent = await queue.enqueue(database.db, FLAKY, { label: 'permanent' });
    await worker.drain();
    expect(await job(permanent)).toMatchObject({ status: 'failed', attempts: 1 });
    expect(await job(transient)).toMatchObject({ status: 'queued', attempts: 1 });
    clock.now += 10;
    await worker.drain();
    expect(await job(transient)).toMatchObject({ status: 'failed', attempts: 2, last_error: 'Error: still broken' });
    expect(gaveUp.sort()).toEqual(['permanent: PermanentJobError: cannot ever work', 'transient: Error: still broken']);
    clock.now += 3600;
    await worker.drain();
    expect((await job(transient)).attempts).toBe(2);
  });

  it('hands a job whose worker died to another worker once its lease runs out; the dead worker\'s late answer is ignored', async () => {
    const { database, clock, queue, makeQueue, job } = await setup();
    const id = await queue.enqueue(database.db, FLAKY, { label: 'x' });
    const [claimed] = await queue.claim('dead-worker', 10);
    expect(claimed).toMatchObject({ id, status: 'running', locked_by: 'dead-worker', locked_until: clock.now + 60 });

    const runs: string[] = [];
    const other = makeQueue();
    const worker = new JobWorker(other, CONFIG, quiet).register(defineHandler(FLAKY, ({ label }) => Promise.resolve(void runs.push(label))));
    await worker.drain();
    expect(runs).toEqual([]); // the lease still holds
    clock.now += 61;
    await worker.drain();
    expect(runs).toEqual(['x']);
    expect(await job(id)).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect(await queue.succeed(claimed!, 'dead-worker')).toBe('lost');
    expect(await queue.fail(claimed!, 'dead-worker', 'late', false)).toBe('lost');
    expect((await job(id)).status).toBe('succeeded');
  });

  it('survives a restart: a queued job is run by a worker started later', async () => {
    const { database, queue, makeQueue, job } = await setup();
    const id = await queue.enqueue(database.db, FLAKY, { label: 'later' });
    // No worker ran in the "first process". A new one (new id, new queue object) finds the job in the table.
    const runs: string[] = [];
    const worker = new JobWorker(makeQueue(), CONFIG, quiet).register(defineHandler(FLAKY, ({ label }) => Promise.resolve(void runs.push(label))));
    worker.start();
    await worker.drain();
    await worker.stop();
    expect(runs).toEqual(['later']);
    expect((await job(id)).status).toBe('succeeded');
  });

  it('never gives one job to two workers claiming at the same time', async () => {
    const { database, queue, makeQueue } = await setup();
    const ids = [];
    for (let i = 0; i < 60; i += 1) ids.push(await queue.enqueue(database.db, FLAKY, { label: String(i) }));
    const queues = [makeQueue(), makeQueue(), makeQueue(), makeQueue()];
    const claimed: number[] = [];
    for (let round = 0; round < 30 && claimed.length < ids.length; round += 1) {
      const batches = await Promise.all(queues.map((q, i) => q.claim(`worker-${i}`, 4)));
      for (const batch of batches) claimed.push(...batch.map((j) => j.id));
    }
    expect(claimed).toHaveLength(ids.length);
    expect(new Set(claimed).size).toBe(ids.length);
  });

  it('through the app: a version uploaded while no worker runs gets its thumbnail after a restart', async () => {
    const first = await startHttpTestApp({ dialect, config: { jobs: { ...CONFIG, concurrency: 0 } } });
    const owner = await registerUser(first);
    const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#c00' } }).jpeg().toBuffer();
    const asset = await serverUpload(first, owner, { bytes: jpeg, name: 'a.jpg', type: 'image/jpeg' });
    expect((await listVersions(first, owner, asset.id))[0]!.preview_status).toBe('pending');
    const queued = await first.request({ method: 'GET', url: '/admin/jobs?status=queued', token: owner.token });
    // No version.sha256 job: a file sent through the server is hashed as it arrives (issue #19).
    expect(queued.json<{ data: { items: { kind: string; payload: unknown }[] } }>().data.items).toEqual([
      expect.objectContaining({ kind: 'version.metadata', payload: { versionId: expect.any(Number) as number } }),
      expect.objectContaining({ kind: 'version.renditions', payload: { versionId: expect.any(Number) as number } }),
      // Queued by migration 0022 (issue #19): the hashing of files stored before it.
      expect.objectContaining({ kind: 'version.sha256_backfill', payload: { afterId: 0 } }),
    ]);
    await first.app.close(); // the process stops; its database stays

    const second = await startHttpTestApp({ database: first.database, config: { dataDir: first.config.dataDir } });
    open.push(second);
    await second.app.jobs.drain();
    const [v1] = await listVersions(second, owner, asset.id);
    expect(v1!.preview_status).toBe('ready');
    const thumb = await fetch(v1!.thumbnail_url);
    expect(thumb.status).toBe(200);
    expect(await sharp(Buffer.from(await thumb.arrayBuffer())).metadata()).toMatchObject({ width: 64, height: 48 });
  });
});

describe('GET /admin/jobs', () => {
  it('shows instance admins the jobs by status, with counts; others get 403', async () => {
    const t = await startTestApp();
    try {
      const admin = await registerUser(t); // the first user is the instance admin
      const member = await registerUser(t);
      await serverUpload(t, admin, { bytes: Buffer.from('doc'), name: 'a.txt', type: 'text/plain' });
      await t.app.jobs.drain();
      const res = await t.request({ method: 'GET', url: '/admin/jobs?status=succeeded', token: admin.token });
      expect(res.statusCode).toBe(200);
      const body = res.json<{ success: true; data: { items: { status: string; attempts: number }[]; total: number; counts: Record<string, number> } }>();
      expect(body.success).toBe(true);
      // The upload's renditions and embedded metadata (issue #12), and migration 0022's hash backfill; a file sent
      // through the server is hashed as it arrives, so no SHA-256 job (issue #19).
      expect(body.data.items).toHaveLength(3);
      for (const item of body.data.items) expect(item).toMatchObject({ status: 'succeeded', attempts: 1 });
      expect(body.data.counts).toEqual({ queued: 0, running: 0, succeeded: 3, failed: 0 });
      const failed = await t.request({ method: 'GET', url: '/admin/jobs?status=failed', token: admin.token });
      expect(failed.json<{ data: { total: number } }>().data.total).toBe(0);
      expectError(await t.request({ method: 'GET', url: '/admin/jobs', token: member.token }), 403, 'FORBIDDEN');
      expectError(await t.request({ method: 'GET', url: '/admin/jobs?status=lost', token: admin.token }), 400, 'VALIDATION_ERROR');
      expectError(await t.request({ method: 'GET', url: '/admin/jobs' }), 401, 'UNAUTHORIZED');
    } finally {
      await t.close();
    }
  });
});
