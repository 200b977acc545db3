import { readFile } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { rawZip } from '../helpers/zip.js';
import { hasChromium, registerApi, screenshotVariants, signedInPage, uploadApi, useBrowserSuite } from './harness.js';

/**
 * Issue #27: a ZIP asset's page lists the archive's entries (GET /zip/list), downloads one of them (GET /zip/extract)
 * and extracts the whole archive into a folder (POST /zip/extract, followed until it is done).
 */
describe.skipIf(!hasChromium)('a ZIP archive\'s page, in chromium', () => {
  let browser: Browser;
  let base: string;
  useBrowserSuite(async (suite) => {
    ({ browser, base } = suite);
  });

  it('lists the entries, downloads one, marks the unsafe ones and extracts the rest into a folder', async () => {
    const owner = await registerApi(base, 'Zed Zipper');
    const ws = owner.workspaces[0]!.id;
    const notes = Buffer.from('Shot list for the spring campaign\n');
    const archive = rawZip([
      { name: 'campaign/' },
      { name: 'campaign/notes.txt', data: notes },
      { name: 'campaign/brief.txt', data: Buffer.from('Brief\n'), method: 8 },
      { name: '../escape.txt', data: Buffer.from('no') },
    ]);
    const zip = await uploadApi(base, owner.token, ws, { name: 'delivery.zip', type: 'application/zip', data: new Uint8Array(archive) });
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/asset/${zip.id}`);
      const panel = page.getByRole('region', { name: 'Archive contents' });
      const entries = panel.getByRole('list', { name: 'Entries' });
      await expect.poll(() => entries.getByRole('listitem').count()).toBe(4);
      await expect(entries.getByRole('listitem').filter({ hasText: '../escape.txt' }).textContent()).resolves.toContain('unsafe name');
      await expect(entries.getByRole('button', { name: 'Download ../escape.txt' }).count()).resolves.toBe(0);
      await screenshotVariants(page, 'zip-entries');

      const saving = page.waitForEvent('download');
      await entries.getByRole('button', { name: 'Download campaign/notes.txt' }).click();
      const download = await saving;
      expect(download.suggestedFilename()).toBe('notes.txt');
      expect(await readFile(await download.path())).toEqual(notes);

      await panel.getByRole('button', { name: 'Extract to a folder' }).click();
      const pick = page.getByRole('dialog', { name: 'Extract into a folder' });
      await pick.getByLabel('Folder').selectOption({ label: 'Top level' });
      await pick.getByRole('button', { name: 'Extract' }).click();
      await panel.getByText('Extracted: 3 entries imported (files and folders), 1 skipped').waitFor({ timeout: 30_000 });
      await panel.getByRole('link', { name: 'Open the folder' }).click();
      await page.waitForURL(/\/library\?/);

      const res = await fetch(`${base}/search-engine/search-assets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ q: '*', workspace_id_filter: ws, per_page: 50 }),
      });
      const names = ((await res.json()) as { data: { hits: { document: { display_file_name: string } }[] } }).data.hits.map((h) => h.document.display_file_name);
      expect(names.sort()).toEqual(['brief.txt', 'delivery.zip', 'notes.txt']);
    } finally {
      await context.close();
    }
  });
});
