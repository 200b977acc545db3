import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { apiData, type BrowserApp, hasChromium, png, registerApi, screenshotVariants, type Session, signedInPage, uploadApi, useBrowserSuite } from './harness.js';

const KOALAS = 200;
const PER_PAGE = 24;
const COLOURS = ['#1971c2', '#2f9e44', '#e8590c', '#ae3ec9', '#f08c00', '#0c8599', '#c2255c', '#5c940d'];

/** The names on the asset cards of the grid, in order, and those whose checkbox is ticked. */
const gridNames = (page: Page): Promise<string[]> => page.locator('ul[aria-label="Assets"] .name').allTextContents();
const checkedNames = (page: Page): Promise<string[]> => page.locator('ul[aria-label="Assets"] li:has(input:checked) .name').allTextContents();
const koala = (i: number) => `koala-${String(i).padStart(3, '0')}.png`;

/**
 * Issue #27 in the web client, "Selection": Shift-click ranges, a selection kept while paging, Escape, "Select page",
 * and "Select all N matching" across pages, which bulk actions send as the search itself.
 */
describe.skipIf(!hasChromium)('library selection across pages, in chromium', () => {
  let browser: Browser;
  let env: BrowserApp;
  let base: string;
  let owner: Session;
  let ws: number;

  const api = <T>(method: string, path: string, body?: unknown) => apiData<T>(base, owner.token, method, path, body);
  const found = async (q: string, filter: string) =>
    (await api<{ found: number }>('POST', '/search-engine/search-assets', { q, filter_by: filter, workspace_id_filter: String(ws) })).found;

  useBrowserSuite(async (suite) => {
    ({ browser, env, base } = suite);
    owner = await registerApi(base, 'Ada Lovelace');
    ws = owner.workspaces[0]!.id;
    const pictures = await Promise.all(COLOURS.map((c) => png(48, 36, c)));
    const files = [...Array.from({ length: KOALAS }, (_, i) => koala(i + 1)), 'wombat-1.png', 'wombat-2.png'];
    // Four uploads at a time.
    for (let at = 0; at < files.length; at += 4) {
      await Promise.all(
        files.slice(at, at + 4).map((name, i) => uploadApi(base, owner.token, ws, { name, type: 'image/png', data: pictures[(at + i) % COLOURS.length]! })),
      );
    }
    await env.app.app.jobs.drain();
  });

  it('selects a range with Shift-click, keeps the selection while paging, and clears it with Escape', async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/library?ws=${ws}&q=koala&sort=display_file_name:asc`);
      await expect.poll(() => gridNames(page)).toHaveLength(PER_PAGE);
      expect((await gridNames(page))[0]).toBe(koala(1));
      await page.getByLabel(`Select ${koala(2)}`).click();
      await page.getByLabel(`Select ${koala(6)}`).click({ modifiers: ['Shift'] });
      const bar = page.getByRole('region', { name: 'Selection' });
      await bar.getByText('5 selected').waitFor();
      expect(await checkedNames(page)).toEqual([2, 3, 4, 5, 6].map(koala));

      // Page 2: one more; back on page 1 the first five are still ticked.
      await page.getByRole('button', { name: 'Next page' }).click();
      await expect.poll(async () => (await gridNames(page))[0]).toBe(koala(PER_PAGE + 1));
      await bar.getByText('5 selected').waitFor();
      await page.getByLabel(`Select ${koala(PER_PAGE + 3)}`).click();
      await bar.getByText('6 selected').waitFor();
      await page.getByRole('button', { name: 'Previous page' }).click();
      await expect.poll(async () => (await gridNames(page))[0]).toBe(koala(1));
      expect(await checkedNames(page)).toEqual([2, 3, 4, 5, 6].map(koala));
      await bar.getByText('6 selected').waitFor();

      // Escape clears it.
      await page.keyboard.press('Escape');
      await expect.poll(() => bar.count()).toBe(0);
      expect(await checkedNames(page)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it(`selects all ${KOALAS} matching across pages and tags them in one request, less one deselected`, async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/library?ws=${ws}&q=koala&sort=display_file_name:asc`);
      await expect.poll(() => gridNames(page)).toHaveLength(PER_PAGE);
      await page.getByLabel('Select page').check();
      await page.getByText(`All ${PER_PAGE} assets on this page are selected.`).waitFor();
      await page.getByRole('button', { name: `Select all ${KOALAS} matching` }).click();
      await page.getByText(`All ${KOALAS} matching assets are selected.`).waitFor();
      const bar = page.getByRole('region', { name: 'Selection' });
      await bar.getByText(`${KOALAS} selected of ${KOALAS} matching`).waitFor();
      await screenshotVariants(page, 'library-select-all-matching');

      // Share and ZIP take assets by id: disabled, saying why.
      for (const name of ['Share', 'Download ZIP', 'Add to collection']) {
        const button = bar.getByRole('button', { name });
        expect(await button.isDisabled()).toBe(true);
        expect(await button.getAttribute('title')).toContain('Not for all matching assets');
      }

      // On page 3, one tile deselected: the rest stays selected, there and elsewhere.
      await page.getByRole('button', { name: 'Next page' }).click();
      await page.getByRole('button', { name: 'Next page' }).click();
      await expect.poll(async () => (await gridNames(page))[0]).toBe(koala(2 * PER_PAGE + 1));
      expect(await checkedNames(page)).toHaveLength(PER_PAGE);
      await page.getByLabel(`Select ${koala(2 * PER_PAGE + 5)}`).click();
      await page.getByText(`All ${KOALAS} matching assets are selected, except 1.`).waitFor();
      await bar.getByText(`${KOALAS - 1} selected`).waitFor();

      await bar.getByRole('button', { name: 'Add tags' }).click();
      const dialog = page.getByRole('dialog', { name: `Add tags to ${KOALAS - 1} assets` });
      await dialog.getByLabel('Tags to add').pressSequentially('marsupial');
      await dialog.getByLabel('Tags to add').press('Enter');
      await dialog.locator('.chip').filter({ hasText: 'marsupial' }).waitFor();
      await dialog.getByRole('button', { name: 'Add tags' }).click();
      await page.getByText(`Tagged ${KOALAS - 1} assets with “marsupial”`).waitFor();
      await expect.poll(() => bar.count()).toBe(0);

      expect(await found('koala', 'tags:=[marsupial]')).toBe(KOALAS - 1);
      expect(await found('*', 'tags:=[marsupial]')).toBe(KOALAS - 1);
      const skipped = await api<{ hits: { document: { tags: string[] } }[] }>('POST', '/search-engine/search-assets', {
        q: koala(2 * PER_PAGE + 5),
        workspace_id_filter: String(ws),
      });
      expect(skipped.hits.map((h) => h.document.tags)).toEqual([[]]);
    } finally {
      await context.close();
    }
  });
});
