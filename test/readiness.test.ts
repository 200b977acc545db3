import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultMonitor } from '../src/faults/monitor.js';
import { Readiness } from '../src/faults/readiness.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { dialects } from './helpers/databases.js';
import { startS3Server, type S3Server } from './helpers/uploads.js';

/**
 * Issue #37: GET /readyz names each check (database, disk, store), answers 503 naming the one that fails, within a
 * bound whatever hangs, opens one fault incident per outage and closes it when the check passes again.
 */

interface ReadyBody {
  status: string;
  checks: { database: string; disk: string; store: string };
}

/** The value of one series of the Prometheus text (labels matched as written), or undefined. */
function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

async function metrics(t: TestApp): Promise<string> {
  return (await t.request({ method: 'GET', url: '/metrics' })).body;
}

/**
 * A TCP front for the object store that either holds every connection without a byte in answer (`stall`: a store that
 * stopped answering) or passes it through to `target` (`forward`).
 */
async function startStallingFront(target: string): Promise<{ endpoint: string; mode: 'stall' | 'forward'; close(): Promise<void> }> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  const front = {
    endpoint: '',
    mode: 'stall' as 'stall' | 'forward',
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    if (front.mode === 'stall') return;
    const upstream = createConnection(Number(port), hostname);
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  front.endpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return front;
}

describe.each(dialects)('GET /readyz on %s', (dialect) => {
  it('answers 200 naming each check while the database answers, the disk has room and the local store is writable', async () => {
    const t = await startTestApp({ dialect, config: { readyMinFreeBytes: 1 } });
    try {
      const res = await t.request({ method: 'GET', url: '/readyz' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'ready', checks: { database: 'ok', disk: 'ok', store: 'ok' } });
    } finally {
      await t.close();
    }
  });

  it('answers 503 naming the database when it does not answer, and GET /metrics still shows the fault', async () => {
    const t = await startTestApp({ dialect });
    await t.database.close();
    try {
      const res = await t.request({ method: 'GET', url: '/readyz' });
      expect(res.statusCode).toBe(503);
      const body = res.json<ReadyBody>();
      expect(body.status).toBe('not ready');
      expect(body.checks.database).toMatch(/^unreachable: /);
      expect(body.checks.store).toBe('ok');
      expect(sample(await metrics(t), 'dam_fault_active', 'fault="database_unavailable"')).toBe(1);
    } finally {
      await t.app.close();
    }
  });
});

describe('GET /readyz: the disk', () => {
  it('answers 503 naming the disk when the free space is below DAM_READY_MIN_FREE_BYTES, with one incident for many probes', async () => {
    const lines: string[] = [];
    const t = await startTestApp({ config: { readyMinFreeBytes: Number.MAX_SAFE_INTEGER, logLevel: 'warn' }, logStream: { write: (l) => lines.push(l) } });
    try {
      for (let i = 0; i < 3; i += 1) {
        const res = await t.request({ method: 'GET', url: '/readyz' });
        expect(res.statusCode).toBe(503);
        const body = res.json<ReadyBody>();
        expect(body).toMatchObject({ status: 'not ready', checks: { database: 'ok', store: 'ok' } });
        expect(body.checks.disk).toMatch(/^low: \d+(\.\d)? (bytes|[KMGTP]iB) free on data, below 8 PiB$/);
      }
      const text = await metrics(t);
      expect(sample(text, 'dam_fault_active', 'fault="disk_full"')).toBe(1);
      expect(sample(text, 'dam_fault_incidents_total', 'fault="disk_full"')).toBe(1);
      // A probe is not a request that failed.
      expect(sample(text, 'dam_fault_failures_total', 'fault="disk_full"')).toBe(0);
      expect(lines.filter((l) => l.includes('fault began: the disk is full'))).toHaveLength(1);
      // Nothing of the server's paths in the public answer.
      expect((await t.request({ method: 'GET', url: '/readyz' })).body).not.toContain(t.config.dataDir);
    } finally {
      await t.close();
    }
  });

  it('shows the free space and the threshold on GET /metrics', async () => {
    const t = await startTestApp({ config: { readyMinFreeBytes: 123_456_789 } });
    try {
      const text = await metrics(t);
      expect(sample(text, 'dam_disk_free_bytes', 'path="data"')).toBeGreaterThan(0);
      expect(sample(text, 'dam_disk_size_bytes', 'path="data"')).toBeGreaterThanOrEqual(sample(text, 'dam_disk_free_bytes', 'path="data"')!);
      expect(sample(text, 'dam_disk_min_free_bytes')).toBe(123_456_789);
    } finally {
      await t.close();
    }
  });
});

