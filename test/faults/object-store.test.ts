import { randomBytes, randomInt } from 'node:crypto';
import sharp from 'sharp';
import yauzl from 'yauzl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectStatus, metricValue, requirePgUrl, sha256, throwawayDatabase, type CallOptions, type Reply } from '../cluster/cluster.js';
import { startS3Server, type S3Server } from '../helpers/uploads.js';
import { startFaultProxy, type FaultMode, type FaultProxy } from './fault-proxy.js';
import {
  adminVerify,
  countLost,
  incidentLines,
  recordFault,
  register,
  secondsUntil,
  startFaultServer,
  Tally,
  type Account,
  type FaultServer,
  type Uploaded,
} from './harness.js';

/**
 * Issue #37, "the object store errs or stalls": the built server on PostgreSQL and s3rver, with the fault proxy
 * (fault-proxy.ts) between them, so the service's own requests and the clients' presigned part uploads both cross
 * it. A steady load (uploads through the server, presigned multipart uploads, downloads, ZIP downloads, thumbnail
 * jobs) runs while each fault is in place in turn: 500 InternalError, 503 SlowDown, resets in the middle of bodies,
 * a 60 s stall and 5 % packet loss (emulated: see fault-proxy.ts). For each: no 500, every 5xx a 503
 * STORAGE_UNAVAILABLE with Retry-After, no download that "succeeds" with other bytes (a cut transfer fails as a
 * transfer), requests answered within the timeouts while the store stalls, and afterwards: how long until a whole
 * round of the load succeeds, every object uploaded before and during the fault whole (SHA-256), `admin verify`
 * clean, one "fault began" line per incident.
 */

const MAX_ATTEMPTS = 3;
const REQUEST_TIMEOUT_S = 2;
const CONNECT_TIMEOUT_S = 1;
/**
 * The longest a request may take while the store stalls: one S3 call's attempts (each cut after the request
 * timeout) and their backoff, twice (a failed upload also tries to clean up), and some slack for a loaded machine.
 */
const STALL_ANSWER_BOUND_MS = 2 * MAX_ATTEMPTS * (REQUEST_TIMEOUT_S + 1) * 1000 + 3000;
const LOOPS = 3;

interface Fault {
  name: string;
  mode: FaultMode;
  ms: number;
}

const FAULTS: Fault[] = [
  { name: 'S3 500 InternalError', mode: 'error500', ms: 8_000 },
  { name: 'S3 503 SlowDown', mode: 'slowDown', ms: 8_000 },
  { name: 'S3 resets mid-body', mode: 'reset', ms: 10_000 },
  { name: 'S3 stalls 60 s', mode: 'stall', ms: 60_000 },
  { name: 'S3 5 % packet loss', mode: 'loss', ms: 15_000 },
];

interface JobJson {
  id: number;
  kind: string;
  status: string;
  attempts: number;
  last_error: string | null;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Every entry of a ZIP archive, by its bytes' SHA-256 (yauzl checks each entry's CRC and sizes). */
async function zipEntryHashes(bytes: Buffer): Promise<string[]> {
  const zip = await yauzl.fromBufferPromise(bytes, { lazyEntries: true, validateEntrySizes: true });
  const hashes: string[] = [];
  for await (const entry of zip.eachEntry()) {
    if (entry.fileName.endsWith('/')) continue;
    const stream = await zip.openReadStreamPromise(entry);
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    hashes.push(sha256(Buffer.concat(chunks)));
  }
  return hashes;
}

/**
 * The steady load: LOOPS loops, each doing one thing after another (an upload through the server, a presigned
 * multipart upload, downloads, a ZIP, now and then a PNG whose thumbnails a job makes), recording every answer of
 * the server (`server`) and of the store to the presigned part uploads (`parts`).
 */
class Load {
  server = new Tally();
  parts = new Tally();
  /** Every upload the server said was complete: they must all come back whole. */
  readonly uploads: Uploaded[] = [];
  readonly images: number[] = [];
  /** Downloads: whole with the right bytes, failed as transfers (cut), or answered an error before the body. */
  downloads = { whole: 0, cut: 0, refused: 0 };
  /** Downloads answered 200 whose bytes differ: a short file that looks whole. Must stay empty. */
  readonly wrong: string[] = [];
  /** Transport failures of requests to the server, by message. */
  transport: Record<string, number> = {};
  /** 503 answers without Retry-After. Must stay 0. */
  noRetryAfter = 0;
  slowestMs = 0;
  private running = false;
  private loops: Promise<void>[] = [];
  private counter = 0;

