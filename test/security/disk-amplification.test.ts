import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectStatus } from '../cluster/cluster.js';
import { diskBytes, eventually, largeFiles, registerOwner, startSecurityServer, type Owner, type SecurityServer } from './server.js';

const MiB = 1024 * 1024;
/** DAM_MAX_FILE_SIZE of this server. */
const MAX_FILE = MiB;
/** What the data dir may grow by on top of the bytes a scenario may store (directories, a thumbnail). */
const SLACK = 256 * 1024;

/**
 * A stored (uncompressed) ZIP of one local entry, `size` zero bytes, and `records` central-directory
 * records that all point at it under names of their own. Each record alone is a sound entry, well within
 * every per-entry limit; together they would write `records` x `size` bytes from one copy of them.
 */
function overlappingZip(size: number, records: number): Buffer {
  const data = Buffer.alloc(size);
  const crc = zlib.crc32(data);
  const localName = Buffer.from('zeros.bin');
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt32LE(crc >>> 0, 14);
  local.writeUInt32LE(size, 18);
  local.writeUInt32LE(size, 22);
  local.writeUInt16LE(localName.length, 26);
  const centrals: Buffer[] = [];
  for (let i = 0; i < records; i++) {
    const name = Buffer.from(`zeros-${i}.bin`);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(crc >>> 0, 16);
    central.writeUInt32LE(size, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    // Offset 0 (bytes 42-45 left zero): every record names the one local entry.
    centrals.push(central, name);
  }
  const cd = Buffer.concat(centrals);
  const localLength = local.length + localName.length + size;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(records, 8);
  end.writeUInt16LE(records, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(localLength, 16);
  return Buffer.concat([local, localName, data, cd, end]);
}

/** Issue #28, disk amplification: what a client can make the server write, measured as the bytes its data dir takes. */
describe('disk amplification against the built server', () => {
  let server: SecurityServer;
  let owner: Owner;
  beforeAll(async () => {
    server = await startSecurityServer({ DAM_MAX_FILE_SIZE: String(MAX_FILE), DAM_MIN_PART_SIZE: '1024', DAM_JOB_POLL_INTERVAL: '200' });
    owner = await registerOwner(server.base, 'owner@security.test');
  });
  afterAll(() => server?.stop());

  it('refuses a ZIP whose 300 central-directory records share one local entry, writing nothing beyond the archive', async () => {
    // 1,000,000 zeros: the archive stays under DAM_MAX_FILE_SIZE (1 MiB), so it can be uploaded at all.
    const archive = overlappingZip(1_000_000, 300);
    expect(archive.length).toBeLessThan(MAX_FILE);
    const before = diskBytes(server.dataDir);

    const form = new FormData();
    form.set('workspaceId', String(owner.workspaceId));
    form.set('file', new Blob([archive], { type: 'application/zip' }), 'overlap.zip');
    const assetId = expectStatus(await call(server.base, 'POST', '/api/upload-asset', { token: owner.token, body: form }), 201, 'upload-asset').json<{
      data: { id: number };
    }>().data.id;

    const started = await call(server.base, 'POST', '/zip/extract', { token: owner.token, json: { assetId } });
    // Refused in the job rather than at once (before the fix): wait for the job to end, to measure what it wrote.
    const job = started.status === 202 ? await waitForJob(started.json<{ data: { id: number } }>().data.id) : undefined;
    // Jobs the upload queued (its metadata) copy the archive to a temporary file for a moment.
    await eventually(() => diskBytes(server.dataDir) - before <= archive.length + SLACK, 10_000);
    const grown = diskBytes(server.dataDir) - before;
    expect(grown, `the data dir grew by ${grown} bytes for an archive of ${archive.length}: ${largeFiles(server.dataDir)}`).toBeLessThanOrEqual(archive.length + SLACK);
    // Refused at once, before the job is queued: the records overlap.
    expect(started.status, job ? JSON.stringify(job) : started.bytes.toString('utf8')).toBe(422);
    expect(started.json<{ code: string }>().code).toBe('ZIP_INVALID');
  });

  async function waitForJob(jobId: number): Promise<{ status: string; error: string | null }> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const job = expectStatus(await call(server.base, 'GET', `/zip/extract/${jobId}`, { token: owner.token }), 200, 'import status').json<{
        data: { status: string; error: string | null };
      }>().data;
      if (job.status === 'succeeded' || job.status === 'failed' || Date.now() > deadline) return job;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  it('keeps one part URL PUT four times with 8 MiB bodies to at most DAM_MAX_FILE_SIZE on disk', async () => {
    const qs = new URLSearchParams({ workspaceId: String(owner.workspaceId), fileType: 'application/octet-stream', fileName: 'big.bin' });
    const start = expectStatus(await call(server.base, 'GET', `/storage/start-upload?${qs.toString()}`, { token: owner.token }), 200, 'start-upload').json<{
      uploadId: string;
      assetId: number;
    }>();
    const ref = new URLSearchParams({ PartNumber: '1', UploadId: start.uploadId, assetId: String(start.assetId), workspaceId: String(owner.workspaceId) });
    const { url } = expectStatus(await call(server.base, 'GET', `/storage/get-upload-url?${ref.toString()}`, { token: owner.token }), 200, 'get-upload-url').json<{
      url: string;
    }>();
    const before = diskBytes(server.dataDir);

    const outcomes: string[] = [];
    for (let i = 0; i < 4; i++) {
      // A different body each time: each would be a file of its own beside the ones it replaced.
      const body = Buffer.alloc(8 * MiB, 0x61 + i);
      try {
        const res = await fetch(url, { method: 'PUT', body, headers: { 'content-type': 'application/octet-stream' } });
        await res.arrayBuffer();
        outcomes.push(String(res.status));
      } catch {
        // The server may cut the connection of a body it refuses while it streams.
        outcomes.push('cut');
      }
    }
    // Whatever a refused PUT wrote before it was stopped is removed (give the server a moment to do so).
    const bound = before + MAX_FILE + SLACK;
    await eventually(() => diskBytes(server.dataDir) <= bound, 5000);
    const grown = diskBytes(server.dataDir) - before;
    expect(grown, `the data dir grew by ${grown} bytes for 4 PUTs of 8 MiB: ${largeFiles(server.dataDir)}`).toBeLessThanOrEqual(MAX_FILE + SLACK);
    // An 8 MiB part of an upload that may hold 1 MiB is never taken.
    for (const outcome of outcomes) expect(outcome, outcomes.join(', ')).toMatch(/^(4\d\d|cut)$/);
  });
});
