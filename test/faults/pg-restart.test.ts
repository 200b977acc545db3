import { randomBytes, randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectStatus, metricValue, sha256, throwawayDatabase, type Reply } from '../cluster/cluster.js';
import { adminVerify, countLost, incidentLines, recordFault, register, secondsUntil, startFaultServer, Tally, type Account, type FaultRow, type FaultServer, type Uploaded } from './harness.js';
import { canOwnCluster, ownCluster, waitForCluster, type OwnCluster } from './pg-cluster.js';
import { tempDir } from '../helpers/databases.js';
import { gatedFfmpeg, testClip } from '../helpers/media.js';

/**
 * Issue #37, "PostgreSQL restarts": the built server on a PostgreSQL cluster of the test's own (pg-cluster.ts), under a
 * steady load of reads, server uploads (with Idempotency-Key, retried as a client does), presigned multipart uploads
 * (complete-upload retried) and the jobs they queue, while PostgreSQL restarts (`pg_ctlcluster restart`) and then is
 * stopped for a few seconds. During each outage: no 500, no hang, every 5xx a 503 DATABASE_UNAVAILABLE with
 * Retry-After. After it: the load succeeds again by itself, every job succeeds, every upload is one asset with one
 * version whose bytes are those sent, and the outage was one incident (one "fault began" line).
 */

const CONNECT_TIMEOUT_S = 2;
/** No request may take longer than this during an outage: the connect timeout plus room for a loaded machine. */
const ANSWER_BOUND_MS = (CONNECT_TIMEOUT_S + 2) * 1000;
const LEASE_SECONDS = 10;
const STOPPED_SECONDS = 4;

interface JobJson {
  id: number;
  kind: string;
  payload: unknown;
  status: string;
  attempts: number;
}

interface Timed {
  started: number;
  ms: number;
  what: string;
  reply: Reply | Error;
}

