import sharp from 'sharp';
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { dropFiles, hasChromium, registerApi, screenshotVariants, signedInPage, uploadApi, useBrowserSuite, type Session } from './harness.js';

const TRUNCATED = 'The image data ends early; the file looks truncated.';

/** Unreadable files (issue #27): the upload panel's warning, the tile's badge, the filter and the asset page's message. */
describe.skipIf(!hasChromium)('unreadable files, in chromium', () => {
  let browser: Browser;
  let base: string;
  let owner: Session;
  let photo: Buffer;

  useBrowserSuite(async (suite) => {
    ({ browser, base } = suite);
    owner = await registerApi(base, 'Ada Lovelace');
    photo = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 } } })
      .jpeg({ quality: 90 })
      .toBuffer();
    // A readable asset beside them (other bytes: the panel would stop at an exact duplicate), so the filter has something to leave out.
    const earlier = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#3a7' } }).jpeg().toBuffer();
    await uploadApi(base, owner.token, owner.workspaces[0]!.id, { name: 'earlier.jpg', type: 'image/jpeg', data: new Uint8Array(earlier) });
  });

  it('warns in the upload panel, badges the tile, filters, and shows the reason on the asset page instead of a preview', async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/library`);
      await page.getByRole('heading', { name: 'All assets' }).waitFor();
      await dropFiles(page, [
        { name: 'holiday-cut.jpg', type: 'image/jpeg', bytes: photo.subarray(0, Math.floor(photo.length / 2)) },
        { name: 'holiday.jpg', type: 'image/jpeg', bytes: photo },
      ]);
      const panel = page.getByRole('region', { name: 'Uploads' });
      // The preview job checks the file after the upload; the panel learns it in one of its follow-up rounds.
      const warning = panel.getByTestId('upload-unreadable');
      await warning.waitFor({ timeout: 30_000 });
      expect(await warning.textContent()).toContain(`Uploaded, but the file could not be read: ${TRUNCATED}`);
      expect(await panel.locator('[data-state="done"]').filter({ hasText: 'holiday-cut.jpg' }).getByTestId('upload-unreadable').count()).toBe(1);
      expect(await panel.locator('[data-state="done"]').filter({ hasText: 'holiday.jpg' }).getByTestId('upload-unreadable').count()).toBe(0);
      await expect.poll(() => panel.getByRole('heading').textContent()).toContain('2 uploaded, 1 unreadable');
      await screenshotVariants(page, 'unreadable-upload-panel');

      // The tile has the badge (its reason as the title); the filter keeps only the unreadable one.
      const card = page.locator('.asset-card').filter({ hasText: 'holiday-cut.jpg' });
      await card.getByTestId('unreadable-badge').waitFor();
      expect(await card.getByTestId('unreadable-badge').getAttribute('title')).toBe(TRUNCATED);
      expect(await page.locator('.asset-card').filter({ hasText: 'holiday.jpg' }).getByTestId('unreadable-badge').count()).toBe(0);
      await page.getByRole('button', { name: 'Filters' }).click();
      await page.getByLabel('Unreadable files only').check();
      await expect.poll(() => page.locator('ul[aria-label="Assets"] .name').allTextContents()).toEqual(['holiday-cut.jpg']);
      expect(page.url()).toContain('unreadable=1');

      // The asset page says why there is no preview, and still offers the file.
      await warning.getByRole('link', { name: 'Open' }).click();
      const message = page.getByTestId('unreadable-message');
      await message.waitFor();
      expect(await message.textContent()).toContain('This file could not be read');
      expect(await message.textContent()).toContain(TRUNCATED);
      expect(await page.locator('.preview img').count()).toBe(0);
      await screenshotVariants(page, 'unreadable-asset-page', () => message.waitFor());
    } finally {
      await context.close();
    }
  });
});
