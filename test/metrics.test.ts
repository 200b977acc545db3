import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { tempDir } from './helpers/databases.js';
import { dialects } from './helpers/databases.js';
import { registerUser, type Account } from './helpers/factories.js';
import { keyOf, startStorageApp, uploadFile, type StorageTestApp } from './helpers/uploads.js';

/** The value of one series of the Prometheus text, or undefined when absent. Labels are matched as written. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const body = /^[^{ ]+(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!body) continue;
    const have = body[1] ?? '';
    if (Object.entries(labels).every(([k, v]) => have.includes(`${k}="${v}"`))) return Number(body[2]);
  }
  return undefined;
}

/**
 * Prometheus's own linter, `promtool check metrics` (Debian's prometheus package). DAM_TEST_REQUIRE_PROMTOOL=1
 * (set by .ci/run) turns a missing promtool into a failure, so CI cannot skip the check silently.
 */
const hasPromtool = spawnSync('promtool', ['--version']).status === 0;
if (!hasPromtool && process.env.DAM_TEST_REQUIRE_PROMTOOL === '1') {
  throw new Error('DAM_TEST_REQUIRE_PROMTOOL=1 but there is no promtool on PATH (apt-get install prometheus)');
}

async function scrape(t: TestApp, headers: Record<string, string> = {}): Promise<string> {
  const res = await t.request({ method: 'GET', url: '/metrics', headers });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.body;
}