/** Distinct small PNGs (noise, so that every upload is new bytes), large enough for two 1 KiB parts. */
async function noisePng(): Promise<Buffer> {
  return sharp(randomBytes(48 * 48 * 3), { raw: { width: 48, height: 48, channels: 3 } })
    .png()
    .toBuffer();
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const codeOf = (reply: Reply): string | undefined => {
  try {
    return reply.json<{ code?: string }>().code;
  } catch {
    return undefined;
  }
};

describe.skipIf(!canOwnCluster() && process.env.CI !== 'true')('PostgreSQL restarting under load', () => {
  let cluster: OwnCluster;
  let dropDatabase: (() => Promise<void>) | undefined;
  let server: FaultServer;
  let account: Account;
  /** The server's log lines about incidents, all of them (harness logs() keeps only the last 16 KiB). */
  const incidentLog: string[] = [];
  const timed: Timed[] = [];
  const uploads: (Uploaded & { name: string; how: 'server' | 'multipart' })[] = [];
  const failures: string[] = [];
  let running = false;
  let counter = 0;
  /** While this file exists, conversions wait (gatedFfmpeg): one is held running into the second outage. */
  const gate = path.join(tempDir('dam-gate-'), 'closed');
  let conversionId = 0;
  let clip: (Uploaded & { name: string }) | undefined;
  /** The table's rows (recordFault), written once the objects are counted. */
  const rows: FaultRow[] = [];

  /** One request, timed and kept for the tally. */
  async function request(what: string, method: string, pathAndQuery: string, o: Parameters<typeof call>[3] = {}): Promise<Reply | Error> {
    const started = performance.now();
    const reply = await call(server.base, method, pathAndQuery, { token: account.token, ...o }).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
    timed.push({ started, ms: performance.now() - started, what, reply });
    return reply;
  }

  /**
   * The request again until it answers `ok`, as a client following Retry-After does (at most 1 s apart here, to keep
   * the load up): 503 and 409 IDEMPOTENCY_KEY_IN_USE are waited out; any other answer is a failure of the test.
   */
  async function untilOk(what: string, ok: number, send: () => Promise<Reply | Error>): Promise<Reply | undefined> {
    const deadline = performance.now() + 60_000;
    for (;;) {
      const reply = await send();
      if (!(reply instanceof Error) && reply.status === ok) return reply;
      const retriable = reply instanceof Error || reply.status === 503 || (reply.status === 409 && codeOf(reply) === 'IDEMPOTENCY_KEY_IN_USE');
      if (!retriable || performance.now() > deadline) {
        failures.push(`${what}: ${reply instanceof Error ? reply.message : `${reply.status} ${reply.bytes.toString('utf8').slice(0, 300)}`}`);
        return undefined;
      }
      const retryAfter = reply instanceof Error ? 1 : Number(reply.headers.get('retry-after') ?? 1);
      await sleep(Math.min(1000, retryAfter * 1000));
    }
  }

  async function serverUpload(): Promise<void> {
    const bytes = await noisePng();
    const name = `server-${(counter += 1)}.png`;
    const key = randomUUID();
    const reply = await untilOk(`upload ${name}`, 201, () => {
      const form = new FormData();
      form.set('workspaceId', String(account.workspaceId));
      form.set('file', new Blob([bytes], { type: 'image/png' }), name);
      return request('server upload', 'POST', '/api/upload-asset', { body: form, headers: { 'idempotency-key': key } });
    });
    if (!reply) return;
    const assetId = reply.json<{ data: { id: number } }>().data.id;
    uploads.push({ assetId, key: `${account.workspaceId}/digital_assets/${assetId}`, sha256: sha256(bytes), name, how: 'server' });
  }

  async function multipartUpload(): Promise<void> {
    const bytes = await noisePng();
    const name = `multipart-${(counter += 1)}.png`;
    const ws = String(account.workspaceId);
    const qs = new URLSearchParams({ workspaceId: ws, fileType: 'image/png', fileName: name });
    const started = await untilOk(`start-upload ${name}`, 200, () => request('start-upload', 'GET', `/storage/start-upload?${qs.toString()}`));
    if (!started) return;
    const { uploadId, assetId } = started.json<{ uploadId: string; assetId: number }>();
    const half = Math.ceil(bytes.length / 2);
    const parts: { PartNumber: number; ETag: string }[] = [];
    for (const [i, body] of [bytes.subarray(0, half), bytes.subarray(half)].entries()) {
      const ref = new URLSearchParams({ PartNumber: String(i + 1), UploadId: uploadId, assetId: String(assetId), workspaceId: ws });
      const signed = await untilOk(`get-upload-url ${name}`, 200, () => request('get-upload-url', 'GET', `/storage/get-upload-url?${ref.toString()}`));
      if (!signed) return;
      const url = new URL(signed.json<{ url: string }>().url);
      const put = await untilOk(`part ${i + 1} of ${name}`, 200, () => request('part', 'PUT', `${url.pathname}${url.search}`, { body, token: undefined }));
      if (!put) return;
      parts.push({ PartNumber: i + 1, ETag: put.headers.get('etag')! });
    }
    const done = await untilOk(`complete-upload ${name}`, 200, () =>
      request('complete-upload', 'POST', '/storage/complete-upload', { json: { uploadId, assetId, workspaceId: account.workspaceId, parts } }),
    );
    if (!done) return;
    uploads.push({ assetId, key: done.json<{ key: string }>().key, sha256: sha256(bytes), name, how: 'multipart' });
  }

  async function reads(): Promise<void> {
    await request('me', 'GET', '/auth/me');
    await request('list', 'GET', `/dam/assets?workspaceId=${account.workspaceId}&per_page=20`);
    const some = uploads[Math.floor(Math.random() * uploads.length)];
    if (some) await request('download', 'GET', `/storage/download?${new URLSearchParams({ key: some.key, workspaceId: String(account.workspaceId) }).toString()}`);
  }

  /** The load: each loop repeats its step until `running` goes false; answers when every loop finished its step. */
  function startLoad(): Promise<void> {
    running = true;
    const loop = async (step: () => Promise<void>, pauseMs: number) => {
      while (running) {
        await step();
        await sleep(pauseMs);
      }
    };
    return Promise.all([loop(reads, 50), loop(reads, 50), loop(reads, 50), loop(serverUpload, 100), loop(serverUpload, 100), loop(multipartUpload, 100)]).then(
      () => undefined,
    );
  }

  /** The job of the conversion (newest first; the first page holds it while the test runs). */
  async function conversionJob(): Promise<JobJson | undefined> {
    const reply = await call(server.base, 'GET', '/admin/jobs?per_page=250', { token: account.token });
    if (reply.status !== 200) return undefined;
    return reply.json<{ data: { items: JobJson[] } }>().data.items.find((j) => j.kind === 'asset.convert' && (j.payload as { conversionId?: number }).conversionId === conversionId);
  }

  /** A round of the load answered as it should: the database is back for the requests. */
  async function fullRound(): Promise<boolean> {
    const me = await call(server.base, 'GET', '/auth/me', { token: account.token });
    const list = await call(server.base, 'GET', `/dam/assets?workspaceId=${account.workspaceId}&per_page=5`, { token: account.token });
    return me.status === 200 && list.status === 200;
  }

  /** The incident lines, shortened (the error's stack left out), for a failure's message. */
  const incidents = () => incidentLog.map((line) => line.replace(/"err":\{.*?"stack":"[^"]*"[^}]*\},?/, '').slice(0, 400)).join('\n');
  const faultEnded = () => incidentLog.filter((line) => line.includes('fault ended') && line.includes('"fault":"database_unavailable"')).length;

  /** Runs `fault` (PostgreSQL back when it resolves) and measures it: the answers meanwhile, and the time until the load succeeds. */
  async function measure(name: string, fault: () => Promise<void>): Promise<void> {
    const endedBefore = faultEnded();
    const began = performance.now();
    await fault();
    const recoverSeconds = await secondsUntil(`the requests to succeed after "${name}"`, fullRound, 60_000, 100);
    const recovered = performance.now();
    // The incident closes when the job worker's next claim succeeds (FaultMonitor.recovered).
    await secondsUntil('the "fault ended" line', () => Promise.resolve(faultEnded() > endedBefore), 30_000);

    const during = timed.filter((t) => t.started >= began && t.started <= recovered);
    const tally = new Tally();
    for (const t of during) tally.add(t.reply);
    const slowest = during.reduce((max, t) => Math.max(max, t.ms), 0);
    console.log(`${name}: ${during.length} requests in ${((recovered - began) / 1000).toFixed(1)} s, answers ${JSON.stringify(tally.statuses)}, slowest ${Math.round(slowest)} ms, recovered ${recoverSeconds} s after PostgreSQL was back`);

    expect(tally.errors.transport ?? 0, 'requests without an answer').toBe(0);
    expect(tally.unexpected, 'bare 500s').toBe(0);
    // The presigned part URL speaks S3 (src/http/s3-errors.ts): its 503 is S3's ServiceUnavailable document.
    for (const key of Object.keys(tally.errors)) expect(['503 DATABASE_UNAVAILABLE', '503 ServiceUnavailable'], 'every 5xx is a 503 DATABASE_UNAVAILABLE').toContain(key);
    expect(tally.errors['503 DATABASE_UNAVAILABLE'] ?? 0, 'the outage was seen by the load').toBeGreaterThan(0);
    for (const t of during) {
      if (t.reply instanceof Error || t.reply.status !== 503) continue;
      expect(Number(t.reply.headers.get('retry-after')), `Retry-After of a 503 (${t.what})`).toBeGreaterThan(0);
    }
    expect(slowest, 'the slowest answer during the outage (ms)').toBeLessThan(ANSWER_BOUND_MS);
    rows.push({ fault: name, requests: during.length, errors: tally.errors, recoverSeconds, objectsLost: 0 });
  }

  beforeAll(async () => {
    if (!canOwnCluster()) throw new Error('CI=true: this test must run, and needs root with pg_createcluster/pg_ctlcluster (postgresql-common)');
    cluster = await ownCluster();
    const database = await throwawayDatabase(cluster.adminUrl);
    dropDatabase = database.drop;
    server = await startFaultServer({
      DATABASE_URL: database.url,
      DAM_DB_CONNECT_TIMEOUT: String(CONNECT_TIMEOUT_S),
      DAM_DB_STATEMENT_TIMEOUT: '10',
      DAM_JOB_LEASE: String(LEASE_SECONDS),
      DAM_JOB_POLL_INTERVAL: '200',
      DAM_JOB_CONCURRENCY: '2',
      DAM_MIN_PART_SIZE: '1024',
      DAM_USER_RATE_LIMIT: '1000000',
      DAM_VIDEO_PREVIEWS: 'false',
      FFMPEG_PATH: gatedFfmpeg(gate),
    });
    server.child.stdout?.on('data', (chunk: string | Buffer) => {
      for (const line of chunk.toString().split('\n')) if (line.includes('fault began') || line.includes('fault ended')) incidentLog.push(line);
    });
    account = await register(server.base);
    // The source of the conversion held into the second outage; its poster is made at once (no gate for posters).
    const bytes = testClip({ seconds: 1, size: '160x120', rate: 10, sound: false });
    const form = new FormData();
    form.set('workspaceId', String(account.workspaceId));
    form.set('file', new Blob([bytes], { type: 'video/mp4' }), 'clip.mp4');
    const assetId = expectStatus(await call(server.base, 'POST', '/api/upload-asset', { token: account.token, body: form }), 201, 'clip upload').json<{ data: { id: number } }>().data.id;
    clip = { assetId, key: `${account.workspaceId}/digital_assets/${assetId}`, sha256: sha256(bytes), name: 'clip.mp4' };
  });

  afterAll(async () => {
    running = false;
    rmSync(gate, { force: true });
    await server?.stop();
    // The cluster may have been left stopped by a failed step.
    if (cluster) {
      await cluster.start().catch(() => undefined);
      await waitForCluster(cluster.adminUrl).catch(() => undefined);
    }
    await dropDatabase?.();
  });

  it('answers 503 DATABASE_UNAVAILABLE with Retry-After while PostgreSQL restarts and is stopped, and recovers by itself', async () => {
    const load = startLoad();
    try {
      await sleep(3000);
      expect(uploads.length, 'uploads before the fault').toBeGreaterThan(0);
      await measure('PostgreSQL restart', () => cluster.restart());
      expect(incidentLines(incidentLog.join('\n'), 'database_unavailable'), `one "fault began" line for the restart:\n${incidents()}`).toBe(1);
      await sleep(2000);
      // A job running when PostgreSQL goes away and finishing while it is away: its outcome cannot be recorded, and it
      // runs again (postponed once the database is back, or claimed again after its lease).
      writeFileSync(gate, '');
      conversionId = expectStatus(await call(server.base, 'POST', '/convert/video', { token: account.token, json: { assetId: clip!.assetId, format: 'mp4' } }), 202, 'convert')
        .json<{ data: { id: number } }>().data.id;
      await secondsUntil('the conversion job to run', async () => (await conversionJob())?.status === 'running', 30_000);
      await measure(`PostgreSQL stopped ${STOPPED_SECONDS} s`, async () => {
        await cluster.stop();
        rmSync(gate);
        await sleep(STOPPED_SECONDS * 1000);
        await cluster.start();
      });
      expect(incidentLines(incidentLog.join('\n'), 'database_unavailable'), `one "fault began" line per outage:\n${incidents()}`).toBe(2);
      await sleep(2000);
    } finally {
      running = false;
      await load;
    }
    expect(failures, 'uploads that never succeeded').toEqual([]);
    expect(server.child.exitCode, 'the server is still running').toBeNull();
    const metrics = await (await fetch(`${server.base}/metrics`)).text();
    expect(metricValue(metrics, 'dam_fault_incidents_total', { fault: 'database_unavailable' })).toBe(2);
  });

  it('runs every job to success, those claimed before an outage after their lease', async () => {
    type Counts = { queued: number; running: number; succeeded: number; failed: number };
    const counts = async () => expectStatus(await call(server.base, 'GET', '/admin/jobs?per_page=1', { token: account.token }), 200, 'jobs').json<{ data: { counts: Counts } }>().data.counts;
    // Postponed by a fault (5 s and up) or held by a lease that must run out (LEASE_SECONDS).
    await secondsUntil(
      'every job to finish',
      async () => {
        const c = await counts();
        return c.queued === 0 && c.running === 0;
      },
      90_000,
      500,
    );
    const final = await counts();
    expect(final.failed, 'failed jobs').toBe(0);
    expect(final.succeeded).toBeGreaterThanOrEqual(uploads.length);
    // Jobs that ran more than once: their first run was cut by an outage (lease ran out, or postponed by the fault).
    const again: { kind: string; attempts: number }[] = [];
    for (let page = 1; ; page += 1) {
      const list = expectStatus(await call(server.base, 'GET', `/admin/jobs?status=succeeded&per_page=250&page=${page}`, { token: account.token }), 200, 'jobs')
        .json<{ data: { items: { kind: string; attempts: number }[] } }>().data.items;
      again.push(...list.filter((j) => j.attempts > 1));
      if (list.length < 250) break;
    }
    console.log(`jobs: ${final.succeeded} succeeded, ${again.length} of them after more than one run`);
    // The conversion held running into the outage: its first run's outcome could not be recorded. Its postponement is
    // written as soon as the database is back (faults/retry-later.ts writeNowOrLater), giving its attempt back; should
    // the lease run out first, the job is claimed again on a second attempt. Either way it ran again and succeeded once.
    const status = expectStatus(await call(server.base, 'GET', `/convert/status/${conversionId}`, { token: account.token }), 200, 'status').json<{ data: { status: string } }>();
    expect(status.data.status).toBe('succeeded');
    expect((await conversionJob())?.attempts, 'attempts of the conversion job').toBeLessThanOrEqual(2);
    // Every upload's renditions were made.
    for (const u of uploads) {
      const versions = expectStatus(await call(server.base, 'GET', `/dam/assets/${u.assetId}/versions`, { token: account.token }), 200, 'versions').json<{ preview_status: string }[]>();
      expect(versions[0]!.preview_status, `renditions of ${u.name}`).toBe('ready');
    }
  });

  it('loses nothing and records no upload twice or half', async () => {
    const lost = await countLost(server.base, account, [...uploads, clip!]);
    expect(lost.details).toEqual([]);
    // Every upload is one asset with one version: a retried upload (Idempotency-Key, complete-upload) did not act twice.
    const names: string[] = [];
    for (let page = 1; ; page += 1) {
      const items = expectStatus(await call(server.base, 'GET', `/dam/assets?workspaceId=${account.workspaceId}&per_page=250&page=${page}`, { token: account.token }), 200, 'assets')
        .json<{ data: { items: { file_name: string }[] } }>().data.items;
      names.push(...items.map((a) => a.file_name).filter((name) => /^(server|multipart)-/.test(name)));
      if (items.length < 250) break;
    }
    const counted = new Map<string, number>();
    for (const name of names) counted.set(name, (counted.get(name) ?? 0) + 1);
    expect([...counted].filter(([, n]) => n > 1), 'file names listed more than once').toEqual([]);
    expect(names.length, 'assets listed').toBe(uploads.length);
    for (const u of uploads) {
      expect(counted.get(u.name), u.name).toBe(1);
      const versions = expectStatus(await call(server.base, 'GET', `/dam/assets/${u.assetId}/versions`, { token: account.token }), 200, 'versions').json<unknown[]>();
      expect(versions, `versions of ${u.name}`).toHaveLength(1);
    }
    // `npm run admin -- verify`: every asset has its object and every object its asset, hashes equal.
    const verify = await adminVerify(server.env);
    expect(verify.code, verify.output).toBe(0);
    console.log(`${uploads.length} uploads (${uploads.filter((u) => u.how === 'multipart').length} multipart), ${lost.lost} lost`);
    for (const row of rows) recordFault({ ...row, objectsLost: lost.lost });
  });
});
