import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StorageConfig } from '../src/config.js';
import { GuardedBody } from '../src/storage/body-guard.js';
import { StoreError } from '../src/storage/object-store.js';
import { S3Store } from '../src/storage/s3-store.js';
import { startFaultProxy, type FaultProxy } from './faults/fault-proxy.js';
import { tempDir } from './helpers/databases.js';
import { startS3Server, type S3Server } from './helpers/uploads.js';

/**
 * Issue #37: the S3 client's retries and timeouts against a store that errs or stalls (the fault proxy of
 * test/faults/ before s3rver), and the guard on streamed bodies. The whole service under these faults is
 * test/faults/object-store.test.ts.
 */

const TIMEOUT_MS = 1000;
const ATTEMPTS = 2;

function collect(stream: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.once('end', () => resolve(Buffer.concat(chunks)));
    stream.once('error', reject);
  });
}

async function failure(p: Promise<unknown>): Promise<StoreError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StoreError);
  return err as StoreError;
}

describe('the S3 store when the store errs or stalls', () => {
  let s3: S3Server;
  let proxy: FaultProxy;
  let store: S3Store;
  const bodyFailures: StoreError[] = [];
  const big = randomBytes(3 * 1024 * 1024);
  const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

  beforeAll(async () => {
    s3 = await startS3Server();
    const bucket = await s3.newBucket();
    proxy = await startFaultProxy(s3.endpoint, { random: () => 0 });
    const config: Extract<StorageConfig, { kind: 's3' }> = {
      ...bucket,
      endpoint: proxy.endpoint,
      client: { maxAttempts: ATTEMPTS, retryMode: 'standard', connectTimeoutMs: TIMEOUT_MS, requestTimeoutMs: TIMEOUT_MS, maxSockets: 8 },
    };
    store = new S3Store(config, (err) => bodyFailures.push(err));
    const file = path.join(tempDir('dam-s3-faults-'), 'big.bin');
    writeFileSync(file, big);
    await store.putFile('big', file, 'application/octet-stream');
  });

  afterAll(async () => {
    await proxy?.close();
    await s3?.close();
  });

  it('tries a 500 InternalError DAM_S3_MAX_ATTEMPTS times, then fails with its status (503 STORAGE_UNAVAILABLE)', async () => {
    proxy.set('error500');
    const err = await failure(store.head('big'));
    expect(err.httpStatus).toBe(500);
    expect(err.unavailable).toBe(true);
    expect(proxy.counts.requests).toBe(ATTEMPTS);
    proxy.set('pass');
  });

  it('tries a 503 SlowDown again, and succeeds once the store answers', async () => {
    proxy.set('slowDown');
    // A GET, whose error has a body to name the code (a HEAD's has none).
    const err = await failure(store.read('big'));
    expect(err.providerCode).toBe('SlowDown');
    expect(err.httpStatus).toBe(503);
    expect(proxy.counts.requests).toBe(ATTEMPTS);
    expect(err.unavailable).toBe(true);
    proxy.set('pass');
    expect((await store.head('big'))?.size).toBe(big.length);
  });

  it('gives up on a stalled store after the timeouts: no answer is unavailable, not a hang', async () => {
    proxy.set('stall');
    const started = performance.now();
    const head = await failure(store.head('big'));
    const read = await failure(store.read('big'));
    const elapsed = performance.now() - started;
    proxy.set('pass');
    expect(head.httpStatus).toBeUndefined();
    expect(head.unavailable).toBe(true);
    expect(read.unavailable).toBe(true);
    // Two calls, each ATTEMPTS attempts of at most the timeout (plus the deferred registration and the backoff).
    expect(elapsed).toBeLessThan(2 * ATTEMPTS * (TIMEOUT_MS + 1000) + 2000);
    expect(sha(await collect((await store.read('big')).stream))).toBe(sha(big));
  });

  it('never reports a multipart completion whose answer was cut as done; the object S3 joined is there', async () => {
    const uploadId = await store.createMultipartUpload('joined', 'application/octet-stream');
    const put = await fetch(await store.partUploadUrl('joined', uploadId, 1, 60), { method: 'PUT', body: big.subarray(0, 100_000) });
    await put.arrayBuffer();
    expect(put.status).toBe(200);
    const parts = [{ PartNumber: 1, ETag: put.headers.get('etag')! }];
    proxy.set('reset');
    // Every answer is cut in the middle: S3's "done" of the first attempt, then its NoSuchUpload to the retry.
    const cut = await failure(store.completeMultipartUpload('joined', uploadId, parts));
    expect(proxy.counts.requests).toBe(ATTEMPTS);
    proxy.set('pass');
    expect(cut.unavailable).toBe(true);
    // Asked again (a client's retry of complete-upload), the store says the upload is gone (S3: NoSuchUpload; s3rver: a
    // 500): storage-service then heads the object, which the store did join.
    const again = await failure(store.completeMultipartUpload('joined', uploadId, parts));
    expect(again.providerCode === 'NoSuchUpload' || again.unavailable, again.message).toBe(true);
    expect((await store.head('joined'))?.size).toBe(100_000);
  });

  it('fails a body reset in the middle as a StoreError, never as a short body that ends', async () => {
    proxy.set('reset');
    const body = await store.read('big');
    const err = await failure(collect(body.stream));
    proxy.set('pass');
    expect(err.unavailable).toBe(true);
    expect(bodyFailures.at(-1)).toBe(err);
  });
});

