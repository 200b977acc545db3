import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as assetsRepo from '../src/repositories/assets.js';
import * as generationsRepo from '../src/repositories/image-generations.js';
import * as versionsRepo from '../src/repositories/versions.js';
import { ConfigError, loadConfig, type AppConfig } from '../src/config.js';
import { freePort, startTestApp, testConfig, type TestApp } from './helpers/app.js';
import { expectError, makeFolder, makeTeam, type Team } from './helpers/catalog-factories.js';
import { dialects, tempDir } from './helpers/databases.js';
import { startFakeOpenAI, type FakeOpenAI } from './helpers/fake-openai.js';
import { registerUser, type Account } from './helpers/factories.js';
import { getAssetJson, listVersions, pathOf } from './helpers/versions.js';
import { generatedFileName } from '../src/domain/generated-names.js';

interface Generation {
  id: number;
  workspace_id: number;
  folder_id: number | null;
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  prompt: string;
  negative_prompt: string | null;
  size: string;
  n: number;
  model: string;
  asset_ids: number[];
  error: string | null;
  created_at: number;
  updated_at: number;
}

const REFUSAL = 'Your request was rejected as a result of our safety system.';

/** AI image generation (issue #13) against a fake OpenAI Images API on 127.0.0.1, on every dialect. */
describe.each(dialects)('image generation (%s)', (dialect) => {
  let fake: FakeOpenAI;
  let t: TestApp;
  let team: Team;
  /** Every log line of the main app, at debug level. */
  const logs: string[] = [];
  /** Every answer body of every app of this suite. */
  const answers: string[] = [];
  const extraApps: TestApp[] = [];

  /** An app of this suite with the fake's URLs allowed through the fetcher and its config overridden. */
  async function startApp(config: Partial<AppConfig>, logStream?: { write(line: string): void }): Promise<TestApp> {
    const app = await startTestApp({
      dialect,
      logStream,
      config: {
        proxy: { ...testConfig().proxy, allowHosts: [fake.hostPort] },
        // No background loop: jobs run when a test drains them, so a test can stage a crashed run's leftovers first.
        jobs: { ...testConfig().jobs, concurrency: 0 },
        logLevel: logStream ? 'debug' : 'silent',
        ...config,
      },
    });
    const request = app.request;
    app.request = async (opts) => {
      const res = await request(opts);
      answers.push(res.body);
      return res;
    };
    if (app !== t) extraApps.push(app);
    return app;
  }

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    // Sessions outlive the clock moves of the retry and daily-limit tests.
    t = await startApp({ imageGen: fake.config({ dailyLimit: 20, timeoutMs: 3000 }), sessionTtl: 30 * 86_400 }, { write: (line) => logs.push(line) });
    team = await makeTeam(t);
  });
  afterEach(() => {
    fake.outage = null;
    fake.nextStatuses = [];
    fake.delayMs = 0;
    fake.answerBytes = null;
  });
  afterAll(async () => {
    for (const app of extraApps) await app.close();
    await t.close();
    await fake.close();
  });

  const post = (app: TestApp, who: Account | undefined, payload: Record<string, unknown>, headers: Record<string, string> = {}) =>
    app.request({ method: 'POST', url: '/generate-image', token: who?.token, payload, headers });
  const get = (app: TestApp, who: Account, id: number) => app.request({ method: 'GET', url: `/generate-image/${id}`, token: who.token });

  async function start(app: TestApp, who: Account, payload: Record<string, unknown>): Promise<Generation> {
    const res = await post(app, who, payload);
    expect(res.statusCode, res.body).toBe(202);
    return res.json<{ data: Generation }>().data;
  }
  async function status(app: TestApp, id: number, who: Account = team.owner): Promise<Generation> {
    const res = await get(app, who, id);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ data: Generation }>().data;
  }
  /** Runs every due job (the generation and the thumbnails its assets queue), then reads the generation. */
  async function settle(app: TestApp, id: number, who: Account = team.owner): Promise<Generation> {
    await app.app.jobs.drain();
    return status(app, id, who);
  }
  const requestsFor = (prompt: string) => fake.requests.filter((r) => String(r.body.prompt).startsWith(prompt));
  const assetCount = async (app: TestApp, workspaceId: number) =>
    Number(
      (await app.database.db.selectFrom('assets').select((eb) => eb.fn.countAll<number>().as('n')).where('workspace_id', '=', workspaceId).executeTakeFirstOrThrow()).n,
    );

  it('turns b64_json images into assets of the folder, with thumbnails, metadata and the upload in the activity log', async () => {
    const folder = await makeFolder(t, team.manager, team.ws);
    const prompt = 'A red fox in the snow, watercolour!';
    const queued = await start(t, team.manager, { workspaceId: team.ws, prompt, negative_prompt: 'people', n: 2, size: '512x512', folder_id: folder.id });
    expect(queued).toMatchObject({ workspace_id: team.ws, folder_id: folder.id, status: 'queued', prompt, negative_prompt: 'people', size: '512x512', n: 2, model: 'dall-e-3', asset_ids: [], error: null });

    const done = await settle(t, queued.id);
    expect(done).toMatchObject({ status: 'succeeded', error: null });
    expect(done.asset_ids).toHaveLength(2);
    // One request per image (dall-e-3 draws one per request), each with the key and the asked format.
    const sent = requestsFor(prompt);
    expect(sent).toHaveLength(2);
    for (const r of sent) {
      expect(r.authorization).toBe(`Bearer ${fake.apiKey}`);
      expect(Object.keys(r.body).sort()).toEqual(['model', 'n', 'prompt', 'response_format', 'size']);
      expect(r.body).toMatchObject({ model: 'dall-e-3', n: 1, size: '512x512', response_format: 'b64_json' });
      expect(r.body.prompt).toBe(`${prompt}\n\nDo not include: people`);
    }

    for (const [i, id] of done.asset_ids.entries()) {
      const asset = await getAssetJson(t, team.viewer, id);
      expect(asset).toMatchObject({
        workspace_id: team.ws,
        file_name: `A red fox in the snow watercolour ${i + 1}.png`,
        display_file_name: `A red fox in the snow watercolour ${i + 1}.png`,
        mime_type: 'image/png',
        file_type: 'image',
        width: 512,
        height: 512,
        orientation: 'square',
      });
      expect(asset.file_size).toBeGreaterThan(0);
      expect((asset as unknown as { folder_id: number }).folder_id).toBe(folder.id);
      expect(asset.metadata).toMatchObject({
        prompt,
        negative_prompt: 'people',
        revised_prompt: `A detailed digital painting: ${prompt}\n\nDo not include: people`,
        model: 'dall-e-3',
        size: '512x512',
      });
      expect(new Date(asset.metadata.generated_at as string).toISOString()).toBe(asset.metadata.generated_at);
      const [v1] = await listVersions(t, team.viewer, id);
      expect(v1).toMatchObject({ version: 'v1', is_current: true, preview_status: 'ready', mime_type: 'image/png' });
      const thumb = await t.app.inject({ method: 'GET', url: pathOf(v1!.thumbnail_url) });
      expect(thumb.statusCode).toBe(200);
      expect(await sharp(thumb.rawPayload).metadata()).toMatchObject({ format: 'webp', width: 256, height: 256 });
    }

    const listed = await t.request({ method: 'GET', url: `/dam/assets?workspaceId=${team.ws}&folder_id=${folder.id}`, token: team.viewer.token });
    expect(listed.json<{ data: { items: { id: number }[] } }>().data.items.map((a) => a.id).sort()).toEqual([...done.asset_ids].sort());
    const activity = await t.request({ method: 'GET', url: `/dam/activity?workspaceId=${team.ws}&limit=20`, token: team.owner.token });
    const uploads = activity
      .json<{ data: { items: { action: string; asset_id: number; actor: { id: number; name: string } }[] } }>()
      .data.items.filter((e) => e.action === 'asset.upload' && done.asset_ids.includes(e.asset_id));
    expect(uploads.map((e) => e.actor)).toEqual([team.manager.user, team.manager.user].map((u) => ({ id: u.id, name: u.name })));
    // The requester brought them in (issue #27): a generated image made private stays theirs to see.
    const uploaders = await t.database.db.selectFrom('assets').select('uploaded_by').where('id', 'in', done.asset_ids).execute();
    expect(uploaders.map((a) => a.uploaded_by)).toEqual([team.manager.user.id, team.manager.user.id]);
  });

  it('fetches url answers through the safe fetcher, and refuses them when the host is not allowed', async () => {
    const urlApp = await startApp({ imageGen: fake.config({ responseFormat: 'url' }) });
    const urlTeam = await makeTeam(urlApp);
    const prompt = 'A lighthouse at dusk';
    const queued = await start(urlApp, urlTeam.owner, { workspaceId: urlTeam.ws, prompt, size: '1024x1792' });
    const done = await settle(urlApp, queued.id, urlTeam.owner);
    expect(done).toMatchObject({ status: 'succeeded', folder_id: null });
    expect(requestsFor(prompt)[0]!.body.response_format).toBe('url');
    const asset = await getAssetJson(urlApp, urlTeam.owner, done.asset_ids[0]!);
    expect(asset).toMatchObject({ mime_type: 'image/png', width: 1024, height: 1792, orientation: 'portrait' });
    const [v1] = await listVersions(urlApp, urlTeam.owner, asset.id);
    expect(v1!.preview_status).toBe('ready');

    // Without DAM_PROXY_ALLOW_HOSTS (its port allowed), 127.0.0.1 is a loopback address: the provider's URL is never fetched.
    const strict = await startApp({ imageGen: fake.config({ responseFormat: 'url' }), proxy: { ...testConfig().proxy, ports: [Number(fake.hostPort.split(':')[1])] } });
    const strictTeam = await makeTeam(strict);
    const refused = await settle(strict, (await start(strict, strictTeam.owner, { workspaceId: strictTeam.ws, prompt: 'A loopback lighthouse' })).id, strictTeam.owner);
    expect(refused.status).toBe('failed');
    expect(refused.error).toMatch(/may not be fetched.*loopback/);
    expect(refused.asset_ids).toEqual([]);
    expect(await assetCount(strict, strictTeam.ws)).toBe(0);
  });

  it('lets managers and admins generate, members read, and hides generations from everyone else', async () => {
    const body = { workspaceId: team.ws, prompt: 'Access check', size: '256x256' };
    expectError(await post(t, team.viewer, body), 403, 'FORBIDDEN');
    expectError(await post(t, team.outsider, body), 404, 'NOT_FOUND');
    expect((await post(t, undefined, body)).statusCode).toBe(401);
    const outsiderFolder = await makeFolder(t, team.outsider, team.otherWs);
    expectError(await post(t, team.owner, { ...body, folder_id: outsiderFolder.id }), 400, 'VALIDATION_ERROR', 'folder_id');

    const generation = await start(t, team.owner, body);
    expect((await status(t, generation.id, team.viewer)).prompt).toBe('Access check');
    expect((await status(t, generation.id, team.manager)).id).toBe(generation.id);
    expectError(await get(t, team.outsider, generation.id), 404, 'NOT_FOUND');
    expectError(await get(t, team.owner, generation.id + 1000), 404, 'NOT_FOUND');
    await t.app.jobs.drain();
  });

  it('refuses malformed requests before anything is queued', async () => {
    const ok = { workspaceId: team.ws, prompt: 'Valid' };
    for (const [payload, field] of [
      [{ ...ok, n: 5 }, 'n'],
      [{ ...ok, n: 0 }, 'n'],
      [{ ...ok, size: '100x100' }, 'size'],
      [{ ...ok, prompt: '' }, 'prompt'],
      [{ ...ok, prompt: 'x'.repeat(4001) }, 'prompt'],
      [{ ...ok, prompt: 'bell\u0007' }, 'prompt'],
      [{ ...ok, negative_prompt: 'y'.repeat(1001) }, 'negative_prompt'],
      [{ ...ok, extra: true }, 'extra'],
    ] as const) {
      const res = await post(t, team.owner, payload);
      expect(res.statusCode, JSON.stringify(payload).slice(0, 80)).toBe(400);
      expect(res.json<{ field: string }>().field).toBe(field);
    }
    expectError(await post(t, team.owner, { prompt: 'no workspace' }), 400, 'MISSING_PARAMETER', 'workspaceId');
  });

  it('answers 404 IMAGE_GEN_NOT_CONFIGURED on both operations when no provider is configured', async () => {
    const bare = await startApp({ imageGen: null });
    const owner = await registerUser(bare);
    expectError(await post(bare, owner, { workspaceId: owner.workspaceId, prompt: 'Anything' }), 404, 'IMAGE_GEN_NOT_CONFIGURED');
    expectError(await get(bare, owner, 1), 404, 'IMAGE_GEN_NOT_CONFIGURED');
  });

  it("fails a refused prompt at once with the provider's reason and creates nothing", async () => {
    const before = await assetCount(t, team.ws);
    const prompt = 'Something forbidden';
    const done = await settle(t, (await start(t, team.manager, { workspaceId: team.ws, prompt, n: 3 })).id);
    expect(done.status).toBe('failed');
    expect(done.error).toBe(`${REFUSAL} Your prompt may contain text that is not allowed by our safety system. (content_policy_violation)`);
    expect(done.asset_ids).toEqual([]);
    expect(requestsFor(prompt)).toHaveLength(1);
    expect(await assetCount(t, team.ws)).toBe(before);
  });

  it('retries an unavailable provider with back-off and then makes only the missing images', async () => {
    const prompt = 'Storm over the sea';
    const generation = await start(t, team.owner, { workspaceId: team.ws, prompt, n: 2, size: '256x256' });
    // The first image is made, then the provider goes down.
    fake.nextStatuses = [200, 500];
    await t.app.jobs.drain();
    let now = await status(t, generation.id);
    expect(now.status).toBe('queued');
    expect(now.error).toBe('The image provider is unavailable (HTTP 500)');
    expect(now.asset_ids).toHaveLength(1);
    const first = now.asset_ids[0];

    // Not before the back-off (DAM_JOB_RETRY_BASE 10 s): nothing happens.
    const sentBefore = requestsFor(prompt).length;
    await t.app.jobs.drain();
    expect(requestsFor(prompt)).toHaveLength(sentBefore);

    t.advanceClock(10);
    now = await settle(t, generation.id);
    expect(now).toMatchObject({ status: 'succeeded', error: null });
    expect(now.asset_ids).toHaveLength(2);
    expect(now.asset_ids[0]).toBe(first);
    // One more request only: the image made before the outage is not made again.
    expect(requestsFor(prompt)).toHaveLength(sentBefore + 1);
  });

  it('gives up after the last attempt and removes an image claimed but never stored', async () => {
    const prompt = 'Rate limited';
    fake.outage = 429;
    const generation = await start(t, team.owner, { workspaceId: team.ws, prompt, n: 1, size: '256x256' });
    // A run that died after claiming the image (its asset 'uploading', v1 reserved), before storing it.
    const orphan = await claimLikeACrashedRun(t, generation, 0);
    for (let attempt = 1; attempt <= t.config.jobs.maxAttempts; attempt += 1) {
      await t.app.jobs.drain();
      // Past the longest back-off of five attempts (80 s).
      t.advanceClock(100);
    }
    const done = await status(t, generation.id);
    expect(done).toMatchObject({ status: 'failed', error: 'The image provider is unavailable (HTTP 429)', asset_ids: [] });
    expect(requestsFor(prompt)).toHaveLength(t.config.jobs.maxAttempts);
    expect(await assetsRepo.findAsset(t.database.db, orphan)).toBeUndefined();
  });

  it('fails when the provider cannot be reached or does not answer in time', async () => {
    const port = await freePort();
    const down = await startApp({ imageGen: fake.config({ url: `http://127.0.0.1:${port}/v1` }), jobs: { ...testConfig().jobs, concurrency: 0, maxAttempts: 2 } });
    const owner = await registerUser(down);
    const generation = await start(down, owner, { workspaceId: owner.workspaceId, prompt: 'Nobody home' });
    await down.app.jobs.drain();
    expect(await status(down, generation.id, owner)).toMatchObject({ status: 'queued', error: 'The image provider could not be reached' });
    down.advanceClock(10);
    expect(await settle(down, generation.id, owner)).toMatchObject({
      status: 'failed',
      error: 'The image provider could not be reached',
    });

    fake.delayMs = 5000;
    const slow = await start(t, team.owner, { workspaceId: team.ws, prompt: 'Slow painter', size: '256x256' });
    await t.app.jobs.drain();
    expect(await status(t, slow.id)).toMatchObject({ status: 'queued', error: 'The image provider did not answer in time' });
    fake.delayMs = 0;
    t.advanceClock(10);
    expect((await settle(t, slow.id)).status).toBe('succeeded');
  });

  it('refuses answers that are not raster images', async () => {
    fake.answerBytes = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    const done = await settle(t, (await start(t, team.owner, { workspaceId: team.ws, prompt: 'Sneaky', size: '256x256' })).id);
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/not a PNG, JPEG, WebP or GIF/);
    expect(requestsFor('Sneaky')).toHaveLength(1);
  });

  it('creates the assets of a generation once, however often its job runs', async () => {
    const prompt = 'Twice told tale';
    const generation = await start(t, team.owner, { workspaceId: team.ws, prompt, n: 2, size: '256x256' });
    // A run died after claiming image 1 (not yet stored): the next run stores into that same asset.
    const claimed = await claimLikeACrashedRun(t, generation, 1);
    const done = await settle(t, generation.id);
    expect(done.status, JSON.stringify(done)).toBe('succeeded');
    expect(done.asset_ids, JSON.stringify(done)).toHaveLength(2);
    expect(done.asset_ids[1]).toBe(claimed);
    expect((await getAssetJson(t, team.owner, claimed)).width).toBe(256);
    expect(requestsFor(prompt)).toHaveLength(2);

    // The worker dies after the last image but before recording success: its lease runs out, the job runs again.
    const db = t.database.db;
    const job = await db.selectFrom('jobs').select('id').where('kind', '=', 'image.generate').where('payload', '=', JSON.stringify({ generationId: generation.id })).executeTakeFirstOrThrow();
    await db.updateTable('jobs').set({ status: 'running', locked_by: 'dead-worker', locked_until: 1, finished_at: null }).where('id', '=', job.id).execute();
    await db.updateTable('image_generations').set({ status: 'running' }).where('id', '=', generation.id).execute();
    const again = await settle(t, generation.id);
    expect(again.status).toBe('succeeded');
    expect(again.asset_ids).toEqual(done.asset_ids);
    expect(requestsFor(prompt)).toHaveLength(2);
    const rows = await db.selectFrom('image_generation_images').selectAll().where('generation_id', '=', generation.id).execute();
    expect(rows.map((r) => r.asset_id).sort()).toEqual([...done.asset_ids].sort());
  });

  it('replays a request sent again with the same Idempotency-Key', async () => {
    const body = { workspaceId: team.ws, prompt: 'Once only', size: '256x256' };
    const first = await post(t, team.owner, body, { 'idempotency-key': 'generate-once' });
    const second = await post(t, team.owner, body, { 'idempotency-key': 'generate-once' });
    expect(first.statusCode).toBe(202);
    expect(second.statusCode).toBe(202);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json<{ data: Generation }>().data.id).toBe(first.json<{ data: Generation }>().data.id);
    await t.app.jobs.drain();
    expect(requestsFor('Once only')).toHaveLength(1);
  });

  it('limits the images a workspace asks for per UTC day', async () => {
    const owner = await registerUser(t);
    const body = { workspaceId: owner.workspaceId, prompt: 'Daily', size: '256x256', n: 4 };
    for (let i = 0; i < 5; i += 1) await start(t, owner, body);
    const over = await post(t, owner, { ...body, n: 1 });
    expectError(over, 429, 'IMAGE_GEN_DAILY_LIMIT');
    const details = over.json<{ limit: number; used: number; resets_at: number }>();
    expect(details).toMatchObject({ limit: 20, used: 20 });
    expect(details.resets_at % 86_400).toBe(0);
    // Another workspace has its own count.
    await start(t, team.owner, { ...body, workspaceId: team.ws, n: 1 });
    // The next UTC day starts afresh (a day on from any time of today is past resets_at).
    t.advanceClock(86_400);
    await start(t, owner, body);
    await t.app.jobs.drain();
  });

  it('never shows or logs the API key, even when the provider rejects it', async () => {
    const wrongKey = `sk-wrong-${'k'.repeat(24)}wxyz`;
    const misconfigured = await startApp({ imageGen: fake.config({ apiKey: wrongKey }) });
    const owner = await registerUser(misconfigured);
    const done = await settle(misconfigured, (await start(misconfigured, owner, { workspaceId: owner.workspaceId, prompt: 'Keyless' })).id, owner);
    // OpenAI's 401 message quotes the key's ends: it is replaced by our own words.
    expect(done).toMatchObject({ status: 'failed', error: 'The image provider did not accept the configured API key (HTTP 401)' });
    expect(requestsFor('Keyless')).toHaveLength(1);

    const all = answers.join('\n');
    expect(all).not.toContain(fake.apiKey);
    expect(all).not.toContain(wrongKey);
    expect(all).not.toContain('wxyz');
    expect(logs.length).toBeGreaterThan(0);
    expect(logs.some((line) => line.includes('job failed'))).toBe(true);
    expect(logs.join('\n')).not.toContain(fake.apiKey);
    expect(logs.join('\n')).not.toContain(fake.apiKey.slice(-12));
  });

  /** What a run leaves when it dies between claiming image `index` and storing it: an 'uploading' asset with a reserved v1. */
  async function claimLikeACrashedRun(app: TestApp, g: Generation, index: number): Promise<number> {
    const db = app.database.db;
    const now = Math.floor(Date.now() / 1000);
    const asset = await assetsRepo.insertAsset(db, {
      workspace_id: g.workspace_id,
      file_name: `claimed ${index + 1}.png`,
      mime_type: 'image/png',
      file_size: 0,
      created_by: 'test',
      uploaded_by: null,
      created_at: now,
      status: 'uploading',
    });
    await db.updateTable('assets').set({ storage_key: `${g.workspace_id}/digital_assets/${asset.id}` }).where('id', '=', asset.id).execute();
    const version = await versionsRepo.insertUploadingVersion(db, {
      asset_id: asset.id,
      workspace_id: g.workspace_id,
      file_name: asset.file_name,
      display_file_name: asset.display_file_name,
      mime_type: 'image/png',
      storage_key: `${g.workspace_id}/digital_assets/${asset.id}`,
      created_by: 'test',
      created_at: now,
    });
    expect(await generationsRepo.claimSlot(db, { generation_id: g.id, image_index: index, asset_id: asset.id, version_id: version.id })).toBe(true);
    return asset.id;
  }
});

