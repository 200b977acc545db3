import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpTestApp, type TestApp } from './helpers/app.js';
import { registerUser, type Account } from './helpers/factories.js';
import { partUrl, startUpload } from './helpers/uploads.js';

/** Issue #28, items 3 and 4: slow bodies and deeply nested JSON, against a listening server. */
describe('request bounds', () => {
  let t: TestApp & { baseUrl: string };
  let port: number;
  let user: Account;
  beforeAll(async () => {
    t = await startHttpTestApp({ config: { bodyTimeoutMs: 1200, uploadIdleTimeoutMs: 1500 } });
    port = Number(new URL(t.baseUrl).port);
    user = await registerUser(t);
  });
  afterAll(() => t.close());

  /** A raw connection: resolves with everything the server sent and whether it closed, within `waitMs`. */
  function rawRequest(head: string, drip: { chunks: Buffer[]; everyMs: number }, waitMs: number): Promise<{ answer: string; closed: boolean; socket: Socket }> {
    return new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let answer = '';
      let closed = false;
      socket.on('data', (d) => (answer += d.toString('latin1')));
      socket.on('error', () => undefined);
      socket.on('close', () => (closed = true));
      socket.write(head);
      let i = 0;
      const timer = setInterval(() => {
        if (closed || i >= drip.chunks.length) return clearInterval(timer);
        socket.write(drip.chunks[i++]!);
      }, drip.everyMs);
      setTimeout(() => {
        clearInterval(timer);
        resolve({ answer, closed, socket });
      }, waitMs);
    });
  }

  it('closes a sign-in whose body trickles in slower than DAM_BODY_TIMEOUT allows, with 408', async () => {
    const head = 'POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n';
    const chunks = Array.from({ length: 40 }, () => Buffer.from(' '));
    const started = Date.now();
    const { answer, closed, socket } = await rawRequest(head, { chunks, everyMs: 100 }, 3500);
    socket.destroy();
    expect(closed).toBe(true);
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it('lets a part upload that is slow but steady run past DAM_BODY_TIMEOUT, and cuts one that stops sending', async () => {
    const ref = await startUpload(t, user);
    const url = new URL(await partUrl(t, user, ref, 1));
    const size = 30;
    const head = `PUT ${url.pathname}${url.search} HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: ${size}\r\nConnection: close\r\n\r\n`;
    // 30 bytes, one every 100 ms: 3 s in all, well past the 1.2 s body deadline, never idle for 1.5 s.
    const steady = await rawRequest(head, { chunks: Array.from({ length: size }, () => Buffer.from('a')), everyMs: 100 }, 4500);
    steady.socket.destroy();
    expect(steady.answer).toMatch(/^HTTP\/1\.1 200/);

    const url2 = new URL(await partUrl(t, user, ref, 2));
    const head2 = `PUT ${url2.pathname}${url2.search} HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: ${size}\r\n\r\n`;
    // Three bytes, then nothing: cut after 1.5 s without a byte.
    const stalled = await rawRequest(head2, { chunks: [Buffer.from('abc')], everyMs: 50 }, 3500);
    stalled.socket.destroy();
    expect(stalled.closed).toBe(true);
    expect(stalled.answer).toMatch(/^HTTP\/1\.1 408/);
  });

  it('refuses JSON nested deeper than 64 levels with a 400 naming the limit, on sign-in and the Stripe webhook', async () => {
    const deep = '['.repeat(500_000) + ']'.repeat(500_000);
    for (const path of ['/auth/register', '/payments/webhook', '/shared/public/abcdefgh/unlock']) {
      const res = await fetch(`${t.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: deep });
      expect([400, 413], path).toContain(res.status);
      const body = (await res.json()) as { code: string; error: string };
      expect(body.code, path).toMatch(/VALIDATION_ERROR|PAYLOAD_TOO_LARGE/);
    }
    // Within a route's body limit, the depth itself is named.
    const nested = '{"metadata":' + '['.repeat(65) + ']'.repeat(65) + '}';
    const res = await fetch(`${t.baseUrl}/dam/assets/1`, { method: 'PATCH', headers: { 'content-type': 'application/json', authorization: `Bearer ${user.token}` }, body: nested });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toContain('more than 64 levels deep');
    // 64 levels are parsed (and judged by the route's own rules).
    const ok = '{"metadata":{"a":' + '['.repeat(60) + ']'.repeat(60) + '}}';
    const fine = await fetch(`${t.baseUrl}/dam/assets/1`, { method: 'PATCH', headers: { 'content-type': 'application/json', authorization: `Bearer ${user.token}` }, body: ok });
    expect(((await fine.json()) as { error?: string }).error ?? '').not.toContain('more than 64 levels deep');
  });

  it('gives sign-in routes a small body limit: a 100 KiB login is 413 before it is parsed', async () => {
    const body = JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(100 * 1024) });
    const res = await fetch(`${t.baseUrl}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { code: string }).code).toBe('PAYLOAD_TOO_LARGE');
  });
});
