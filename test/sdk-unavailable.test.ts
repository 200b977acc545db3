import { describe, expect, it } from 'vitest';
import { createDam, type FetchFn } from '../sdk/src/index.js';

/**
 * Issue #37: the SDK's API client sends a GET again when the server answers 503 with Retry-After (the database
 * restarting, the store stalling), a bounded number of times; other requests and other answers come back as they were.
 */

/** A fetch that answers the first `failures` requests `status` (with `retryAfter` unless null), then 200. */
function flakyFetch(failures: number, status = 503, retryAfter: string | null = '0'): FetchFn & { calls: string[] } {
  const calls: string[] = [];
  const fn = ((request: Request) => {
    calls.push(request.method);
    if (calls.length <= failures) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (retryAfter !== null) headers['retry-after'] = retryAfter;
      return Promise.resolve(new Response(JSON.stringify({ error: 'The database is unavailable', code: 'DATABASE_UNAVAILABLE' }), { status, headers }));
    }
    return Promise.resolve(Response.json({ id: 1, email: 'a@example.test' }));
  }) as FetchFn & { calls: string[] };
  fn.calls = calls;
  return fn;
}

describe('the SDK and a 503 with Retry-After', () => {
  it('sends a GET again after the Retry-After, and answers what came then', async () => {
    const fetchFn = flakyFetch(2);
    const { response } = await createDam({ baseUrl: 'http://dam.test', fetch: fetchFn }).api.GET('/auth/me');
    expect(response.status).toBe(200);
    expect(fetchFn.calls).toEqual(['GET', 'GET', 'GET']);
  });

  it('gives up after its attempts (3 by default), answering the last 503', async () => {
    const fetchFn = flakyFetch(10);
    const { response, error } = await createDam({ baseUrl: 'http://dam.test', fetch: fetchFn }).api.GET('/auth/me');
    expect(response.status).toBe(503);
    expect(error).toMatchObject({ code: 'DATABASE_UNAVAILABLE' });
    expect(fetchFn.calls).toHaveLength(3);
  });

  it('never sends a POST again, nor a GET answered 503 without Retry-After or another 5xx; 1 attempt turns it off', async () => {
    const post = flakyFetch(1);
    await createDam({ baseUrl: 'http://dam.test', fetch: post }).api.POST('/auth/logout', { body: null });
    expect(post.calls).toEqual(['POST']);
    const bare = flakyFetch(1, 503, null);
    expect((await createDam({ baseUrl: 'http://dam.test', fetch: bare }).api.GET('/auth/me')).response.status).toBe(503);
    const full = flakyFetch(1, 507);
    expect((await createDam({ baseUrl: 'http://dam.test', fetch: full }).api.GET('/auth/me')).response.status).toBe(507);
    const off = flakyFetch(1);
    expect((await createDam({ baseUrl: 'http://dam.test', fetch: off, unavailableAttempts: 1 }).api.GET('/auth/me')).response.status).toBe(503);
    expect([bare.calls, full.calls, off.calls].map((c) => c.length)).toEqual([1, 1, 1]);
  });

  it('stops waiting when the request is aborted', async () => {
    const fetchFn = flakyFetch(10, 503, '20');
    const controller = new AbortController();
    const started = Date.now();
    const answer = createDam({ baseUrl: 'http://dam.test', fetch: fetchFn }).api.GET('/auth/me', { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stopped')), 50);
    await expect(answer).rejects.toThrow('stopped');
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