describe('CompleteMultipartUpload answered 200 with an error in its body', () => {
  it('is an error, never a success (the SDK reads the body of a 200)', async () => {
    const server = http.createServer((req, res) => {
      req.resume();
      req.once('end', () => {
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InternalError</Code><Message>We encountered an internal error.</Message></Error>');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const store = new S3Store({
        kind: 's3',
        bucket: 'b',
        endpoint: `http://127.0.0.1:${port}`,
        region: 'us-east-1',
        accessKeyId: 'k',
        secretAccessKey: 's',
        forcePathStyle: true,
        client: { maxAttempts: ATTEMPTS, retryMode: 'standard', connectTimeoutMs: TIMEOUT_MS, requestTimeoutMs: TIMEOUT_MS, maxSockets: 2 },
      });
      const err = await failure(store.completeMultipartUpload('k', 'upload', [{ PartNumber: 1, ETag: '"x"' }]));
      expect(err.providerCode).toBe('InternalError');
      expect(err.unavailable).toBe(true);
    } finally {
      server.close();
    }
  });
});

describe('GuardedBody', () => {
  const fail = (cause: Error) => new StoreError(`body: ${cause.message}`, undefined, undefined, { cause });

  it('cuts a body that stops arriving while its reader waits', async () => {
    const source = new PassThrough();
    const guarded = new GuardedBody(source, { idleMs: 200, expected: 10, fail });
    source.write(Buffer.alloc(4));
    const started = performance.now();
    const err = await failure(collect(guarded));
    expect(err.message).toMatch(/no byte of the body for 200 ms/);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(source.destroyed).toBe(true);
  });

  it('never cuts a body its reader is slow to take', async () => {
    const source = Readable.from((function* () {
      for (let i = 0; i < 64; i += 1) yield Buffer.alloc(64 * 1024, i);
    })());
    const guarded = new GuardedBody(source, { idleMs: 100, expected: 64 * 64 * 1024, fail });
    let got = 0;
    for await (const chunk of guarded) {
      got += (chunk as Buffer).length;
      // A reader slower than the idle timeout, now and then.
      if (got % (16 * 64 * 1024) === 0) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(got).toBe(64 * 64 * 1024);
  });

  it('fails a body that ends short of its length', async () => {
    const guarded = new GuardedBody(Readable.from([Buffer.alloc(5)]), { idleMs: 1000, expected: 10, fail });
    expect((await failure(collect(guarded))).message).toMatch(/ended after 5 of 10 bytes/);
  });

  it('destroyed by its reader, it destroys the source and reports nothing', async () => {
    const source = new PassThrough();
    const reported: Error[] = [];
    const guarded = new GuardedBody(source, { idleMs: 50, expected: undefined, fail: (e) => (reported.push(e), e) });
    guarded.resume();
    guarded.destroy();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(source.destroyed).toBe(true);
    expect(reported).toEqual([]);
  });
});