  constructor(
    private readonly base: string,
    private readonly account: Account,
    private pngShare = 0,
  ) {}

  reset(pngShare = 0): void {
    this.server = new Tally();
    this.parts = new Tally();
    this.downloads = { whole: 0, cut: 0, refused: 0 };
    this.transport = {};
    this.slowestMs = 0;
    this.noRetryAfter = 0;
    this.pngShare = pngShare;
  }

  /** One request to the server, tallied and timed; a transport failure is returned as the Error. */
  async request(method: string, pathAndQuery: string, o: CallOptions = {}): Promise<Reply | Error> {
    const started = performance.now();
    let reply: Reply | Error;
    try {
      reply = await call(this.base, method, pathAndQuery, { token: this.account.token, ...o });
    } catch (err) {
      reply = err instanceof Error ? err : new Error(String(err));
      // undici: "terminated" is a body cut after the answer began; others failed before it.
      const cause = (reply.cause as { code?: string; message?: string } | undefined) ?? {};
      const kind = `${reply.message}${cause.code ? ` (${cause.code})` : cause.message ? ` (${cause.message})` : ''}`;
      this.transport[kind] = (this.transport[kind] ?? 0) + 1;
    }
    this.slowestMs = Math.max(this.slowestMs, performance.now() - started);
    this.server.add(reply);
    if (!(reply instanceof Error) && reply.status === 503 && !reply.headers.get('retry-after')) this.noRetryAfter += 1;
    return reply;
  }

  private name(ext: string): string {
    this.counter += 1;
    return `load-${this.counter}-${randomBytes(3).toString('hex')}.${ext}`;
  }

  async serverUpload(png = false): Promise<boolean> {
    const bytes = png
      ? await sharp({ create: { width: 640, height: 480, channels: 3, background: { r: randomInt(256), g: randomInt(256), b: randomInt(256) } } })
          .png()
          .toBuffer()
      : randomBytes(randomInt(40_000, 200_000));
    const form = new FormData();
    form.set('workspaceId', String(this.account.workspaceId));
    form.set('file', new Blob([bytes], { type: png ? 'image/png' : 'application/octet-stream' }), this.name(png ? 'png' : 'bin'));
    const reply = await this.request('POST', '/api/upload-asset', { body: form });
    if (reply instanceof Error || reply.status !== 201) return false;
    const asset = reply.json<{ data: { id: number } }>().data;
    this.uploads.push({ assetId: asset.id, key: `${this.account.workspaceId}/digital_assets/${asset.id}`, sha256: sha256(bytes) });
    if (png) this.images.push(asset.id);
    return true;
  }

