import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../helpers/app.js';
import { startFakeGoogleDrive, type FakeGoogleDrive } from '../helpers/fake-gdrive.js';
import { hasChromium, png, registerApi, screenshot, type Session, signedInPage, uploadApi, useBrowserSuite } from './harness.js';

/**
 * Issue #16 in the web client, against the fake Google Drive (test/helpers/fake-gdrive.ts): connecting through
 * the provider's authorize page and the real callback, browsing (folders, paths, Load more, search, thumbnails
 * through the image proxy), importing three files into a library folder with live progress, Send to drive from
 * the asset page, a declined sign-in, re-authorisation after the grant was revoked, disconnecting, phone width.
 */
describe.skipIf(!hasChromium)('external drives, in chromium', () => {
  let fake: FakeGoogleDrive;
  let browser: Browser;
  let base: string;
  let owner: Session;
  let ws: number;
  let intoFolder: number;
  const drive: Record<string, string> = {};
  const bytes: Record<string, Uint8Array> = {};

  async function api<T>(method: string, path: string, body?: unknown, who: Session = owner): Promise<T> {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${who.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { data: T }).data;
  }

  const rows = (page: Page) => page.locator('section[data-drive="drive-ext-1"] tbody tr');
  const rowNames = async (page: Page) => (await rows(page).locator('.name').allTextContents()).map((n) => n.trim());
  const card = (page: Page) => page.locator('li[data-provider="drive-ext-1"]');
  const crumbs = (page: Page) => page.getByRole('navigation', { name: 'Folder path' }).locator('li').allInnerTexts();

  /** Connect (or re-authorise) from the Drives page: the fake's authorize page redirects at once, as a returning Google user sees it. */
  async function connectFromPage(page: Page, button: string | RegExp): Promise<void> {
    const back = page.waitForResponse((r) => r.url().startsWith(`${base}/library/drives?`) && r.request().isNavigationRequest());
    await card(page).getByRole('button', { name: button }).click();
    const landed = new URL((await back).url());
    expect(landed.searchParams.get('connected') ?? landed.searchParams.get('error')).toBeTruthy();
    // The page says what happened, then takes ?connected= / ?error= out of the address.
    await expect.poll(() => new URL(page.url()).search).toBe('');
  }

  beforeAll(async () => {
    fake = await startFakeGoogleDrive({ apiPrefix: '/gapi' });
    fake.servesThumbnails = true;
    const holiday = fake.addFolder('Holiday 2024');
    drive.holiday = holiday;
    fake.addFolder('Raw', holiday);
    for (const [name, colour] of [['beach.png', '#1971c2'], ['dunes.png', '#f08c00'], ['sunset.png', '#e03131']] as const) {
      bytes[name] = await png(320, 200, colour);
      drive[name] = fake.addFile(name, Buffer.from(bytes[name]), { parent: holiday, mimeType: 'image/png' });
    }
    fake.addFile('tide-table.txt', 'high water 06:12', { parent: holiday, mimeType: 'text/plain' });
    const archive = fake.addFolder('Archive');
    for (let i = 1; i <= 60; i += 1) fake.addFile(`report-${String(i).padStart(2, '0')}.txt`, `report ${i}`, { parent: archive, mimeType: 'text/plain' });
    bytes['cover.png'] = await png(300, 300, '#2f9e44');
    fake.addFile('cover.png', Buffer.from(bytes['cover.png']), { mimeType: 'image/png' });
    fake.addDoc('Budget', 'spreadsheet');
    fake.addDoc('Feedback form', 'form');
  });
  afterAll(async () => {
    await fake?.close();
  });

  useBrowserSuite(
    async (suite) => {
      ({ browser, base } = suite);
      owner = await registerApi(base, 'Ansel Adams');
      ws = owner.workspaces[0]!.id;
      intoFolder = (await api<{ id: number }>('POST', '/dam/folders', { workspace_id: ws, name: 'From Drive', parent_id: null })).id;
    },
    () => ({
      drives: { google: fake.config, dropbox: null, onedrive: null },
      // The image proxy refuses loopback addresses unless listed: the fake's thumbnails are on 127.0.0.1.
      proxy: { ...testConfig().proxy, allowHosts: [new URL(fake.baseUrl).host] },
    }),
  );

  it('connects through the provider, browses, imports three files with progress and shows them in the library', async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/library`);
      await page.getByRole('link', { name: 'Drives' }).click();
      await page.waitForURL(`${base}/library/drives`);
      await expect.poll(() => card(page).textContent()).toContain('Not connected');
      await page.getByText('Connect a drive to browse it').waitFor();

      // Connect: the auth URL, the fake's authorize page, the callback, back to this page.
      await connectFromPage(page, 'Connect Google Drive');
      await expect.poll(() => page.locator('[data-outcome]').textContent()).toContain('Google Drive is connected.');
      expect(await card(page).textContent()).toContain('Connected as pat@example.test');
      expect(fake.oauth.calls.code).toBe(1);

      // The root: folders first, then files; a Google Sheet says what it becomes, a Form cannot be selected.
      await expect.poll(() => rowNames(page)).toEqual(['Archive', 'Holiday 2024', 'Budget', 'cover.png', 'Feedback form']);
      expect(await rows(page).filter({ hasText: 'Budget' }).textContent()).toContain('Imported as XLSX');
      expect(await page.getByRole('checkbox', { name: 'Select Feedback form' }).isDisabled()).toBe(true);
      // The thumbnail comes through the signed image proxy, never from the drive's host.
      const thumb = rows(page).filter({ hasText: 'cover.png' }).locator('img');
      await expect.poll(() => thumb.evaluate((img) => (img as { naturalWidth: number }).naturalWidth)).toBeGreaterThan(0);
      const src = new URL((await thumb.getAttribute('src'))!);
      expect(src.origin).toBe(base);
      expect(src.pathname).toBe('/api/image-proxy');
      expect(src.searchParams.get('signature')).toBeTruthy();
      await screenshot(page, 'drives-connected');

      // A folder of 60 files: 50, then Load more; the path leads back.
      await page.getByRole('button', { name: 'Archive', exact: true }).click();
      await expect.poll(() => rows(page).count()).toBe(50);
      expect(await crumbs(page)).toEqual(['Google Drive', 'Archive']);
      await page.getByRole('button', { name: 'Load more' }).click();
      await expect.poll(() => rows(page).count()).toBe(60);
      expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
      await page.getByRole('navigation', { name: 'Folder path' }).getByRole('button', { name: 'Google Drive' }).click();
      await expect.poll(() => rowNames(page)).toContain('Holiday 2024');

      // Search by name over the whole drive.
      await page.getByRole('searchbox', { name: 'Search Google Drive' }).fill('sun');
      await page.getByRole('searchbox', { name: 'Search Google Drive' }).press('Enter');
      await expect.poll(() => rowNames(page)).toEqual(['sunset.png']);
      await page.getByRole('searchbox', { name: 'Search Google Drive' }).press('Escape');
      await expect.poll(() => rowNames(page)).toContain('Archive');

      // Into the holiday folder: beach.png, then Shift-click sunset.png selects the three pictures.
      await page.getByRole('button', { name: 'Holiday 2024', exact: true }).click();
      await expect.poll(() => rowNames(page)).toEqual(['Raw', 'beach.png', 'dunes.png', 'sunset.png', 'tide-table.txt']);
      await page.getByRole('checkbox', { name: 'Select beach.png' }).click();
      await page.getByRole('checkbox', { name: 'Select sunset.png' }).click({ modifiers: ['Shift'] });
      const bar = page.getByRole('region', { name: 'Selected drive items' });
      expect(await bar.locator('strong').textContent()).toBe('3 items selected');
      await bar.getByRole('button', { name: 'Import into…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Import 3 items into…' });
      await dialog.getByLabel('Library folder').selectOption({ label: 'From Drive' });
      await screenshot(page, 'drives-import-dialog');
      await dialog.getByRole('button', { name: 'Import' }).click();

      // Live progress until done, with the per-item results.
      const progress = page.locator('section[aria-labelledby="import-title"]');
      await expect.poll(() => progress.getAttribute('data-status'), { timeout: 30_000 }).toBe('succeeded');
      expect(await progress.getByRole('heading').textContent()).toBe('Import from Google Drive into “From Drive”');
      expect(await progress.getByRole('status').textContent()).toContain('Done: 3 imported');
      expect(await progress.locator('[data-item-status="imported"]').count()).toBe(3);
      expect(await progress.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('100');
      expect(await page.getByRole('region', { name: 'Selected drive items' }).count()).toBe(0);
      const recent = page.getByRole('list', { name: 'Recent imports' }).locator('li');
      await expect.poll(() => recent.count()).toBe(1);
      expect(await recent.first().textContent()).toContain('Google Drive → “From Drive”');
      await screenshot(page, 'drives-import-done');

      // The three files are assets of the folder.
      await progress.getByRole('link', { name: 'Open “From Drive” in the library' }).click();
      await page.waitForURL((url) => url.pathname === '/library' && url.searchParams.get('folder') === String(intoFolder));
      await expect.poll(() => page.locator('ul[aria-label="Assets"] .name').allTextContents()).toEqual(expect.arrayContaining(['beach.png', 'dunes.png', 'sunset.png']));
      expect(await page.locator('ul[aria-label="Assets"] .name').count()).toBe(3);
    } finally {
      await context.close();
    }
  });

  it('sends an asset to a folder of the drive from the asset page', async () => {
    bytes['poster.png'] = await png(200, 300, '#7950f2');
    const asset = await uploadApi(base, owner.token, ws, { name: 'poster.png', type: 'image/png', data: bytes['poster.png'] });
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/asset/${asset.id}`);
      await page.getByRole('button', { name: 'Send to drive' }).click();
      const dialog = page.getByRole('dialog', { name: 'Send “poster.png” to a drive' });
      await dialog.getByText('To Google Drive of pat@example.test').waitFor();
      await dialog.getByRole('button', { name: 'Holiday 2024' }).click();
      await dialog.getByRole('button', { name: 'Raw' }).waitFor();
      expect(await dialog.getByRole('navigation', { name: 'Drive folder' }).innerText()).toMatch(/Google Drive\s*\/\s*Holiday 2024/);
      await screenshot(page, 'drives-send-pick-folder');
      await dialog.getByRole('button', { name: 'Send here' }).click();
      await expect.poll(() => dialog.locator('[data-sent]').textContent()).toContain('Sent to Google Drive / Holiday 2024 as “poster.png”');
      await screenshot(page, 'drives-send-to-drive');
      const sent = [...fake.files.values()].find((f) => f.name === 'poster.png')!;
      expect(sent.parents).toEqual([drive.holiday]);
      expect(Buffer.compare(sent.content!, Buffer.from(bytes['poster.png']))).toBe(0);
      await dialog.getByRole('button', { name: 'Done' }).click();
      expect(await page.getByRole('dialog').count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it('at phone width: a declined sign-in, re-authorising a revoked grant, disconnecting', async () => {
    const vera = await registerApi(base, 'Vera Lutter');
    const { context, page } = await signedInPage(browser, vera, { width: 390, height: 844 });
    try {
      await page.goto(`${base}/library/drives`);
      fake.oauth.deny = 'access_denied';
      await connectFromPage(page, 'Connect Google Drive');
      await expect.poll(() => page.locator('[data-outcome]').textContent()).toContain('Google Drive was not connected: access was not granted.');
      expect(await card(page).textContent()).toContain('Not connected');
      fake.oauth.deny = null;
      fake.oauth.account = { id: '98765432109876543210', email: 'vera.lutter.with.a.long.address@example.test', name: 'Vera Lutter' };
      await connectFromPage(page, 'Connect Google Drive');
      await expect.poll(() => card(page).textContent()).toContain('Connected as vera.lutter.with.a.long.address@example.test');
      await expect.poll(() => rowNames(page)).toContain('Holiday 2024');
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      await screenshot(page, 'drives-phone');

      // The user removed the app at Google: the next listing finds out and the page offers to authorise again.
      fake.oauth.revokeAllGrants();
      fake.oauth.expireAccessTokens();
      await page.reload();
      await expect.poll(() => card(page).getAttribute('data-state')).toBe('reauth');
      expect(await card(page).textContent()).toContain('Needs to be authorised again');
      await page.getByText('Re-authorise Google Drive to browse it').waitFor();
      await screenshot(page, 'drives-phone-reauth');
      await connectFromPage(page, 'Re-authorise');
      await expect.poll(() => card(page).getAttribute('data-state')).toBe('active');
      await expect.poll(() => rowNames(page)).toContain('Holiday 2024');

      const revokes = fake.oauth.calls.revoke;
      await card(page).getByRole('button', { name: 'Disconnect' }).click();
      await page.getByRole('dialog', { name: 'Disconnect Google Drive?' }).getByRole('button', { name: 'Disconnect' }).click();
      await expect.poll(() => card(page).getAttribute('data-state')).toBe('none');
      expect(fake.oauth.calls.revoke).toBe(revokes + 1);
      expect(await (await fetch(`${base}/drives`, { headers: { authorization: `Bearer ${vera.token}` } })).json()).toMatchObject({
        data: { providers: [{ id: 'drive-ext-1', connection: null }] },
      });
    } finally {
      await context.close();
    }
  });
});