describe.each(dialects)('GET /metrics on %s', (dialect) => {
  let t: StorageTestApp;
  let user: Account;
  beforeAll(async () => {
    t = await startStorageApp('local', undefined, { dialect });
    user = await registerUser(t);
  });
  afterAll(() => t.close());

  it('counts requests by route pattern and status, never by raw URL', async () => {
    const headers = { authorization: `Bearer ${user.token}` };
    for (let i = 0; i < 3; i += 1) expect((await fetch(`${t.baseUrl}/auth/me`, { headers })).status).toBe(200);
    expect((await fetch(`${t.baseUrl}/dam/assets/987654`, { headers })).status).toBe(404);
    expect((await fetch(`${t.baseUrl}/no/such/route-${randomBytes(4).toString('hex')}`)).status).toBe(404);
    const text = await scrape(t);
    expect(sample(text, 'dam_http_request_duration_seconds_count', { method: 'GET', route: '/auth/me', status: '200' })).toBe(3);
    expect(sample(text, 'dam_http_request_duration_seconds_count', { method: 'GET', route: '/dam/assets/:id', status: '404' })).toBe(1);
    expect(text).not.toContain('987654');
    expect(text).not.toContain('/no/such/route');
    expect(sample(text, 'dam_http_request_duration_seconds_count', { route: '(unmatched)', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'dam_http_request_duration_seconds_bucket', { route: '/auth/me', le: '+Inf' })).toBe(3);
    // Default process metrics come along.
    expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(text).toContain('nodejs_eventloop_lag_seconds');
  });

  it('writes the latency as a Prometheus histogram: cumulative buckets up to +Inf, then sum and count', async () => {
    const headers = { authorization: `Bearer ${user.token}` };
    const before = sample(await scrape(t), 'dam_http_request_duration_seconds_count', { method: 'GET', route: '/workspaces', status: '200' }) ?? 0;
    for (let i = 0; i < 4; i += 1) expect((await fetch(`${t.baseUrl}/workspaces`, { headers })).status).toBe(200);
    const text = await scrape(t);
    expect(text).toContain('# TYPE dam_http_request_duration_seconds histogram');
    const series = { method: 'GET', route: '/workspaces', status: '200' };
    const count = sample(text, 'dam_http_request_duration_seconds_count', series);
    expect(count).toBe(before + 4);
    const bounds = ['0.001', '0.0025', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '30', '+Inf'];
    const cumulative = bounds.map((le) => sample(text, 'dam_http_request_duration_seconds_bucket', { ...series, le }));
    for (let i = 1; i < cumulative.length; i += 1) expect(cumulative[i]).toBeGreaterThanOrEqual(cumulative[i - 1] as number);
    // Every answer took less than 30 s: the last finite bucket and +Inf hold them all.
    expect(cumulative.slice(-2)).toEqual([count, count]);
    const sum = sample(text, 'dam_http_request_duration_seconds_sum', series) as number;
    expect(sum).toBeGreaterThan(0);
    expect(sum).toBeLessThan(30 * (count as number));
    // Every line of the family is a HELP, a TYPE or a sample with a number: nothing malformed in between.
    for (const line of text.split('\n').filter((l) => l.includes('dam_http_request_duration_seconds'))) {
      expect(line).toMatch(/^(# (HELP|TYPE) dam_http_request_duration_seconds .+|dam_http_request_duration_seconds_(bucket|sum|count)\{[^{}]+\} [0-9.e+-]+)$/);
    }
  });

  it('counts the bytes of uploads and downloads on the routes that carry them', async () => {
    const bytes = randomBytes(64 * 1024);
    const { ref } = await uploadFile(t, user, bytes, { partSize: 32 * 1024 });
    const qs = new URLSearchParams({ key: keyOf(ref), workspaceId: String(ref.workspaceId) });
    const res = await fetch(`${t.baseUrl}/storage/download?${qs.toString()}`, { headers: { authorization: `Bearer ${user.token}` } });
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    // The answer is recorded when the server sees it finished, which may come just after this
    // client, in the same process, has read the last byte: wait for it (at most 2 s).
    let text = await scrape(t);
    for (let i = 0; i < 40 && sample(text, 'dam_http_sent_bytes_total', { route: '/storage/download' }) === undefined; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      text = await scrape(t);
    }
    const received = sample(text, 'dam_http_received_bytes_total', { route: '/storage/parts/:uploadId/:partNumber' }) ?? 0;
    const sent = sample(text, 'dam_http_sent_bytes_total', { route: '/storage/download' }) ?? 0;
    // The body plus request line and headers: more than the file, not wildly more.
    expect(received).toBeGreaterThanOrEqual(bytes.length);
    expect(received).toBeLessThan(bytes.length + 8 * 1024);
    expect(sent).toBeGreaterThanOrEqual(bytes.length);
    expect(sent).toBeLessThan(bytes.length + 8 * 1024);
  });

  it('reads queue depth and oldest age by kind from the jobs table, and records job runs and failures', async () => {
    const now = Math.floor(Date.now() / 1000);
    // Not due yet: the background worker leaves them alone while the queue is measured.
    const row = (createdAt: number) => ({
      kind: 'test.no_handler',
      payload: '{}',
      status: 'queued' as const,
      attempts: 0,
      max_attempts: 1,
      run_at: now + 3600,
      created_at: createdAt,
      updated_at: createdAt,
    });
    await t.database.db.insertInto('jobs').values([row(now - 120), row(now - 10)]).execute();
    let text = await scrape(t);
    expect(sample(text, 'dam_jobs', { kind: 'test.no_handler', status: 'queued' })).toBe(2);
    expect(sample(text, 'dam_jobs_oldest_age_seconds', { kind: 'test.no_handler', status: 'queued' })).toBeGreaterThanOrEqual(120);

    // Due now: a kind without a handler fails for good on its first run.
    await t.database.db.updateTable('jobs').set({ run_at: now - 1 }).where('kind', '=', 'test.no_handler').execute();
    await t.app.jobs.drain();
    text = await scrape(t);
    expect(sample(text, 'dam_jobs', { kind: 'test.no_handler' })).toBeUndefined();
    expect(sample(text, 'dam_job_duration_seconds_count', { kind: 'test.no_handler', outcome: 'failed' })).toBe(2);
    expect(sample(text, 'dam_job_failures_total', { kind: 'test.no_handler', final: 'true' })).toBe(2);
  });

  it('reads the free bytes of the data dir\'s file system when scraped, with the threshold of /readyz (issue #37)', async () => {
    const text = await scrape(t);
    const free = sample(text, 'dam_disk_free_bytes', { path: 'data' });
    expect(free).toBeGreaterThan(0);
    expect(sample(text, 'dam_disk_size_bytes', { path: 'data' })).toBeGreaterThanOrEqual(free!);
    // The test config turns the check off (0); the production default is 512 MiB.
    expect(sample(text, 'dam_disk_min_free_bytes')).toBe(t.config.readyMinFreeBytes);
    expect(text).toMatch(/^# TYPE dam_disk_free_bytes gauge$/m);
  });

  it(`reports the connection pool on PostgreSQL only`, async () => {
    const text = await scrape(t);
    if (dialect === 'postgres') {
      expect(sample(text, 'dam_db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'dam_db_pool_connections', { state: 'max' })).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'dam_db_pool_connections', { state: 'waiting' })).toBe(0);
    } else {
      expect(sample(text, 'dam_db_pool_connections', { state: 'total' })).toBeUndefined();
    }
  });

  it('keeps each app its own registry: a second app in the same process starts from zero', async () => {
    const other = await startTestApp({ dialect });
    try {
      expect((await other.request({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      const text = await scrape(other);
      expect(sample(text, 'dam_http_request_duration_seconds_count', { route: '/healthz' })).toBe(1);
      expect(sample(text, 'dam_http_request_duration_seconds_count', { route: '/auth/me' })).toBeUndefined();
    } finally {
      await other.close();
    }
  });

  it('names only counters *_total (issue #38: prom-client\'s nodejs_active_*_total gauges are dropped)', async () => {
    const text = await scrape(t);
    const types = [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name, type]) => ({ name: name!, type: type! }));
    expect(types.length).toBeGreaterThan(20);
    expect(types.filter((m) => m.name.endsWith('_total') && m.type !== 'counter')).toEqual([]);
    // The per-type gauges they summed stay.
    expect(types).toContainEqual({ name: 'nodejs_active_handles', type: 'gauge' });
    expect(types).toContainEqual({ name: 'process_cpu_seconds_total', type: 'counter' });
  });

  it.skipIf(!hasPromtool)('passes `promtool check metrics` clean', async () => {
    const text = await scrape(t);
    const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect({ status: check.status, output: `${check.stdout}${check.stderr}` }).toEqual({ status: 0, output: '' });
  });

  it('is left out of the OpenAPI document', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json<{ paths: Record<string, unknown> }>();
    expect(Object.keys(doc.paths)).not.toContain('/metrics');
  });
});

describe('who may scrape /metrics', () => {
  const TOKEN = 'metrics-token-0123456789abcdef';
  let open: TestApp;
  let guarded: TestApp;
  beforeAll(async () => {
    open = await startTestApp();
    guarded = await startTestApp({ config: { metricsToken: TOKEN } });
  });
  afterAll(async () => {
    await open.close();
    await guarded.close();
  });

  it('without DAM_METRICS_TOKEN: loopback clients only', async () => {
    expect((await open.request({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' })).statusCode).toBe(200);
    expect((await open.request({ method: 'GET', url: '/metrics', remoteAddress: '::1' })).statusCode).toBe(200);
    const outside = await open.request({ method: 'GET', url: '/metrics', remoteAddress: '203.0.113.7' });
    expect(outside.statusCode).toBe(403);
    expect(outside.json()).toEqual({ error: expect.stringContaining('DAM_METRICS_TOKEN') as string, code: 'FORBIDDEN' });
    // A reverse proxy on this machine connects from loopback on behalf of an outside client.
    const proxied = await open.request({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '203.0.113.7' } });
    expect(proxied.statusCode).toBe(403);
    expect(proxied.body).not.toContain('dam_http');
  });

  it('without DAM_METRICS_TOKEN and without a trusted proxy: any forwarding header means an outside client (issue #28)', async () => {
    const untrusting = await startTestApp({ config: { trustProxy: false } });
    try {
      const get = (headers: Record<string, string>) => untrusting.request({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1', headers });
      expect((await get({})).statusCode).toBe(200);
      const cases: Record<string, string>[] = [{ 'x-forwarded-for': '8.8.8.8' }, { forwarded: 'for=8.8.8.8' }, { 'x-real-ip': '8.8.8.8' }, { via: '1.1 proxy' }];
      for (const headers of cases) {
        const res = await get(headers);
        expect(res.statusCode, JSON.stringify(headers)).toBe(403);
        expect(res.json<{ error: string }>().error).toContain('DAM_METRICS_TOKEN');
      }
    } finally {
      await untrusting.close();
    }
  });

  it('with DAM_METRICS_TOKEN: the Bearer token, from anywhere; 401 otherwise', async () => {
    const get = (headers: Record<string, string>, remoteAddress = '203.0.113.7') => guarded.request({ method: 'GET', url: '/metrics', headers, remoteAddress });
    const missing = await get({}, '127.0.0.1');
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toEqual({ error: expect.stringContaining('DAM_METRICS_TOKEN') as string, code: 'UNAUTHORIZED' });
    expect((await get({ authorization: `Bearer ${TOKEN}x` })).statusCode).toBe(401);
    expect((await get({ authorization: 'Bearer short' })).statusCode).toBe(401);
    // A user's session token is not the metrics token.
    const user = await registerUser(guarded);
    expect((await get({ authorization: `Bearer ${user.token}` })).statusCode).toBe(401);
    const ok = await get({ authorization: `Bearer ${TOKEN}` });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toContain('dam_http_request_duration_seconds');
  });
});

describe('DAM_METRICS_TOKEN', () => {
  const env = (token?: string) => ({ DAM_JWT_SECRET: 'x'.repeat(32), DAM_DATA_DIR: tempDir(), ...(token === undefined ? {} : { DAM_METRICS_TOKEN: token }) });
  it('is optional, and refused when short or with whitespace', () => {
    expect(loadConfig(env()).metricsToken).toBeUndefined();
    expect(loadConfig(env('')).metricsToken).toBeUndefined();
    expect(loadConfig(env('a-metrics-token-of-some-length')).metricsToken).toBe('a-metrics-token-of-some-length');
    expect(() => loadConfig(env('short'))).toThrow(/DAM_METRICS_TOKEN must be 16 to 512 characters/);
    expect(() => loadConfig(env('with a space in the token'))).toThrow(/DAM_METRICS_TOKEN/);
  });
});