  /** A part PUT to its presigned URL, through the proxy, tried three times as S3 clients do. */
  private async putPart(url: string, bytes: Buffer): Promise<string | undefined> {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      try {
        const res = await fetch(url, { method: 'PUT', body: bytes });
        const body = Buffer.from(await res.arrayBuffer());
        this.parts.add({ status: res.status, headers: res.headers, bytes: body, json: <T>() => JSON.parse(body.toString('utf8')) as T });
        if (res.status === 200) return res.headers.get('etag') ?? undefined;
      } catch (err) {
        this.parts.add(err instanceof Error ? err : new Error(String(err)));
      }
      await sleep(300);
    }
    return undefined;
  }

  async multipartUpload(): Promise<boolean> {
    const ws = String(this.account.workspaceId);
    const bytes = randomBytes(randomInt(100_000, 260_000));
    const partSize = 64 * 1024;
    const qs = new URLSearchParams({ workspaceId: ws, fileType: 'application/octet-stream', fileName: this.name('bin') });
    const start = await this.request('GET', `/storage/start-upload?${qs.toString()}`);
    if (start instanceof Error || start.status !== 200) return false;
    const { uploadId, assetId } = start.json<{ uploadId: string; assetId: number }>();
    const parts: { PartNumber: number; ETag: string }[] = [];
    for (let at = 0, n = 1; at < bytes.length; at += partSize, n += 1) {
      const ref = new URLSearchParams({ PartNumber: String(n), UploadId: uploadId, assetId: String(assetId), workspaceId: ws });
      const answer = await this.request('GET', `/storage/get-upload-url?${ref.toString()}`);
      if (answer instanceof Error || answer.status !== 200) return false;
      const etag = await this.putPart(answer.json<{ url: string }>().url, bytes.subarray(at, at + partSize));
      if (!etag) return false;
      parts.push({ PartNumber: n, ETag: etag });
    }
    // A client tries complete-upload again after a 503, as it would (the answer says Retry-After).
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const done = await this.request('POST', '/storage/complete-upload', { json: { uploadId, assetId, workspaceId: Number(ws), parts } });
      if (!(done instanceof Error) && done.status === 200) {
        this.uploads.push({ assetId, key: done.json<{ key: string }>().key, sha256: sha256(bytes) });
        return true;
      }
      if (!(done instanceof Error) && done.status !== 503) return false;
      await sleep(500);
    }
    return false;
  }

  private pick(): Uploaded | undefined {
    return this.uploads.length ? this.uploads[randomInt(this.uploads.length)] : undefined;
  }

  /** A download of an uploaded object: whole and right, cut as a transfer, or refused; never 200 with other bytes. */
  async download(): Promise<boolean> {
    const u = this.pick();
    if (!u) return true;
    const query = new URLSearchParams({ key: u.key, workspaceId: String(this.account.workspaceId) });
    const reply = await this.request('GET', `/storage/download?${query.toString()}`);
    if (reply instanceof Error) {
      this.downloads.cut += 1;
      return false;
    }
    if (reply.status !== 200) {
      this.downloads.refused += 1;
      return false;
    }
    if (sha256(reply.bytes) !== u.sha256) {
      const asset = await this.request('GET', `/dam/assets/${u.assetId}?workspaceId=${this.account.workspaceId}`);
      const record = asset instanceof Error ? asset.message : asset.bytes.toString('utf8').slice(0, 400);
      this.wrong.push(`asset ${u.assetId}: 200 with ${reply.bytes.length} other bytes (content-length ${reply.headers.get('content-length')}; the asset: ${record})`);
      return false;
    }
    this.downloads.whole += 1;
    return true;
  }

  /** A ZIP of two uploads: a 200 archive must hold exactly their bytes; a cut one fails as a transfer. */
  async zip(): Promise<boolean> {
    const a = this.pick();
    const b = this.pick();
    if (!a || !b || a === b) return true;
    const reply = await this.request('GET', `/zip/download?workspaceId=${this.account.workspaceId}&asset_ids=${a.assetId},${b.assetId}`);
    if (reply instanceof Error) {
      this.downloads.cut += 1;
      return false;
    }
    if (reply.status !== 200) {
      this.downloads.refused += 1;
      return false;
    }
    const hashes = await zipEntryHashes(reply.bytes).catch((err: Error) => [`unreadable: ${err.message}`]);
    if (hashes.sort().join() !== [a.sha256, b.sha256].sort().join()) {
      this.wrong.push(`ZIP of ${a.assetId},${b.assetId}: 200 with entries ${hashes.join(', ')}`);
      return false;
    }
    this.downloads.whole += 1;
    return true;
  }

  private step(i: number): Promise<boolean> {
    const ops = [() => this.serverUpload(Math.random() < this.pngShare), () => this.download(), () => this.multipartUpload(), () => this.download(), () => this.zip()];
    return ops[i % ops.length]!();
  }

  start(): void {
    this.running = true;
    this.loops = Array.from({ length: LOOPS }, async (_, loop) => {
      for (let i = loop; this.running; i += 1) {
        const ok = await this.step(i);
        // A client pauses between requests, longer after a failure (an answer of 503 says Retry-After).
        await sleep(ok ? 50 : 250);
      }
    });
  }

  /** Stops the loops and waits for the requests in flight. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  /** One whole round, the proof of recovery: an upload through the server, a multipart upload, a download. */
  async round(): Promise<boolean> {
    return (await this.serverUpload()) && (await this.multipartUpload()) && (await this.download());
  }
}