describe('GET /readyz: an S3 store', () => {
  let s3: S3Server;
  beforeAll(async () => {
    s3 = await startS3Server();
  });
  afterAll(() => s3?.close());

  it('answers 503 naming the store within a bound while it does not answer, and 200 again once it does', { timeout: 30_000 }, async () => {
    const storage = await s3.newBucket();
    const front = await startStallingFront(s3.endpoint);
    const lines: string[] = [];
    const t = await startTestApp({ config: { storage: { ...storage, endpoint: front.endpoint }, logLevel: 'warn' }, logStream: { write: (l) => lines.push(l) } });
    try {
      const started = Date.now();
      const res = await t.request({ method: 'GET', url: '/readyz' });
      expect(Date.now() - started).toBeLessThan(4_000);
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ status: 'not ready', checks: { database: 'ok', disk: 'off', store: 'unreachable: no answer within 2 s' } });
      // The store's answer is kept a few seconds: the next probes answer at once, without asking the store again.
      const again = Date.now();
      expect((await t.request({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);
      expect(Date.now() - again).toBeLessThan(500);
      expect(sample(await metrics(t), 'dam_fault_active', 'fault="storage_unavailable"')).toBe(1);

      front.mode = 'forward';
      let body: ReadyBody | undefined;
      for (const until = Date.now() + 15_000; Date.now() < until; await new Promise((r) => setTimeout(r, 250))) {
        const next = await t.request({ method: 'GET', url: '/readyz' });
        body = next.json<ReadyBody>();
        if (next.statusCode === 200) break;
      }
      expect(body).toEqual({ status: 'ready', checks: { database: 'ok', disk: 'off', store: 'ok' } });
      const text = await metrics(t);
      expect(sample(text, 'dam_fault_active', 'fault="storage_unavailable"')).toBe(0);
      expect(sample(text, 'dam_fault_incidents_total', 'fault="storage_unavailable"')).toBe(1);
      expect(lines.filter((l) => l.includes('fault began: the object store is unavailable'))).toHaveLength(1);
      expect(lines.filter((l) => l.includes('fault ended: the object store is unavailable'))).toHaveLength(1);
    } finally {
      await t.close();
      await front.close();
    }
  });
});

describe('Readiness', () => {
  it('runs one probe of a hanging check at a time, however many answers wait for it', async () => {
    let pings = 0;
    let release: (() => void) | undefined;
    const readiness = new Readiness({
      // The first ping hangs until released; later ones answer.
      database: { ping: () => ((pings += 1), pings === 1 ? new Promise<void>((resolve) => (release = resolve)) : Promise.resolve()) },
      store: { probe: () => Promise.resolve() },
      faults: new FaultMonitor(),
      places: [],
      minFreeBytes: 0,
      timeoutMs: 100,
    });
    const answers = await Promise.all([readiness.check(), readiness.check()]);
    expect((await readiness.check()).checks.database).toBe('unreachable: no answer within 0.1 s');
    expect(answers.map((a) => a.checks.database)).toEqual(['unreachable: no answer within 0.1 s', 'unreachable: no answer within 0.1 s']);
    expect(pings).toBe(1);
    release?.();
    await new Promise((r) => setTimeout(r, 10));
    expect(await readiness.check()).toEqual({ ready: true, checks: { database: 'ok', disk: 'off', store: 'ok' } });
    expect(pings).toBe(2);
  });

  it('closes an incident on a passed check only if the incident began before the check did', async () => {
    const faults = new FaultMonitor();
    let release: (() => void) | undefined;
    let pings = 0;
    const readiness = new Readiness({
      database: { ping: () => ((pings += 1), pings === 1 ? new Promise<void>((resolve) => (release = resolve)) : Promise.resolve()) },
      store: { probe: () => Promise.resolve() },
      faults,
      places: [],
      minFreeBytes: 0,
    });
    const checking = readiness.check();
    await new Promise((r) => setTimeout(r, 5));
    // A request fails while the probe is on its way: its success proves nothing about this incident.
    faults.report('database_unavailable', new Error('Connection terminated'), 'GET /x');
    release?.();
    expect((await checking).ready).toBe(true);
    expect(faults.isActive('database_unavailable')).toBe(true);
    expect((await readiness.check()).ready).toBe(true);
    expect(faults.isActive('database_unavailable')).toBe(false);
    faults.close();
  });
});
