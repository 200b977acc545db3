import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { testConfig } from '../helpers/app.js';
import { haveFfmpeg, testClip, testTone, wrappedFfmpeg } from '../helpers/media.js';
import { type BrowserApp, hasChromium, newPage, png, registerApi, screenshot, type Session, signedInPage, uploadApi, useBrowserSuite } from './harness.js';

interface ConversionJson {
  id: number;
  status: string;
  params: Record<string, unknown>;
  result_asset_id: number | null;
}
interface AssetJson {
  id: number;
  display_file_name: string;
  mime_type: string;
  width: number | null;
  folder_id: number | null;
  metadata: Record<string, unknown>;
}

/** The media element's state, read in the page (this file is type-checked without the DOM library). */
type Media = { readyState: number; currentTime: number; paused: boolean; muted: boolean; src: string; play(): Promise<void> };
const mediaState = (page: Page, selector: string) => page.locator(selector).evaluate((m: Media) => ({ readyState: m.readyState, currentTime: m.currentTime, src: m.src }));
const play = (page: Page, selector: string) =>
  page.locator(selector).evaluate(async (m: Media) => {
    m.muted = true;
    await m.play();
  });

/**
 * Issue #15 in the web client: the asset page's Convert dialog (a PNG to WebP as a new asset that
 * then shows in the library, the same request again answered with the same conversion, a refusal in
 * the API's words, a new version, a queued conversion canceled), a video's playable preview from
 * "preparing" to playing, audio, and a shared video playing in the public page's lightbox. Jobs run
 * only when the test drains the queue, so each state (queued, preparing) is seen for certain.
 */