describe('the object store errs, stalls or loses packets', () => {
  let s3: S3Server;
  let proxy: FaultProxy;
  let server: FaultServer;
  let dropDatabase: (() => Promise<void>) | undefined;
  let account: Account;
  let load: Load;
  let fullLog = '';

  const logs = () => fullLog;
  const incidentsMetric = async () =>
    metricValue(await (await fetch(`${server.base}/metrics`)).text(), 'dam_fault_incidents_total', { fault: 'storage_unavailable' });
  const jobs = async (status?: string): Promise<JobJson[]> => {
    const reply = expectStatus(await call(server.base, 'GET', `/admin/jobs?per_page=250${status ? `&status=${status}` : ''}`, { token: account.token }), 200, 'admin jobs');
    return reply.json<{ data: { items: JobJson[] } }>().data.items;
  };

  beforeAll(async () => {
    const database = await throwawayDatabase(requirePgUrl());
    dropDatabase = database.drop;
    s3 = await startS3Server();
    const bucket = await s3.newBucket();
    proxy = await startFaultProxy(s3.endpoint);
    server = await startFaultServer({
      DATABASE_URL: database.url,
      DAM_STORAGE: 's3',
      DAM_S3_BUCKET: bucket.bucket,
      DAM_S3_ENDPOINT: proxy.endpoint,
      DAM_S3_FORCE_PATH_STYLE: 'true',
      DAM_S3_ACCESS_KEY_ID: bucket.accessKeyId!,
      DAM_S3_SECRET_ACCESS_KEY: bucket.secretAccessKey!,
      DAM_S3_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
      DAM_S3_REQUEST_TIMEOUT: String(REQUEST_TIMEOUT_S),
      DAM_S3_CONNECT_TIMEOUT: String(CONNECT_TIMEOUT_S),
      DAM_MIN_PART_SIZE: '1024',
      DAM_JOB_POLL_INTERVAL: '200',
      DAM_JOB_CONCURRENCY: '2',
      DAM_VIDEO_PREVIEWS: 'false',
      // The load is one user's: the per-user limit would answer it 429 long before the store is the question.
      DAM_USER_RATE_LIMIT: '100000',
    });
    // The whole log (the harness keeps only its tail): the "fault began" lines are counted over the whole run.
    server.child.stdout?.on('data', (d: string | Buffer) => (fullLog += d.toString()));
    server.child.stderr?.on('data', (d: string | Buffer) => (fullLog += d.toString()));
    account = await register(server.base);
    load = new Load(server.base, account);
    // Objects from before any fault, checked after every one.
    for (let i = 0; i < 3; i += 1) {
      expect(await load.serverUpload(i === 0), JSON.stringify(load.server.statuses)).toBe(true);
      expect(await load.multipartUpload()).toBe(true);
    }
    const verify = await adminVerify(server.env);
    expect(verify.code, verify.output).toBe(0);
  });

  afterAll(async () => {
    await load?.stop();
    await server?.stop();
    await proxy?.close();
    await s3?.close();
    await dropDatabase?.();
  });

  const incidentOpen = async () =>
    metricValue(await (await fetch(`${server.base}/metrics`)).text(), 'dam_fault_active', { fault: 'storage_unavailable' }) === 1;

  /** Waits up to `ms` for the fault's incident to end (a /readyz that probes the store ends it at once). */
  async function incidentOver(ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      await fetch(`${server.base}/readyz`).then((r) => r.arrayBuffer()).catch(() => undefined);
      if (!(await incidentOpen())) return;
      await sleep(250);
    }
  }

  for (const fault of FAULTS) {
    it(`${fault.name}: answers 503 STORAGE_UNAVAILABLE, never a 500 or a short download; recovers, loses nothing`, async () => {
      const openBefore = await incidentOpen();
      const linesBefore = incidentLines(logs(), 'storage_unavailable');
      const incidentsBefore = await incidentsMetric();
      const uploadsBefore = load.uploads.length;
      // PNGs (thumbnail jobs) but in the stall: a job postponed then waits as long as the incident has lasted.
      load.reset(fault.mode === 'stall' ? 0 : 0.3);
      proxy.set(fault.mode);
      load.start();
      // In the first fault, a conversion asked for while the store fails (asking needs only the database): its job
      // cannot read the image, and must wait for the store rather than fail.
      let conversion: number | undefined;
      if (fault === FAULTS[0]) {
        const asked = await call(server.base, 'POST', '/convert/image', { token: account.token, json: { assetId: load.images[0], format: 'webp', width: 64 } });
        expect(asked.status, asked.bytes.toString()).toBeLessThan(300);
        conversion = asked.json<{ data: { id: number } }>().data.id;
      }
      const waiting = new Set<string>();
      const until = Date.now() + fault.ms;
      while (Date.now() < until) {
        // A job the fault failed waits for it (postponed, "Waiting: ..."), without using up an attempt.
        for (const j of await jobs('queued')) if (j.last_error?.startsWith('Waiting:')) waiting.add(j.kind);
        await sleep(Math.min(1000, Math.max(0, until - Date.now())));
      }
      proxy.set('pass');
      await load.stop();
      const during = { server: load.server, parts: load.parts, downloads: load.downloads, transport: load.transport, slowestMs: Math.round(load.slowestMs) };

      const recoverSeconds = await secondsUntil('a whole round of the load', () => load.round(), 60_000, 200);
      const lost = await countLost(server.base, account, load.uploads);
      // The database and the store agree: no asset without its object, no object without its row.
      const verify = await adminVerify(server.env);
      const verified = verify.code === 0;
      // With /readyz probing the store, the incident closes as soon as it answers again; else after 30 s of quiet.
      await incidentOver(5000);
      const newLines = incidentLines(logs(), 'storage_unavailable') - linesBefore;
      const newIncidents = (await incidentsMetric()) - incidentsBefore;

      console.log(
        `${fault.name}: ${during.server.requests} requests to the server ${JSON.stringify(during.server.statuses)}, ` +
          `${during.parts.requests} part uploads to the store ${JSON.stringify(during.parts.statuses)}${during.parts.errors.transport ? ` (+${during.parts.errors.transport} cut)` : ''}, ` +
          `downloads ${JSON.stringify(during.downloads)}, transport failures ${JSON.stringify(during.transport)}, slowest answer ${during.slowestMs} ms, ${load.uploads.length - uploadsBefore} uploads completed, ` +
          `recovered in ${recoverSeconds} s, ${newLines} "fault began" line(s), jobs postponed: ${[...waiting].join(', ') || 'none'}`,
      );
      recordFault({ fault: fault.name, requests: during.server.requests, errors: during.server.errors, recoverSeconds, objectsLost: lost.lost + (verified ? 0 : 1) });

      // No 500 (nor a 502 S3_ERROR): every failure the store caused is a 503 STORAGE_UNAVAILABLE with Retry-After.
      const fiveHundreds = Object.keys(during.server.statuses).filter((k) => k.startsWith('5') && k !== '503 STORAGE_UNAVAILABLE');
      expect(fiveHundreds, JSON.stringify(during.server.statuses)).toEqual([]);
      expect(load.noRetryAfter).toBe(0);
      // A download either came whole with its bytes or failed as a transfer: never a short file that looks whole.
      expect(load.wrong).toEqual([]);
      expect(lost.details).toEqual([]);
      expect(verify.code, verify.output).toBe(0);
      // One line per incident, never one per request: at most one new incident per fault, and the log agrees with /metrics.
      expect(newLines).toBeLessThanOrEqual(1);
      expect(newLines).toBe(newIncidents);
      // A fault that failed requests while no incident was open began one (incidents less than 30 s apart are one).
      if (!openBefore && (during.server.errors['503 STORAGE_UNAVAILABLE'] ?? 0) > 0) expect(newLines).toBe(1);
      if (fault.mode === 'stall') {
        // Every request answered within the timeouts while the store said nothing for a minute, and it was noticed.
        expect(during.slowestMs).toBeLessThan(STALL_ANSWER_BOUND_MS);
        expect(during.server.statuses['503 STORAGE_UNAVAILABLE'] ?? 0).toBeGreaterThan(0);
      }
      if (fault.mode === 'error500' || fault.mode === 'slowDown') expect(during.server.statuses['503 STORAGE_UNAVAILABLE'] ?? 0).toBeGreaterThan(0);
      if (fault.mode === 'reset') expect(during.downloads.cut).toBeGreaterThan(0);

      if (conversion !== undefined) {
        // Jobs back off: the conversion's job was postponed during the fault and runs after it.
        expect([...waiting], 'the conversion job postponed while the store failed').toContain('asset.convert');
        const status = async () =>
          expectStatus(await call(server.base, 'GET', `/convert/status/${conversion}`, { token: account.token }), 200, 'status').json<{ data: { status: string } }>().data.status;
        const done = await secondsUntil('the conversion to succeed after the fault', async () => (await status()) === 'succeeded', 60_000, 500);
        console.log(`the conversion asked for during the fault succeeded ${done} s after recovery`);
      }
    });
  }

  it('used up no job attempt on a fault: no job failed, none ran twice', async () => {
    const all = await jobs();
    const spent = all.filter((j) => j.status === 'failed' || j.attempts > 1).map((j) => `${j.id} ${j.kind} ${j.status} x${j.attempts}: ${j.last_error}`);
    expect(spent).toEqual([]);
    // Every incident was logged once: the log's lines and /metrics agree over the whole run.
    expect(incidentLines(logs(), 'storage_unavailable')).toBe(await incidentsMetric());
    expect(incidentLines(logs(), 'storage_unavailable')).toBeGreaterThan(0);
  });
});