describe('image generation configuration', () => {
  const env = (vars: Record<string, string> = {}) => ({ DAM_DATA_DIR: tempDir('dam-config-'), DAM_JWT_SECRET: 's'.repeat(32), ...vars });

  it('is off without an API key and reads the DAM_IMAGE_GEN_* variables with it', () => {
    expect(loadConfig(env({ DAM_IMAGE_GEN_URL: 'https://images.example/v1' })).imageGen).toBeNull();
    expect(loadConfig(env({ DAM_IMAGE_GEN_API_KEY: 'sk-1' })).imageGen).toEqual({
      url: 'https://api.openai.com/v1',
      apiKey: 'sk-1',
      model: 'dall-e-3',
      dailyLimit: 50,
      timeoutMs: 120_000,
      responseFormat: 'b64_json',
    });
    const custom = {
      DAM_IMAGE_GEN_API_KEY: 'sk-2',
      DAM_IMAGE_GEN_URL: 'http://images.internal:8080/v1/',
      DAM_IMAGE_GEN_MODEL: 'gpt-image-1',
      DAM_IMAGE_GEN_DAILY_LIMIT: '7',
      DAM_IMAGE_GEN_TIMEOUT: '30',
      DAM_IMAGE_GEN_RESPONSE_FORMAT: 'omit',
    };
    expect(loadConfig(env(custom)).imageGen).toEqual({
      url: 'http://images.internal:8080/v1',
      apiKey: 'sk-2',
      model: 'gpt-image-1',
      dailyLimit: 7,
      timeoutMs: 30_000,
      responseFormat: 'omit',
    });
  });

  it('refuses values it cannot use, naming the variable', () => {
    for (const [name, value] of [
      ['DAM_IMAGE_GEN_URL', 'ftp://images.example'],
      ['DAM_IMAGE_GEN_DAILY_LIMIT', '0'],
      ['DAM_IMAGE_GEN_TIMEOUT', 'soon'],
      ['DAM_IMAGE_GEN_RESPONSE_FORMAT', 'png'],
    ] as const) {
      expect(() => loadConfig(env({ DAM_IMAGE_GEN_API_KEY: 'sk-3', [name]: value }))).toThrow(ConfigError);
      expect(() => loadConfig(env({ DAM_IMAGE_GEN_API_KEY: 'sk-3', [name]: value }))).toThrow(name);
    }
  });
});

describe('generated file names', () => {
  it('keep the words of the prompt, cut at a word, without separators, controls or bidi characters', () => {
    expect(generatedFileName('../../etc/passwd', 0, 'png')).toBe('etc passwd 1.png');
    expect(generatedFileName('Ein Fuchs im Schnee, äußerst 🦊 ruhig\u202e', 2, 'webp')).toBe('Ein Fuchs im Schnee äußerst ruhig 3.webp');
    expect(generatedFileName('雪の中の狐', 0, 'png')).toBe('雪の中の狐 1.png');
    expect(generatedFileName('!!! ???', 0, 'jpg')).toBe('generated image 1.jpg');
    const long = generatedFileName('word '.repeat(40), 0, 'png');
    expect(long).toBe(`${'word '.repeat(12).trim()} 1.png`);
    expect(generatedFileName('x'.repeat(100), 0, 'png')).toBe(`${'x'.repeat(60)} 1.png`);
  });
});