describe.skipIf(!hasChromium || (!haveFfmpeg && process.env.CI !== 'true'))('conversion and media playback, in chromium', () => {
  let browser: Browser;
  let env: BrowserApp;
  let base: string;
  let owner: Session;
  let viewer: Session;
  let ws: number;
  const ids: Record<string, number> = {};

  async function api<T>(method: string, path: string, body?: unknown, who: Session = owner): Promise<T> {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${who.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { data: T }).data;
  }
  const drain = () => env.app.app.jobs.drain();
  const conversions = async () => (await api<{ items: ConversionJson[] }>('GET', `/convert/jobs?workspaceId=${ws}`)).items;

  useBrowserSuite(
    async (suite) => {
      ({ browser, env, base } = suite);
      owner = await registerApi(base, 'Ansel Adams');
      ws = owner.workspaces[0]!.id;
      const registered = await registerApi(base, 'Vivian Maier');
      await api('POST', `/workspaces/${ws}/members`, { email: registered.email, role: 'viewer' });
      viewer = { ...registered, workspaces: [{ id: ws, name: owner.workspaces[0]!.name, role: 'viewer' }] };
      const folder = (await api<{ id: number }>('POST', '/dam/folders', { workspace_id: ws, name: 'Coast', parent_id: null })).id;
      ids.folder = folder;
      ids.png = (await uploadApi(base, owner.token, ws, { name: 'Harbour.png', type: 'image/png', data: await png(1200, 800, '#1971c2'), folderId: folder })).id;
      ids.logo = (await uploadApi(base, owner.token, ws, { name: 'Logo.png', type: 'image/png', data: await png(400, 400, '#e03131') })).id;
      ids.audio = (await uploadApi(base, owner.token, ws, { name: 'Tone.mp3', type: 'audio/mpeg', data: testTone(3) })).id;
      await drain();
    },
    // An API-only process: jobs wait for drain(). Conversions run ffmpeg at the clip's own speed (-re), so progress is seen as it goes.
    () => ({ jobs: { ...testConfig().jobs, concurrency: 0 }, ffmpegPath: wrappedFfmpeg('realtime') }),
  );

  it('converts a PNG to WebP as a new asset, which then opens and shows in the library; asking again shows the same conversion', async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/asset/${ids.png}`);
      await page.getByRole('heading', { name: 'Harbour.png' }).waitFor();
      await page.getByRole('button', { name: 'Convert' }).click();
      const dialog = page.getByRole('dialog', { name: 'Convert “Harbour.png”' });
      await dialog.waitFor();
      await expect(dialog.getByLabel('Format').inputValue()).resolves.toBe('webp');
      await dialog.getByLabel('Width (px)').fill('600');
      await dialog.getByLabel('Quality (1–100)').fill('70');
      await screenshot(page, 'convert-dialog');
      await dialog.getByRole('button', { name: 'Convert', exact: true }).click();

      // Queued until a worker takes it (this app runs jobs when the test says).
      await expect.poll(() => dialog.getByRole('status').textContent()).toBe('Waiting for a free worker…');
      await expect(dialog.textContent()).resolves.toContain('WebP, 600 px wide, quality 70, as a new asset');
      await screenshot(page, 'convert-queued');
      await drain();
      const open = dialog.getByRole('button', { name: 'Open the new asset' });
      await open.waitFor({ timeout: 20_000 });
      await expect(dialog.getByRole('status').textContent()).resolves.toBe('Done: the result is a new asset next to this one.');
      await screenshot(page, 'convert-done');
      const [made] = await conversions();
      expect(made).toMatchObject({ status: 'succeeded', params: { format: 'webp', width: 600, quality: 70 } });
      await open.click();

      await page.waitForURL(`${base}/asset/${made!.result_asset_id}`);
      await page.getByRole('heading', { name: 'Harbour.webp' }).waitFor();
      await expect.poll(() => page.locator('figure.preview img').evaluate((img: { naturalWidth: number }) => img.naturalWidth)).toBe(600);
      const result = await api<AssetJson>('GET', `/dam/assets/${made!.result_asset_id}`);
      expect(result).toMatchObject({ mime_type: 'image/webp', width: 600, folder_id: ids.folder, metadata: { converted_from: { asset_id: ids.png, format: 'webp' } } });
      await screenshot(page, 'convert-result');

      // Next to its source in the library.
      await page.getByRole('link', { name: 'Library' }).click();
      await expect.poll(() => page.locator('ul[aria-label="Assets"] .name').allTextContents()).toEqual(expect.arrayContaining(['Harbour.png', 'Harbour.webp']));

      // The same request again: the server answers the same conversion (200), and the dialog says so.
      await page.goto(`${base}/asset/${ids.png}`);
      await page.getByRole('button', { name: 'Convert' }).click();
      await dialog.getByLabel('Width (px)').fill('600');
      await dialog.getByLabel('Quality (1–100)').fill('70');
      await dialog.getByRole('button', { name: 'Convert', exact: true }).click();
      await dialog.getByText('The same conversion was asked for').waitFor();
      await expect(dialog.locator('.alert-info').innerText()).resolves.toMatch(/^The same conversion was asked for just now by Ansel Adams: this is it\.$/);
      await dialog.getByRole('button', { name: 'Open the new asset' }).waitFor();
      expect(await conversions()).toHaveLength(1);
      await screenshot(page, 'convert-same-again');
    } finally {
      await context.close();
    }
  });

  it("shows a refusal in the API's words with the field it names, and converts to a new version of the asset", async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/asset/${ids.logo}`);
      await page.getByRole('button', { name: 'Convert' }).click();
      const dialog = page.getByRole('dialog', { name: 'Convert “Logo.png”' });
      await dialog.getByLabel('Width (px)').fill('16000');
      await dialog.getByLabel('Height (px)').fill('16000');
      await dialog.getByLabel('Fit').selectOption('cover');
      await dialog.getByRole('button', { name: 'Convert', exact: true }).click();
      const alert = dialog.getByRole('alert');
      await expect.poll(() => alert.textContent()).toMatch(/^body\.width: 16000 x 16000 is more than this instance converts \(\d+ pixels\)$/);
      await expect(dialog.getByLabel('Width (px)').getAttribute('aria-invalid')).resolves.toBe('true');
      await screenshot(page, 'convert-refused');

      await dialog.getByLabel('Width (px)').fill('');
      await dialog.getByLabel('Height (px)').fill('200');
      await dialog.getByLabel('Format').selectOption('jpeg');
      await dialog.getByLabel('A new version of this asset').check();
      await dialog.getByRole('button', { name: 'Convert', exact: true }).click();
      await expect.poll(() => dialog.getByRole('status').textContent()).toBe('Waiting for a free worker…');
      // Closing the dialog leaves it running; the button says so.
      await dialog.getByRole('button', { name: 'Close', exact: true }).last().click();
      await page.getByRole('button', { name: 'Converting…' }).waitFor();
      await drain();
      await page.getByText('Converted: the new version is the current one').waitFor({ timeout: 20_000 });
      await page.getByRole('button', { name: 'Convert', exact: true }).waitFor();
      // The version history shows v2 (the JPEG) as current without a reload.
      await page.getByRole('button', { name: /^v2\s*Current.*Logo\.jpg/ }).waitFor();
      // seed 4.5 answers the list bare.
      const listed = await fetch(`${base}/dam/assets/${ids.logo}/versions`, { headers: { authorization: `Bearer ${owner.token}` } });
      const versions = (await listed.json()) as { version: string; is_current: boolean; mime_type: string }[];
      expect(versions.map((v) => [v.version, v.is_current, v.mime_type])).toEqual([
        ['v2', true, 'image/jpeg'],
        ['v1', false, 'image/png'],
      ]);
      await screenshot(page, 'convert-new-version');
    } finally {
      await context.close();
    }
  });

  it('says a video is being prepared, then plays its preview; a queued conversion is canceled; viewers get no Convert', async () => {
    // An MKV: no browser plays it as it is, so the server transcodes it to an H.264 MP4.
    ids.video = (await uploadApi(base, owner.token, ws, { name: 'Waves.mkv', type: 'video/x-matroska', data: testClip({ seconds: 4, size: '640x360', container: 'mkv' }) })).id;
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/asset/${ids.video}`);
      await page.getByRole('heading', { name: 'Waves.mkv' }).waitFor();
      const preparing = page.locator('figure.preview [role="status"]');
      await expect.poll(() => preparing.textContent()).toContain('Preparing a playable preview…');
      expect(await page.locator('figure.preview video').count()).toBe(0);
      await screenshot(page, 'video-preparing');

      // The page reads the version again by itself: no reload.
      await drain();
      const video = page.locator('figure.preview video');
      await video.waitFor({ timeout: 30_000 });
      await expect.poll(() => mediaState(page, 'figure.preview video').then((s) => s.src)).toMatch(/\/media\/versions\/\d+\/video\?expires=/);
      await expect.poll(() => video.getAttribute('poster')).toMatch(/\/media\/versions\/\d+\/preview\?/);
      await play(page, 'figure.preview video');
      await expect.poll(() => mediaState(page, 'figure.preview video').then((s) => s.readyState), { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
      const first = (await mediaState(page, 'figure.preview video')).currentTime;
      await expect.poll(() => mediaState(page, 'figure.preview video').then((s) => s.currentTime), { timeout: 15_000 }).toBeGreaterThan(first + 0.3);
      await screenshot(page, 'video-playing');

      // A conversion to WebM, canceled while it waits for a worker.
      await page.getByRole('button', { name: 'Convert' }).click();
      const dialog = page.getByRole('dialog', { name: 'Convert “Waves.mkv”' });
      await expect(dialog.getByLabel('Format').locator('option').allTextContents()).resolves.toEqual([
        'MP4 (H.264 + AAC, plays everywhere)',
        'WebM (VP9 + Opus)',
        'GIF (silent clip, first 30 s)',
        'MP3 (sound only)',
        'M4A (sound only)',
      ]);
      await dialog.getByLabel('Format').selectOption('webm');
      await dialog.getByLabel('Height at most').selectOption({ label: '240 px' });
      await dialog.getByRole('button', { name: 'Convert', exact: true }).click();
      await expect.poll(() => dialog.getByRole('status').textContent()).toBe('Waiting for a free worker…');
      await dialog.getByRole('button', { name: 'Cancel conversion' }).click();
      await expect.poll(() => dialog.getByRole('status').textContent()).toBe('Canceled.');
      await screenshot(page, 'convert-canceled');
      expect((await conversions())[0]).toMatchObject({ status: 'canceled', params: { format: 'webm', max_height: 240 } });

      // Asked again as MP4: its progress is read from ffmpeg as it runs (4 s of video, converted in real time here).
      await dialog.getByRole('button', { name: 'Change settings' }).click();
      await expect(dialog.getByLabel('Height at most').inputValue()).resolves.toBe('240');
      await dialog.getByLabel('Format').selectOption('mp4');
      await dialog.getByRole('button', { name: 'Convert', exact: true }).click();
      await expect.poll(() => dialog.getByRole('status').textContent()).toBe('Waiting for a free worker…');
      const running = drain();
      const status = dialog.getByRole('status');
      await expect.poll(() => status.textContent(), { timeout: 15_000 }).toMatch(/^Converting… ([1-9]|[1-9]\d)%$/);
      const percent = Number(await dialog.getByRole('progressbar').getAttribute('aria-valuenow'));
      expect(percent).toBeGreaterThan(0);
      expect(percent).toBeLessThan(100);
      await expect(page.getByRole('button', { name: /^Converting… \d+%$/ }).count()).resolves.toBe(1);
      await screenshot(page, 'convert-running');
      await dialog.getByRole('button', { name: 'Open the new asset' }).waitFor({ timeout: 20_000 });
      await running;
      await dialog.getByRole('button', { name: 'Open the new asset' }).click();
      await page.getByRole('heading', { name: 'Waves.mp4' }).waitFor();
      await page.locator('figure.preview video').waitFor({ timeout: 20_000 });
    } finally {
      await context.close();
    }

    // A viewer watches, but is offered no Convert.
    const seen = await signedInPage(browser, viewer);
    try {
      await seen.page.goto(`${base}/asset/${ids.video}`);
      await seen.page.locator('figure.preview video').waitFor();
      await seen.page.getByRole('button', { name: 'Download', exact: true }).waitFor();
      expect(await seen.page.getByRole('button', { name: 'Convert' }).count()).toBe(0);
    } finally {
      await seen.context.close();
    }
  });

  it('plays audio in the native player', async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/asset/${ids.audio}`);
      const audio = page.locator('figure.preview audio');
      await audio.waitFor();
      expect((await mediaState(page, 'figure.preview audio')).src).toMatch(/\/media\/versions\/\d+\/file\?expires=/);
      await play(page, 'figure.preview audio');
      await expect.poll(() => mediaState(page, 'figure.preview audio').then((s) => s.currentTime), { timeout: 15_000 }).toBeGreaterThan(0.3);
      await screenshot(page, 'audio-playing');
    } finally {
      await context.close();
    }
  });

  it('plays a shared video in the public lightbox, for a visitor without an account', async () => {
    const link = await api<{ url: string }>('POST', '/shared', { workspaceId: ws, asset_ids: [ids.video, ids.png], allow_download: false });
    const { context, page } = await newPage(browser, { width: 390, height: 800 });
    try {
      await page.goto(link.url);
      await page.getByRole('button', { name: 'View Waves.mkv' }).click();
      const viewer = page.getByRole('dialog', { name: 'Waves.mkv' });
      const video = viewer.locator('video');
      await video.waitFor();
      await expect(video.getAttribute('poster')).resolves.toMatch(/\/media\/versions\/\d+\/preview\?/);
      await play(page, 'dialog video');
      await expect.poll(() => mediaState(page, 'dialog video').then((s) => s.readyState), { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
      const first = (await mediaState(page, 'dialog video')).currentTime;
      await expect.poll(() => mediaState(page, 'dialog video').then((s) => s.currentTime), { timeout: 15_000 }).toBeGreaterThan(first + 0.3);
      await screenshot(page, 'share-video-playing');
    } finally {
      await context.close();
    }
  });
});
