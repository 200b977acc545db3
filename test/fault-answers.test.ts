import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type TestApp } from './helpers/app.js';
import { registerUser } from './helpers/factories.js';
import { s3Storage, startS3Server, startStorageApp, startUploadRequest, uploadFile, type S3Server } from './helpers/uploads.js';

/**
 * Issue #37: a fault is answered with its own code and Retry-After, logged once per incident however many requests it
 * fails, counted on GET /metrics, and a job it fails waits for the fault to pass without using up its attempts.
 * (test/faults/ injects the real faults into the built server under load; this is the contract, in-process.)
 */

const lines = (logs: string[], text: string) => logs.filter((l) => l.includes(text));
const metric = async (t: TestApp, name: string, fault: string): Promise<number> => {
  const text = (await t.request({ method: 'GET', url: '/metrics' })).body;
  const line = text.split('\n').find((l) => l.startsWith(`${name}{fault="${fault}"}`));
  return line ? Number(line.split(' ').pop()) : Number.NaN;
};

describe('a store nothing answers for', () => {
  let t: TestApp;
  const logs: string[] = [];

  beforeAll(async () => {
    const port = await freePort();
    t = await startStorageApp('local', undefined, { config: { storage: s3Storage(`http://127.0.0.1:${port}`, 'dam-test'), logLevel: 'warn' }, logStream: { write: (l) => logs.push(l) } });
  });
  afterAll(() => t?.close());

  it('answers 503 STORAGE_UNAVAILABLE with Retry-After, logs the incident once and counts it', async () => {
    const admin = await registerUser(t);
    for (let i = 0; i < 3; i += 1) {
      const res = await startUploadRequest(t, admin, { workspaceId: admin.workspaceId, fileType: 'image/png' });
      expect(res.statusCode, res.body).toBe(503);
      expect(res.json()).toMatchObject({ code: 'STORAGE_UNAVAILABLE', error: expect.stringContaining('try again') as unknown });
      expect(res.headers['retry-after']).toBe('10');
    }
    expect(lines(logs, 'fault began')).toHaveLength(1);
    expect(lines(logs, 'fault began')[0]).toContain('"fault":"storage_unavailable"');
    // Not one "unexpected failure" (500) line per request.
    expect(lines(logs, 'unexpected failure')).toHaveLength(0);
    expect(await metric(t, 'dam_fault_incidents_total', 'storage_unavailable')).toBe(1);
    expect(await metric(t, 'dam_fault_failures_total', 'storage_unavailable')).toBe(3);
    expect(await metric(t, 'dam_fault_active', 'storage_unavailable')).toBe(1);
    expect(await metric(t, 'dam_fault_incidents_total', 'database_unavailable')).toBe(0);
  });
});

describe('a job the store fails', () => {
  let s3: S3Server;
  let t: TestApp;
  let up = false;
  const logs: string[] = [];

  beforeAll(async () => {
    s3 = await startS3Server();
    up = true;
    t = await startStorageApp('s3', s3, { config: { logLevel: 'warn' }, logStream: { write: (l) => logs.push(l) } });
  });
  afterAll(async () => {
    await t?.close();
    if (up) await s3?.close();
  });

  it('waits for the store without using up its attempts, and says why', async () => {
    const admin = await registerUser(t);
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366cc' } }).png().toBuffer();
    await uploadFile(t, admin, png, { fileType: 'image/png', fileName: 'blue.png' });
    await s3.close();
    up = false;
    type Jobs = { items: { kind: string; status: string; attempts: number; max_attempts: number; last_error: string | null; run_at: number }[] };
    const renditions = async () => {
      const res = await t.request({ method: 'GET', url: '/admin/jobs', token: admin.token });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<{ data: Jobs }>().data.items.find((j) => j.kind === 'version.renditions')!;
    };
    // More runs than the job has attempts: each postponed (the clock moved past its wait of 5 s and more), none counted.
    for (let run = 0; run < 6; run += 1) {
      await t.app.jobs.drain();
      t.advanceClock(60);
    }
    const job = await renditions();
    expect(job.max_attempts).toBeLessThan(6);
    expect(job).toMatchObject({ status: 'queued', attempts: 0 });
    expect(job.last_error).toMatch(/^Waiting: the object store is unavailable \(StoreError: GetObject: .*\); runs again in \d+ s$/);
    expect(lines(logs, 'fault began')).toHaveLength(1);
    expect(lines(logs, '"job failed"')).toHaveLength(0);
  });
});
