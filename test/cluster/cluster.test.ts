import type { ChildProcess } from 'node:child_process';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testClip, wrappedFfmpeg } from '../helpers/media.js';
import { startS3Server, type S3Server } from '../helpers/uploads.js';
import {
  call,
  expectStatus,
  killNode,
  metricValue,
  requirePgUrl,
  sha256,
  startNode,
  stopNodes,
  throwawayDatabase,
  waitFor,
  type Node,
  type Reply,
} from './cluster.js';
import { Tally } from '../faults/harness.js';
import { canOwnCluster, ownCluster, type OwnCluster } from '../faults/pg-cluster.js';

/**
 * Issue #18, "Prove it": two DAM_ROLE=api and two DAM_ROLE=worker processes of the built server on one
 * PostgreSQL database and one s3rver bucket, without DAM_JWT_SECRET (the secret comes from the
 * database). Every request goes round-robin to the API processes unless a step needs a given one.
 * The steps run in order on one cluster.
 *
 * The database is on a PostgreSQL cluster of the suite's own (test/faults/pg-cluster.ts, as root) so that one step can
 * restart PostgreSQL under load (issue #37); elsewhere on DAM_TEST_DATABASE_URL, without that step (CI runs it).
 */

/** Sign-in attempts per address in the window, shared by every process (login, registration). */
const LOGIN_LIMIT = 12;
const LEASE_SECONDS = 10;

interface Stored {
  what: string;
  /** Downloaded from any process: `/storage/download?...` or `/dam/versions/:id/download`. */
  path: string;
  sha256: string;
}

interface AuthAnswer {
  token: string;
  workspaces: { id: number }[];
}

interface VersionJson {
  id: number;
  version: string;
  is_current: boolean;
  preview_status: string;
  thumbnail_url: string;
}

interface JobJson {
  id: number;
  kind: string;
  payload: unknown;
  status: string;
  attempts: number;
  locked_by: string | null;
}

