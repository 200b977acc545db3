import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { dropFiles, hasChromium, registerApi, screenshot, type Session, signedInPage, useBrowserSuite } from './harness.js';

/** The names on the asset cards of the grid. */
async function gridNames(page: Page): Promise<string[]> {
  return page.locator('ul[aria-label="Assets"] .name').allTextContents();
}

/** The same bytes each time. */
const SAME_BYTES = Uint8Array.from({ length: 300 * 1024 }, (_, i) => (i * 7) % 253);

/** Drops a file with the same bytes each time (a new File object, as a second drag of it from the desktop gives). */
function drop(page: Page, name: string): Promise<void> {
  return dropFiles(page, [{ name, type: 'application/octet-stream', bytes: SAME_BYTES }]);
}

describe.skipIf(!hasChromium)('duplicates marked before upload (issue #19), in chromium', () => {
  let browser: Browser;
  let base: string;
  let owner: Session;
  let ws: number;

  useBrowserSuite(async (suite) => {
    ({ browser, base } = suite);
    owner = await registerApi(base, 'Grace Hopper');
    ws = owner.workspaces[0]!.id;
  });

  const api = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${owner.token}` } });
    return (await res.json()) as T;
  };
  const assetsNamed = async (name: string) =>
    (await api<{ data: { items: { id: number; display_file_name: string }[] } }>(`/dam/assets?workspaceId=${ws}&per_page=100`)).data.items.filter(
      (a) => a.display_file_name === name,
    );

  it('marks a file the library has, links the asset; Skip leaves it out, Upload anyway makes a second asset', async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/library`);
      await page.getByRole('heading', { name: 'All assets' }).waitFor();
      const panel = page.getByRole('region', { name: 'Uploads' });

      // The first upload: nothing like it yet, so it is uploaded without a question.
      await drop(page, 'survey.bin');
      await panel.locator('[data-state="done"]').filter({ hasText: 'survey.bin' }).waitFor({ state: 'attached', timeout: 20_000 });
      const [first] = await assetsNamed('survey.bin');
      expect(first).toBeDefined();
      // The server hashes a stored file in a background job: wait until it has.
      await expect
        .poll(async () => (await api<{ data: { sha256: string | null } }>(`/dam/assets/${first!.id}`)).data.sha256, { timeout: 20_000 })
        .toMatch(/^[0-9a-f]{64}$/);
      await page.getByRole('button', { name: 'Clear finished uploads' }).click();

      // The same bytes again, under another name: marked, with a link to the asset that has them.
      await drop(page, 'survey-copy.bin');
      const mark = panel.getByTestId('upload-duplicate');
      await mark.waitFor({ timeout: 15_000 });
      expect(await mark.textContent()).toContain('Already in the library: survey.bin');
      expect(await mark.getByRole('link', { name: 'survey.bin' }).getAttribute('href')).toBe(`/asset/${first!.id}`);
      await screenshot(page, 'upload-duplicate');

      // Skip: nothing is uploaded.
      await page.getByRole('button', { name: 'Skip survey-copy.bin' }).click();
      await panel.locator('[data-state="skipped"]').filter({ hasText: 'Skipped: already in the library' }).waitFor();
      expect(await assetsNamed('survey-copy.bin')).toEqual([]);

      // Again, and this time upload it anyway: a second asset with the same file.
      await drop(page, 'survey-copy.bin');
      await page.getByRole('button', { name: 'Upload survey-copy.bin anyway' }).click();
      await panel.locator('[data-state="done"]').filter({ hasText: 'survey-copy.bin' }).waitFor({ state: 'attached', timeout: 20_000 });
      const copies = await assetsNamed('survey-copy.bin');
      expect(copies).toHaveLength(1);
      expect(copies[0]!.id).not.toBe(first!.id);
      await expect.poll(() => gridNames(page), { timeout: 10_000 }).toEqual(expect.arrayContaining(['survey.bin', 'survey-copy.bin']));
    } finally {
      await context.close();
    }
  });
});
