import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { apiData, type BrowserApp, hasChromium, png, registerApi, screenshotVariants, type Session, signedInPage, uploadApi, useBrowserSuite } from './harness.js';

/** The names on the asset cards of the grid, in order. */
const gridNames = (page: Page): Promise<string[]> => page.locator('ul[aria-label="Assets"] .name').allTextContents();
/** The sub-folder tiles: name and counts of each. */
async function tiles(page: Page): Promise<string[]> {
  const list = page.locator('ul[aria-label="Sub-folders"]');
  const [names, metas] = await Promise.all([list.locator('.name').allTextContents(), list.locator('.meta').allTextContents()]);
  return names.map((name, i) => `${name} ${metas[i]}`);
}

/**
 * Issue #27 in the web client, "Folders hide their sub-folders": an open folder shows its sub-folders as tiles with
 * their counts, and "Include sub-folders" lists the files of the whole subtree.
 *
 * Projects (no files of its own) ─┬─ Alpha (alpha.png) ── Deep (deep.png)
 *                                 └─ Beta (beta-1.png, beta-2.png)
 */
describe.skipIf(!hasChromium)('sub-folders in the library, in chromium', () => {
  let browser: Browser;
  let env: BrowserApp;
  let base: string;
  let owner: Session;
  let ws: number;
  const folder: Record<string, number> = {};

  const api = <T>(method: string, path: string, body?: unknown) => apiData<T>(base, owner.token, method, path, body);
  const makeFolder = async (name: string, parent: number | null) =>
    (await api<{ id: number }>('POST', '/dam/folders', { workspace_id: ws, name, parent_id: parent })).id;

  useBrowserSuite(async (suite) => {
    ({ browser, env, base } = suite);
    owner = await registerApi(base, 'Grace Hopper');
    ws = owner.workspaces[0]!.id;
    folder.projects = await makeFolder('Projects', null);
    folder.alpha = await makeFolder('Alpha', folder.projects);
    folder.beta = await makeFolder('Beta', folder.projects);
    folder.deep = await makeFolder('Deep', folder.alpha);
    const files: [string, string, number][] = [
      ['alpha.png', '#1971c2', folder.alpha],
      ['deep.png', '#2f9e44', folder.deep],
      ['beta-1.png', '#e8590c', folder.beta],
      ['beta-2.png', '#ae3ec9', folder.beta],
      ['loose.png', '#868e96', 0],
    ];
    for (const [name, colour, folderId] of files) {
      await uploadApi(base, owner.token, ws, { name, type: 'image/png', data: await png(320, 240, colour), ...(folderId ? { folderId } : {}) });
    }
    await env.app.app.jobs.drain();
  });

  it('shows sub-folders as tiles, opens one, comes back and includes the whole subtree', async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/library?ws=${ws}&folder=${folder.projects}&sort=display_file_name:asc`);
      await page.getByRole('heading', { name: 'Projects' }).waitFor();
      await expect.poll(() => tiles(page)).toEqual(['Alpha 1 file · 1 folder', 'Beta 2 files · 0 folders']);
      // Nothing directly in the folder: the empty state says where the files are.
      await page.getByText('No files directly in this folder').waitFor();
      await page.getByText('Open a sub-folder or include sub-folders.').waitFor();
      await screenshotVariants(page, 'library-subfolders-tiles');

      // Keyboard: the tile is a button in the tab order; Enter opens it.
      await page.locator('ul[aria-label="Sub-folders"] button', { hasText: 'Beta' }).focus();
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Beta' }).waitFor();
      await expect.poll(() => gridNames(page)).toEqual(['beta-1.png', 'beta-2.png']);
      expect(await page.locator('ul[aria-label="Sub-folders"]').count()).toBe(0);
      expect(new URL(page.url()).searchParams.get('folder')).toBe(String(folder.beta));

      await page.goBack();
      await page.getByRole('heading', { name: 'Projects' }).waitFor();
      await expect.poll(() => tiles(page)).toHaveLength(2);

      // Include sub-folders: the files of every folder below, not the loose one; remembered in the URL.
      const toggle = page.getByRole('switch', { name: 'Include sub-folders' });
      await toggle.check();
      await expect.poll(() => gridNames(page)).toEqual(['alpha.png', 'beta-1.png', 'beta-2.png', 'deep.png']);
      await expect.poll(() => new URL(page.url()).searchParams.get('subfolders')).toBe('1');
      await screenshotVariants(page, 'library-subfolders-included', () => page.locator('ul[aria-label="Assets"] img').first().waitFor());

      // A reload keeps it; a sub-folder opened from here keeps it too (its own subtree).
      await page.reload();
      await expect(page.getByRole('switch', { name: 'Include sub-folders' }).isChecked()).resolves.toBe(true);
      await expect.poll(() => gridNames(page)).toEqual(['alpha.png', 'beta-1.png', 'beta-2.png', 'deep.png']);
      await page.locator('ul[aria-label="Sub-folders"] button', { hasText: 'Alpha' }).click();
      await page.getByRole('heading', { name: 'Alpha' }).waitFor();
      await expect.poll(() => gridNames(page)).toEqual(['alpha.png', 'deep.png']);
      await page.getByRole('switch', { name: 'Include sub-folders' }).uncheck();
      await expect.poll(() => gridNames(page)).toEqual(['alpha.png']);
      expect(new URL(page.url()).searchParams.get('subfolders')).toBeNull();
    } finally {
      await context.close();
    }
  });
});