describe('a cluster of two API and two worker processes on PostgreSQL and S3', () => {
  const children = new Set<ChildProcess>();
  let s3: S3Server;
  let dropDatabase: (() => Promise<void>) | undefined;
  /** The suite's own PostgreSQL, which a step restarts; undefined on a machine where the suite cannot own one. */
  let pgCluster: OwnCluster | undefined;
  let apis: Node[];
  let workers: Node[];
  let token: string;
  let ws: number;
  let password: string;
  let email: string;
  /** Sign-in requests counted against 127.0.0.1 so far (registration and logins share the limit). */
  const stored: Stored[] = [];
  const imageAssets: number[] = [];
  let turn = 0;

  /** The next API process, round-robin over the live ones. */
  const api = (): string => {
    const live = apis.filter((n) => n.child.exitCode === null && n.child.signalCode === null);
    turn += 1;
    return live[turn % live.length]!.base;
  };
  const authed = (base: string, method: string, path: string, o: Parameters<typeof call>[3] = {}): Promise<Reply> => call(base, method, path, { token, ...o });

  beforeAll(async () => {
    if (canOwnCluster()) pgCluster = await ownCluster();
    else if (process.env.CI === 'true') throw new Error('CI=true: the cluster suite restarts a PostgreSQL of its own and needs root with pg_createcluster/pg_ctlcluster');
    const database = await throwawayDatabase(pgCluster?.adminUrl ?? requirePgUrl());
    dropDatabase = database.drop;
    s3 = await startS3Server();
    const bucket = await s3.newBucket();
    const env: Record<string, string> = {
      DATABASE_URL: database.url,
      DAM_STORAGE: 's3',
      DAM_S3_BUCKET: bucket.bucket,
      DAM_S3_ENDPOINT: bucket.endpoint!,
      DAM_S3_FORCE_PATH_STYLE: 'true',
      DAM_S3_ACCESS_KEY_ID: bucket.accessKeyId!,
      DAM_S3_SECRET_ACCESS_KEY: bucket.secretAccessKey!,
      DAM_MIN_PART_SIZE: '1024',
      DAM_LOGIN_RATE_LIMIT: String(LOGIN_LIMIT),
      DAM_JOB_LEASE: String(LEASE_SECONDS),
      DAM_JOB_POLL_INTERVAL: '200',
      DAM_JOB_CONCURRENCY: '2',
      // Conversions read their input at the clip's own pace: a job slow enough to kill its worker in.
      FFMPEG_PATH: wrappedFfmpeg('realtime'),
      DAM_VIDEO_PREVIEWS: 'false',
    };
    // All four at once: they race to migrate and to generate the one secret, as a real rollout does.
    const nodes = await Promise.all([startNode('api', env, children), startNode('api', env, children), startNode('worker', env, children), startNode('worker', env, children)]);
    apis = nodes.slice(0, 2);
    workers = nodes.slice(2);
  });

  afterAll(async () => {
    await stopNodes(children);
    await s3?.close();
    await dropDatabase?.();
  });

  it('registers on one API process and uses the token on the other', async () => {
    const [a, b] = apis.map((n) => n.base) as [string, string];
    email = 'owner@cluster.test';
    password = 'a long cluster password';
    const reg = expectStatus(await call(a, 'POST', '/auth/register', { json: { email, password, name: 'Owner' } }), 201, 'register').json<AuthAnswer>();
    ws = reg.workspaces[0]!.id;
    token = expectStatus(await call(b, 'POST', '/auth/login', { json: { email, password } }), 200, 'login').json<AuthAnswer>().token;
    expect((await call(a, 'GET', '/auth/me', { token })).status).toBe(200);
    expect((await call(b, 'GET', '/auth/me', { token: reg.token })).status).toBe(200);
    // Workers answer health only.
    for (const w of workers) expect((await call(w.base, 'GET', '/healthz')).status).toBe(200);
    expect((await call(workers[0]!.base, 'GET', '/auth/me', { token })).status).toBe(404);
  });

  /** start on one process, each part's URL from the next, complete on the other one than started. */
  async function multipartUpload(bytes: Buffer, fileName: string, fileType: string, partSize: number): Promise<{ assetId: number; key: string }> {
    const starter = api();
    const qs = new URLSearchParams({ workspaceId: String(ws), fileType, fileName });
    const start = expectStatus(await authed(starter, 'GET', `/storage/start-upload?${qs.toString()}`), 200, 'start-upload').json<{ uploadId: string; assetId: number }>();
    const parts: { PartNumber: number; ETag: string }[] = [];
    for (let at = 0, n = 1; at < bytes.length; at += partSize, n += 1) {
      const ref = new URLSearchParams({ PartNumber: String(n), UploadId: start.uploadId, assetId: String(start.assetId), workspaceId: String(ws) });
      const { url } = expectStatus(await authed(api(), 'GET', `/storage/get-upload-url?${ref.toString()}`), 200, 'get-upload-url').json<{ url: string }>();
      const put = await fetch(url, { method: 'PUT', body: bytes.subarray(at, at + partSize) });
      await put.arrayBuffer();
      expect(put.status).toBe(200);
      parts.push({ PartNumber: n, ETag: put.headers.get('etag')! });
    }
    const finisher = apis.map((n) => n.base).find((base) => base !== starter)!;
    const done = expectStatus(
      await authed(finisher, 'POST', '/storage/complete-upload', { json: { uploadId: start.uploadId, assetId: start.assetId, workspaceId: ws, parts } }),
      200,
      'complete-upload',
    ).json<{ key: string }>();
    return { assetId: start.assetId, key: done.key };
  }

  const downloadPath = (key: string) => `/storage/download?${new URLSearchParams({ key, workspaceId: String(ws) }).toString()}`;

  it('runs multipart uploads whose parts go to alternating processes and complete on the other', async () => {
    for (let i = 0; i < 3; i += 1) {
      const bytes = Buffer.concat([Buffer.from(`file ${i}\n`), Buffer.alloc(200_000 + i * 7_777, i + 1)]);
      const { key } = await multipartUpload(bytes, `data-${i}.bin`, 'application/octet-stream', 64 * 1024);
      stored.push({ what: `data-${i}.bin`, path: downloadPath(key), sha256: sha256(bytes) });
    }
    for (let i = 0; i < 2; i += 1) {
      const png = await sharp({ create: { width: 1600, height: 1200, channels: 3, background: { r: 40 * i, g: 120, b: 200 } } })
        .png()
        .toBuffer();
      const { assetId, key } = await multipartUpload(png, `photo-${i}.png`, 'image/png', 8 * 1024);
      imageAssets.push(assetId);
      stored.push({ what: `photo-${i}.png`, path: downloadPath(key), sha256: sha256(png) });
    }
  });

  it('uploads versions concurrently through both: distinct labels, exactly one current', async () => {
    const assetId = imageAssets[0]!;
    const files = Array.from({ length: 10 }, (_, i) => Buffer.from(`version ${i} of the photo notes\n`.repeat(50 + i)));
    const answers = await Promise.all(
      files.map(async (bytes, i) => {
        const form = new FormData();
        form.append('file', new Blob([bytes], { type: 'text/plain' }), `v-${i}.txt`);
        return authed(apis[i % 2]!.base, 'POST', `/dam/assets/${assetId}/versions`, { body: form });
      }),
    );
    for (const r of answers) expectStatus(r, 201, 'version upload');
    const created = answers.map((r) => r.json<VersionJson>());
    expect(new Set(created.map((v) => v.version)).size).toBe(10);
    for (const [i, v] of created.entries()) stored.push({ what: `version ${v.version}`, path: `/dam/versions/${v.id}/download`, sha256: sha256(files[i]!) });
    for (const { base } of apis) {
      const list = expectStatus(await authed(base, 'GET', `/dam/assets/${assetId}/versions`), 200, 'versions').json<VersionJson[]>();
      expect(list).toHaveLength(11);
      expect(new Set(list.map((v) => v.version)).size).toBe(11);
      expect(list.filter((v) => v.is_current)).toHaveLength(1);
      expect(list.find((v) => v.is_current)!.version).toBe('v11');
    }
    // The photo's own file is its v1 now; the asset's key downloads the current version.
    const list = expectStatus(await authed(api(), 'GET', `/dam/assets/${assetId}/versions`), 200, 'versions').json<VersionJson[]>();
    stored.find((f) => f.what === 'photo-0.png')!.path = `/dam/versions/${list.find((v) => v.version === 'v1')!.id}/download`;
  });

  it('has the workers make the thumbnails, served by either API process', async () => {
    const assetId = imageAssets[1]!;
    const v1 = await waitFor('the thumbnail of the second photo', async () => {
      const list = expectStatus(await authed(api(), 'GET', `/dam/assets/${assetId}/versions`), 200, 'versions').json<VersionJson[]>();
      return list[0]!.preview_status === 'ready' ? list[0] : undefined;
    });
    // A signed URL minted by one process verifies on the other (one secret, from the database).
    for (const { base } of apis) {
      const url = new URL(v1.thumbnail_url);
      const res = await fetch(`${base}${url.pathname}${url.search}`);
      expect(res.status).toBe(200);
      const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
      expect(Math.max(meta.width, meta.height)).toBe(256);
    }
    // Only workers ran jobs: the API processes have no job runs in their metrics.
    const runs = async (n: Node) => metricValue(await (await fetch(`${n.base}/metrics`)).text(), 'dam_job_duration_seconds_count', { kind: 'version.renditions', outcome: 'succeeded' });
    expect((await runs(workers[0]!)) + (await runs(workers[1]!))).toBeGreaterThanOrEqual(2);
    for (const n of apis) expect(await runs(n)).toBe(0);
  });

  it('searches through both processes with the same results', async () => {
    const body = { request: { q: 'photo', collections: ['digital_assets'] }, commonSearchParams: { per_page: 50 } };
    const [ra, rb] = await Promise.all(apis.map(({ base }) => authed(base, 'POST', '/search-engine/search', { json: body })));
    expectStatus(ra!, 200, 'search on A');
    expectStatus(rb!, 200, 'search on B');
    type Results = { results: { found: number; hits: { document: { id: string } }[] }[] };
    const ids = (r: Reply) => r.json<Results>().results[0]!.hits.map((h) => Number(h.document.id)).sort((x, y) => x - y);
    expect(ids(ra!)).toEqual([...imageAssets].sort((x, y) => x - y));
    expect(ids(rb!)).toEqual(ids(ra!));
  });

  it('logs out on one process; the other refuses the token at once', async () => {
    const [a, b] = apis.map((n) => n.base) as [string, string];
    const second = expectStatus(await call(a, 'POST', '/auth/login', { json: { email, password } }), 200, 'login').json<AuthAnswer>().token;
    expect((await call(b, 'GET', '/auth/me', { token: second })).status).toBe(200);
    expectStatus(await call(a, 'POST', '/auth/logout', { token: second }), 200, 'logout');
    expect((await call(b, 'GET', '/auth/me', { token: second })).status).toBe(401);
    expect((await call(a, 'GET', '/auth/me', { token: second })).status).toBe(401);
    // The other session lives on.
    expect((await call(b, 'GET', '/auth/me', { token })).status).toBe(200);
  });

  it('exhausts the login rate limit across both processes', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LOGIN_LIMIT; i += 1) {
      statuses.push((await call(api(), 'POST', '/auth/login', { json: { email: 'nobody@cluster.test', password: 'wrong password' } })).status);
    }
    // Failures only count (issue #28): the earlier successful sign-ins were refunded, so all LOGIN_LIMIT fail as such;
    // one count for both processes: per process, each would allow LOGIN_LIMIT failures more.
    expect(statuses).toEqual(Array(LOGIN_LIMIT).fill(401));
    for (const { base } of apis) {
      const res = await call(base, 'POST', '/auth/login', { json: { email, password } });
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });

  it('finishes a job on the other worker after its worker is killed mid-job and the lease runs out', async () => {
    const clip = testClip({ seconds: 6, size: '320x240', rate: 10 });
    const form = new FormData();
    form.append('workspaceId', String(ws));
    form.append('file', new Blob([clip], { type: 'video/mp4' }), 'clip.mp4');
    const video = expectStatus(await authed(api(), 'POST', '/api/upload-asset', { body: form }), 201, 'upload-asset').json<{ data: { id: number; storage_key?: string } }>().data;
    const asset = expectStatus(await authed(api(), 'GET', `/dam/assets/${video.id}/versions`), 200, 'versions').json<VersionJson[]>()[0]!;
    stored.push({ what: 'clip.mp4', path: `/dam/versions/${asset.id}/download`, sha256: sha256(clip) });

    const conversion = expectStatus(await authed(api(), 'POST', '/convert/video', { json: { assetId: video.id, format: 'mp4' } }), 202, 'convert').json<{ data: { id: number } }>().data;
    const isOurs = (j: JobJson) => j.kind === 'asset.convert' && (j.payload as { conversionId?: number }).conversionId === conversion.id;
    const running = await waitFor('the conversion job to run', async () => {
      const jobs = expectStatus(await authed(api(), 'GET', '/admin/jobs?status=running&per_page=50'), 200, 'admin jobs').json<{ data: { items: JobJson[] } }>().data.items;
      return jobs.find(isOurs);
    });
    // locked_by is host:pid:random.
    const pid = Number(running.locked_by!.split(':')[1]);
    const victim = workers.find((w) => w.child.pid === pid);
    const survivor = workers.find((w) => w !== victim)!;
    expect(victim, `the job runs in worker pid ${pid}`).toBeDefined();
    await killNode(victim!, children);
    const killedAt = Date.now();

    const status = async () => expectStatus(await authed(api(), 'GET', `/convert/status/${conversion.id}`), 200, 'status').json<{ data: { status: string } }>().data.status;
    await waitFor('the conversion to succeed on the other worker', async () => ((await status()) === 'succeeded' ? true : undefined), 90_000);
    // Not before the dead worker's lease ran out (it was renewed at most LEASE_SECONDS / 3 before the kill).
    expect(Date.now() - killedAt).toBeGreaterThan(((LEASE_SECONDS * 2) / 3 - 1) * 1000);
    const jobs = expectStatus(await authed(api(), 'GET', '/admin/jobs?status=succeeded&per_page=250'), 200, 'admin jobs').json<{ data: { items: JobJson[] } }>().data.items;
    expect(jobs.find(isOurs)!.attempts).toBe(2);
    const metrics = await (await fetch(`${survivor.base}/metrics`)).text();
    expect(metricValue(metrics, 'dam_job_duration_seconds_count', { kind: 'asset.convert', outcome: 'succeeded' })).toBe(1);
  });

  it('finishes an upload through one API process after the other is killed in the middle of it', async () => {
    const [a, b] = apis as [Node, Node];
    const bytes = Buffer.concat([Buffer.from('interrupted upload\n'), Buffer.alloc(150_000, 9)]);
    const half = 80_000;
    const qs = new URLSearchParams({ workspaceId: String(ws), fileType: 'application/octet-stream', fileName: 'interrupted.bin' });
    const start = expectStatus(await authed(a.base, 'GET', `/storage/start-upload?${qs.toString()}`), 200, 'start-upload').json<{ uploadId: string; assetId: number }>();
    const ref = (n: number) => new URLSearchParams({ PartNumber: String(n), UploadId: start.uploadId, assetId: String(start.assetId), workspaceId: String(ws) }).toString();
    const { url } = expectStatus(await authed(a.base, 'GET', `/storage/get-upload-url?${ref(1)}`), 200, 'get-upload-url').json<{ url: string }>();
    const first = await fetch(url, { method: 'PUT', body: bytes.subarray(0, half) });
    await first.arrayBuffer();
    const etag1 = first.headers.get('etag')!;

    // A file streaming through A (POST /api/upload-asset) when A dies: the client sees the connection drop.
    let pushMore: (() => void) | undefined;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`--cut\r\ncontent-disposition: form-data; name="workspaceId"\r\n\r\n${ws}\r\n`));
        controller.enqueue(new TextEncoder().encode('--cut\r\ncontent-disposition: form-data; name="file"; filename="cut.bin"\r\ncontent-type: application/octet-stream\r\n\r\n'));
        controller.enqueue(new Uint8Array(64 * 1024));
        pushMore = () => controller.enqueue(new Uint8Array(64 * 1024));
      },
    });
    const inFlight = fetch(`${a.base}/api/upload-asset`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'multipart/form-data; boundary=cut' },
      body: stream,
      duplex: 'half',
    }).then(
      () => 'answered',
      () => 'dropped',
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    pushMore?.();
    await killNode(a, children);
    expect(await inFlight).toBe('dropped');

    // B carries on with the part that went in before: it hands out the next part's URL and completes.
    // (GET /storage/list-parts would show part 1 too, but s3rver does not implement ListParts.)
    const second = expectStatus(await authed(b.base, 'GET', `/storage/get-upload-url?${ref(2)}`), 200, 'get-upload-url').json<{ url: string }>();
    const put2 = await fetch(second.url, { method: 'PUT', body: bytes.subarray(half) });
    await put2.arrayBuffer();
    const done = expectStatus(
      await authed(b.base, 'POST', '/storage/complete-upload', {
        json: { uploadId: start.uploadId, assetId: start.assetId, workspaceId: ws, parts: [{ PartNumber: 1, ETag: etag1 }, { PartNumber: 2, ETag: put2.headers.get('etag')! }] },
      }),
      200,
      'complete-upload on B',
    ).json<{ key: string }>();
    stored.push({ what: 'interrupted.bin', path: downloadPath(done.key), sha256: sha256(bytes) });
  });

  it('answers through a PostgreSQL restart under load with 503 DATABASE_UNAVAILABLE at worst, and every process reconnects', async ({ skip }) => {
    if (!pgCluster) return skip('no PostgreSQL cluster of its own on this machine (needs root): not restarting the shared one');
    const tally = new Tally();
    let slowest = 0;
    let running = true;
    const timed = async (base: string, method: string, path: string, o: Parameters<typeof call>[3] = {}): Promise<Reply | Error> => {
      const started = performance.now();
      const reply = await authed(base, method, path, o).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
      slowest = Math.max(slowest, performance.now() - started);
      tally.add(reply);
      return reply;
    };
    /** Server uploads through both API processes, each retried with its Idempotency-Key until it is stored once. */
    let n = 0;
    const uploader = async () => {
      while (running) {
        const bytes = Buffer.from(`uploaded while PostgreSQL restarts ${(n += 1)}\n`.repeat(100));
        const name = `restart-${n}.txt`;
        const key = `restart-${n}`;
        for (let attempt = 0; attempt < 60; attempt += 1) {
          const form = new FormData();
          form.append('workspaceId', String(ws));
          form.append('file', new Blob([bytes], { type: 'text/plain' }), name);
          const reply = await timed(api(), 'POST', '/api/upload-asset', { body: form, headers: { 'idempotency-key': key } });
          if (!(reply instanceof Error) && reply.status === 201) {
            const asset = reply.json<{ data: { id: number } }>().data;
            stored.push({ what: name, path: downloadPath(`${ws}/digital_assets/${asset.id}`), sha256: sha256(bytes) });
            break;
          }
          await new Promise((resolve) => setTimeout(resolve, 300));
        }
      }
    };
    const reader = async () => {
      while (running) {
        await timed(api(), 'GET', `/dam/assets?workspaceId=${ws}&per_page=10`);
        await timed(api(), 'GET', '/auth/me');
      }
    };
    const live = [...apis, ...workers].filter((n) => n.child.exitCode === null && n.child.signalCode === null);
    const load = Promise.all([uploader(), uploader(), reader(), reader()]);
    try {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await pgCluster.restart();
      // Every API process answers again by itself (their pools connect anew), within seconds.
      for (const n of live.filter((node) => node.role === 'api')) {
        await waitFor(
          `${n.base} to answer after the restart`,
          async () => {
            if (n.child.exitCode !== null) throw new Error(`the API process exited with ${n.child.exitCode}:\n${n.logs()}`);
            return (await authed(n.base, 'GET', '/auth/me')).status === 200 ? true : undefined;
          },
          20_000,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    } finally {
      running = false;
      await load;
    }
    console.log(`PostgreSQL restart under load: ${tally.requests} requests, answers ${JSON.stringify(tally.statuses)}, slowest ${Math.round(slowest)} ms`);
    for (const n of live) expect(n.child.exitCode, `the ${n.role} process exited:\n${n.logs()}`).toBeNull();
    expect(tally.errors.transport ?? 0, 'requests without an answer').toBe(0);
    for (const key of Object.keys(tally.errors)) expect(key, 'every 5xx is a 503 DATABASE_UNAVAILABLE').toBe('503 DATABASE_UNAVAILABLE');
    expect(slowest, 'the slowest answer (ms)').toBeLessThan(10_000);
    expect(stored.filter((f) => f.what.startsWith('restart-')).length, 'uploads during the restart').toBeGreaterThan(0);

    // The surviving worker makes the thumbnail of a photo uploaded after the restart; a sign-in is counted in the database again.
    const png = await sharp({ create: { width: 640, height: 480, channels: 3, background: { r: 10, g: 200, b: 90 } } }).png().toBuffer();
    const form = new FormData();
    form.append('workspaceId', String(ws));
    form.append('file', new Blob([png], { type: 'image/png' }), 'after-restart.png');
    const after = expectStatus(await authed(api(), 'POST', '/api/upload-asset', { body: form }), 201, 'upload after the restart').json<{ data: { id: number } }>().data;
    stored.push({ what: 'after-restart.png', path: downloadPath(`${ws}/digital_assets/${after.id}`), sha256: sha256(png) });
    await waitFor('the thumbnail of the photo uploaded after the restart', async () => {
      const list = expectStatus(await authed(api(), 'GET', `/dam/assets/${after.id}/versions`), 200, 'versions').json<VersionJson[]>();
      return list[0]!.preview_status === 'ready' ? true : undefined;
    });
    expect((await call(api(), 'POST', '/auth/login', { json: { email, password } })).status).toBe(429);
  });

  it('loses nothing: every uploaded file downloads byte-identical', async () => {
    const duringRestart = stored.filter((f) => f.what.startsWith('restart-') || f.what === 'after-restart.png').length;
    expect(stored.length).toBe(3 + 2 + 10 + 1 + 1 + duringRestart);
    for (const file of stored) {
      const res = expectStatus(await authed(api(), 'GET', file.path), 200, `download of ${file.what}`);
      expect(sha256(res.bytes), file.what).toBe(file.sha256);
    }
    // The library holds what was uploaded (and the conversion's result), not the upload cut by the kill.
    const listed = expectStatus(await authed(api(), 'GET', `/dam/assets?workspaceId=${ws}&per_page=250`), 200, 'assets').json<{ data: { items: { file_name: string }[] } }>();
    const names = listed.data.items.map((a) => a.file_name);
    // One asset per upload, a retried one (Idempotency-Key) included.
    expect(names).toHaveLength(8 + duringRestart);
    const restartNames = names.filter((name) => name.startsWith('restart-'));
    expect(new Set(restartNames).size).toBe(restartNames.length);
    expect(names).not.toContain('cut.bin');
  });
});
