import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  hasChromium,
  png,
  pollInPage,
  registerApi,
  screenshot,
  type Session,
  signedInPage,
  uploadApi,
  useBrowserSuite,
} from './harness.js';

const MiB = 1024 * 1024;

/** The names on the asset cards of the grid, in order. */
async function gridNames(page: Page): Promise<string[]> {
  return page.locator('ul[aria-label="Assets"] .name').allTextContents();
}

describe.skipIf(!hasChromium)('the library, in chromium', () => {
  let browser: Browser;
  let base: string;
  let owner: Session;
  let ws: number;
  const ids: Record<string, number> = {};

  useBrowserSuite(async (suite) => {
    ({ browser, base } = suite);
    owner = await registerApi(base, 'Margaret Hamilton');
    ws = owner.workspaces[0]!.id;
    const seed = [
      { name: 'red-landscape.png', type: 'image/png', data: await png(800, 450, '#e03131'), tags: ['red', 'launch'] },
      { name: 'red-portrait.png', type: 'image/png', data: await png(450, 800, '#c92a2a'), tags: ['red'] },
      { name: 'blue-landscape.png', type: 'image/png', data: await png(800, 450, '#1c7ed6'), tags: ['blue'], visibility: 1 },
      { name: 'red-notes.txt', type: 'text/plain', data: new TextEncoder().encode('notes'), tags: ['red'] },
    ];
    for (const file of seed) ids[file.name] = (await uploadApi(base, owner.token, ws, file)).id;
  });

  it('uploads a dropped 12 MiB file straight to storage with progress, retrying a failed part, and shows it in the grid', async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/library`);
      await page.getByRole('heading', { name: 'All assets' }).waitFor();
      await expect.poll(() => gridNames(page)).toHaveLength(4);
      await screenshot(page, 'library');

      // Slow the uplink so the progress can be seen, and drop the first part PUT once: it is retried.
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 20, downloadThroughput: -1, uploadThroughput: 6 * MiB });
      let failedOnce = false;
      await page.route('**/storage/parts/**', async (route) => {
        if (!failedOnce) {
          failedOnce = true;
          return route.abort('connectionreset');
        }
        return route.continue();
      });

      // In-page code is written as source: this file is type-checked without the DOM library.
      const dataTransfer = await page.evaluateHandle(`(() => {
        const dt = new DataTransfer();
        const big = new Uint8Array(${12 * MiB});
        for (let i = 0; i < big.length; i += 4096) big[i] = i % 251;
        dt.items.add(new File([big], 'site-backup.zip', { type: 'application/zip' }));
        dt.items.add(new File(['hello'], 'readme.txt', { type: 'text/plain' }));
        return dt;
      })()`);
      await page.dispatchEvent('main', 'dragenter', { dataTransfer });
      await page.dispatchEvent('main', 'dragover', { dataTransfer });
      await page.getByText('Drop files to upload to').waitFor();
      await screenshot(page, 'library-drop');
      await page.dispatchEvent('main', 'drop', { dataTransfer });

      const panel = page.getByRole('region', { name: 'Uploads' });
      const bar = panel.getByRole('progressbar', { name: 'Upload of site-backup.zip' });
      await expect
        .poll(async () => Number(await bar.getAttribute('aria-valuenow')), { timeout: 20_000, interval: 50 })
        .toBeGreaterThan(5);
      const midway = Number(await bar.getAttribute('aria-valuenow'));
      expect(midway).toBeLessThan(100);
      await panel.getByRole('progressbar', { name: 'Overall upload progress' }).waitFor();
      await screenshot(page, 'library-uploading');

      // Once every upload is done the panel folds its list away (the items stay in it).
      await panel.locator('[data-state="done"]').filter({ hasText: 'site-backup.zip' }).waitFor({ state: 'attached', timeout: 30_000 });
      await panel.locator('[data-state="done"]').filter({ hasText: 'readme.txt' }).waitFor({ state: 'attached' });
      expect(failedOnce).toBe(true);
      await expect.poll(() => gridNames(page), { timeout: 10_000 }).toContain('site-backup.zip');
      expect(await gridNames(page)).toContain('readme.txt');
      await screenshot(page, 'library-uploaded');
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });

      // The stored object is the whole file.
      const found = await fetch(`${base}/search-engine/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ request: { q: 'site-backup', collections: ['digital_assets'] }, workspace_id_filter: String(ws) }),
      });
      const doc = ((await found.json()) as { results: { hits: { document: { file_size: number } }[] }[] }).results[0]!.hits[0]!.document;
      expect(doc.file_size).toBe(12 * MiB);
    } finally {
      await context.close();
    }
  });

  it('resumes an upload after a page reload (list-parts) and cancels another (abort-upload)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'dam-upload-'));
    const big = path.join(dir, 'raw-footage.bin');
    writeFileSync(big, Buffer.alloc(12 * MiB, 7));
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/library`);
      await page.getByRole('heading', { name: 'All assets' }).waitFor();
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 20, downloadThroughput: -1, uploadThroughput: 4 * MiB });
      await page.locator('input[type=file][multiple]').setInputFiles(big);
      const bar = page.getByRole('progressbar', { name: 'Upload of raw-footage.bin' });
      // Two parts (8 + 4 MiB) go in parallel: past 70 % the 4 MiB part is stored.
      await expect.poll(async () => Number(await bar.getAttribute('aria-valuenow')), { timeout: 20_000, interval: 50 }).toBeGreaterThan(70);
      await page.reload();

      await page.getByText('These uploads stopped when the page was closed').waitFor();
      await screenshot(page, 'library-interrupted');
      // Another workspace does not list it (it would resume into the first one).
      await page.getByLabel('Workspace', { exact: true }).selectOption({ label: '+ New workspace…' });
      await page.getByLabel('Name').fill('Elsewhere');
      await page.getByRole('button', { name: 'Create' }).click();
      await expect.poll(() => page.getByLabel('Workspace', { exact: true }).evaluate((s: { selectedOptions: ArrayLike<{ text: string }> }) => s.selectedOptions[0]?.text.trim())).toBe('Elsewhere');
      await expect(page.getByText('These uploads stopped').count()).resolves.toBe(0);
      await page.getByLabel('Workspace', { exact: true }).selectOption(String(owner.workspaces[0]!.id));
      await page.getByText('These uploads stopped when the page was closed').waitFor();
      const puts: string[] = [];
      page.on('request', (req) => {
        if (req.method() === 'PUT' && req.url().includes('/storage/parts/')) puts.push(req.url());
      });
      await page.locator('input[type=file][multiple]').setInputFiles(big);
      await page.getByRole('region', { name: 'Uploads' }).locator('[data-state="done"]').filter({ hasText: 'raw-footage.bin' }).waitFor({ state: 'attached', timeout: 30_000 });
      expect(puts).toHaveLength(1);
      expect(puts[0]).toMatch(/\/storage\/parts\/[^/]+\/1\?/);
      await expect.poll(() => gridNames(page), { timeout: 10_000 }).toContain('raw-footage.bin');

      // Cancel: the upload is aborted on the server and its asset never appears.
      const aborts: string[] = [];
      page.on('request', (req) => {
        if (req.url().includes('/storage/abort-upload')) aborts.push(req.method());
      });
      const other = path.join(dir, 'not-this-one.bin');
      writeFileSync(other, Buffer.alloc(12 * MiB, 9));
      await page.locator('input[type=file][multiple]').setInputFiles(other);
      await expect.poll(async () => Number(await page.getByRole('progressbar', { name: 'Upload of not-this-one.bin' }).getAttribute('aria-valuenow')), { interval: 50 }).toBeGreaterThan(0);
      await page.getByRole('button', { name: 'Cancel upload of not-this-one.bin' }).click();
      await page.locator('[data-state="cancelled"]').filter({ hasText: 'not-this-one.bin' }).waitFor({ state: 'attached' });
      await expect.poll(() => aborts).toEqual(['DELETE']);
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
      await page.reload();
      await expect.poll(() => gridNames(page)).toContain('raw-footage.bin');
      expect(await gridNames(page)).not.toContain('not-this-one.bin');
      await expect(page.getByText('These uploads stopped').count()).resolves.toBe(0);
    } finally {
      await context.close();
    }
  });

  it('searches with two filters through /search-engine/search', async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      const searches: unknown[] = [];
      page.on('request', (req) => {
        if (req.url().endsWith('/search-engine/search')) searches.push(req.postDataJSON());
      });
      await page.goto(`${base}/library`);
      await expect.poll(() => gridNames(page)).toHaveLength(7);
      await page.getByRole('button', { name: 'Filters' }).click();
      await page.getByLabel('Tags (all of)').fill('red');
      await page.getByLabel('Tags (all of)').press('Enter');
      await expect.poll(() => gridNames(page)).toHaveLength(3);
      await page.getByLabel('Orientation').selectOption('landscape');
      await expect.poll(() => gridNames(page)).toEqual(['red-landscape.png']);
      await page.getByText('1 asset', { exact: true }).waitFor();
      const url = new URL(page.url());
      expect(url.searchParams.get('tags')).toBe('red');
      expect(url.searchParams.get('orientation')).toBe('landscape');
      expect(searches.at(-1)).toMatchObject({
        request: { q: '*', collections: ['digital_assets'] },
        filterQuery: { digital_assets: '(tags:=[`red`]) && (orientation:=landscape)' },
        workspace_id_filter: String(ws),
      });
      await screenshot(page, 'library-search-filters');

      // Text narrows further, and a filter that matches nothing says so.
      await page.getByLabel('Visibility').selectOption('private');
      await page.getByText('No assets match').waitFor();
      await screenshot(page, 'library-search-empty');
      // The state lives in the URL: a reload shows the same search.
      await page.reload();
      await page.getByText('No assets match').waitFor();
      await expect(page.getByLabel('Visibility').inputValue()).resolves.toBe('private');
      // The empty state offers the way out (issue #27: every empty state says what to do next).
      await page.getByRole('button', { name: 'Clear the search and filters' }).click();
      await expect.poll(() => gridNames(page)).toHaveLength(7);
      expect(new URL(page.url()).searchParams.get('visibility')).toBeNull();
    } finally {
      await context.close();
    }
  });

  it('creates a folder, moves assets into it and adds them to a new collection', async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/library`);
      await expect.poll(() => gridNames(page)).toHaveLength(7);
      await page.getByRole('button', { name: 'New folder' }).first().click();
      await page.getByLabel('Folder name').fill('Campaign 2025');
      await page.getByRole('button', { name: 'Create' }).click();
      await page.getByRole('heading', { name: 'Campaign 2025' }).waitFor();
      await page.getByText('No assets here yet').waitFor();

      await page.getByRole('button', { name: 'All assets' }).click();
      await expect.poll(() => gridNames(page)).toHaveLength(7);
      await page.getByLabel('Select red-landscape.png').check();
      await page.getByLabel('Select red-portrait.png').check();
      await page.getByRole('button', { name: 'Move to folder' }).click();
      await page.getByLabel('Destination folder').selectOption({ label: 'Campaign 2025' });
      await page.getByRole('button', { name: 'Move', exact: true }).click();
      await page.getByRole('navigation', { name: 'Folders and collections' }).getByRole('button', { name: 'Campaign 2025' }).click();
      await expect.poll(async () => (await gridNames(page)).sort()).toEqual(['red-landscape.png', 'red-portrait.png']);
      expect(await gridNames(page)).toHaveLength(2);

      await page.getByLabel('Select red-landscape.png').check();
      await page.getByRole('button', { name: 'New collection' }).click();
      await page.getByLabel('Collection name').fill('Hero images');
      await page.getByRole('button', { name: 'Create' }).click();
      await page.getByRole('heading', { name: 'Hero images' }).waitFor();
      await expect.poll(() => gridNames(page)).toEqual(['red-landscape.png']);
      await screenshot(page, 'library-collection');

      await page.getByRole('button', { name: 'Campaign 2025' }).click();
      await page.getByRole('button', { name: 'Rename' }).click();
      await page.getByLabel('Folder name').fill('Campaign 2026');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('heading', { name: 'Campaign 2026' }).waitFor();
      await screenshot(page, 'library-folder');
    } finally {
      await context.close();
    }
  });

  it('edits metadata, uploads a new version with progress and restores an old one', async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/asset/${ids['red-landscape.png']}`);
      await page.getByRole('heading', { name: 'red-landscape.png' }).waitFor();
      await page.locator('[data-version="v1"]').waitFor();

      await page.getByLabel('Name').fill('Launch hero');
      await page.getByLabel('Tags').fill('hero');
      await page.getByLabel('Tags').press('Enter');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('heading', { name: 'Launch hero' }).waitFor();
      await screenshot(page, 'asset');

      await page.locator('[data-testid="version-file"]').setInputFiles({ name: 'red-landscape-v2.png', mimeType: 'image/png', buffer: Buffer.from(await png(1600, 900, '#2f9e44')) });
      await page.locator('[data-version="v2"]').filter({ hasText: 'Current' }).waitFor();
      expect(await page.locator('[data-version="v1"]').textContent()).not.toContain('Current');
      await screenshot(page, 'asset-new-version');

      await page.locator('[data-version="v1"]').getByRole('button', { name: 'Restore' }).click();
      await page.locator('[data-version="v3"]').filter({ hasText: 'Current' }).waitFor();
      expect(await page.locator('[data-version="v3"]').textContent()).toContain('red-landscape.png');
      expect(await page.locator('[data-version="v2"]').textContent()).not.toContain('Current');

      await page.locator('[data-version="v2"]').getByRole('button', { name: 'Preview v2' }).click();
      await page.getByText('Previewing v2').waitFor();
      // The preview shows v2's picture (green), not the current one (red).
      const [r, g, b] = await pollInPage<[number, number, number]>(page, `(() => {
        const img = document.querySelector('figure.preview img');
        if (!img || !img.complete || !img.naturalWidth) return null;
        const canvas = document.createElement('canvas');
        canvas.width = img.naturalWidth;
        canvas.height = img.naturalHeight;
        const ctx = canvas.getContext('2d');
        ctx.drawImage(img, 0, 0);
        return Array.from(ctx.getImageData(img.naturalWidth / 2, img.naturalHeight / 2, 1, 1).data.slice(0, 3));
      })()`);
      expect(g).toBeGreaterThan(r + 50);
      expect(g).toBeGreaterThan(b + 50);
      await screenshot(page, 'asset-versions');
    } finally {
      await context.close();
    }
  });

  it('shows a viewer no controls a viewer may not use', async () => {
    const viewer = await registerApi(base, 'Vera Viewer');
    const res = await fetch(`${base}/workspaces/${ws}/members`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: viewer.email, role: 'viewer' }),
    });
    expect(res.status).toBe(201);
    const { context, page } = await signedInPage(browser, { ...viewer, workspaces: [{ id: ws, name: '', role: 'viewer' }] });
    try {
      await page.goto(`${base}/library?ws=${ws}`);
      // Every asset but the owner's private one (blue-landscape.png, visibility 1: issue #27, private assets).
      await expect.poll(() => gridNames(page)).toHaveLength(6);
      expect(await gridNames(page)).not.toContain('blue-landscape.png');
      for (const name of ['Upload', 'New folder', 'New collection']) await expect(page.getByRole('button', { name, exact: true }).count()).resolves.toBe(0);
      await expect(page.locator('ul[aria-label="Assets"] input[type=checkbox]').count()).resolves.toBe(0);
      await screenshot(page, 'library-viewer');

      await page.goto(`${base}/asset/${ids['red-landscape.png']}`);
      await page.locator('[data-version="v1"]').waitFor();
      // Exact names: a version's own button is named by its text, which may say "restored from v1".
      for (const name of ['Save changes', 'Upload new version', 'Restore', 'Delete', 'Add to collection']) {
        await expect(page.getByRole('button', { name, exact: true }).count()).resolves.toBe(0);
      }
      await page.getByRole('button', { name: 'Download v1' }).waitFor();
      await screenshot(page, 'asset-viewer');

      await page.goto(`${base}/settings/${ws}`);
      await page.getByRole('heading', { name: 'Members' }).waitFor();
      await expect(page.getByRole('button', { name: 'Remove' }).count()).resolves.toBe(0);
      await expect(page.getByLabel('E-mail').count()).resolves.toBe(0);
      await screenshot(page, 'settings-viewer');
    } finally {
      await context.close();
    }
  });

  it('works at phone width', async () => {
    const { context, page } = await signedInPage(browser, owner, { width: 390, height: 844 });
    try {
      await page.goto(`${base}/library`);
      await expect.poll(() => gridNames(page)).toHaveLength(7);
      await screenshot(page, 'phone-library');
      await page.getByRole('button', { name: 'Folders and collections' }).click();
      await page.getByRole('navigation', { name: 'Folders and collections' }).getByRole('button', { name: 'Campaign 2026' }).click();
      await page.getByRole('heading', { name: 'Campaign 2026' }).waitFor();
      await page.goto(`${base}/asset/${ids['red-portrait.png']}`);
      await page.locator('[data-version="v1"]').waitFor();
      await screenshot(page, 'phone-asset');
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
      expect(overflow).toBeLessThanOrEqual(0);
    } finally {
      await context.close();
    }
  });
});
