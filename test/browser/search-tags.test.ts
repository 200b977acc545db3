import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { hasChromium, png, registerApi, screenshotVariants, type Session, signedInPage, uploadApi, useBrowserSuite } from './harness.js';

/**
 * Issue #27, "search that forgives": the library's tag list shows the ten most used tags of the result by count
 * (not the first ten by name), "Show all" shows the rest, and a type-ahead narrows the list; a click filters.
 */
describe.skipIf(!hasChromium)('the tag list of the library filters, in chromium', () => {
  let browser: Browser;
  let base: string;
  let owner: Session;
  // Asset i carries TAGS[0..i]: TAGS[j] is on 12 - j assets, so the alphabetically first two are the least used.
  const TAGS = ['sunset', 'portrait', 'landscape', 'harbour', 'mountain', 'river', 'forest', 'winter', 'summer', 'beach', 'autumn', 'aardvark'];

  useBrowserSuite(async (suite) => {
    ({ browser, base } = suite);
    owner = await registerApi(base, 'Tag Lister');
    const ws = owner.workspaces[0]!.id;
    const image = await png(40, 30, '#4a7');
    for (let i = 0; i < TAGS.length; i += 1) {
      await uploadApi(base, owner.token, ws, { name: `photo-${i}.png`, type: 'image/png', data: image, tags: TAGS.slice(0, i + 1) });
    }
  });

  const chips = (page: Page) => page.getByRole('group', { name: 'Frequent tags' }).getByRole('button', { name: /\d$/ }).allTextContents();

  it('lists the most used tags first, shows all on demand, and narrows them as one types', async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/library`);
      await page.getByRole('button', { name: 'Filters', exact: true }).click();
      const group = page.getByRole('group', { name: 'Frequent tags' });
      await group.getByRole('button', { name: 'sunset12' }).waitFor();
      expect(await chips(page)).toEqual(TAGS.slice(0, 10).map((t, j) => `${t}${12 - j}`));

      await group.getByRole('button', { name: 'Show all' }).click();
      await group.getByRole('button', { name: 'aardvark1' }).waitFor();
      expect(await chips(page)).toEqual(TAGS.map((t, j) => `${t}${12 - j}`));
      await screenshotVariants(page, 'search-tags-all', () => page.getByRole('button', { name: 'Filters', exact: true }).waitFor());

      await group.getByRole('button', { name: 'Show fewer' }).click();
      await page.getByLabel('Find a tag of these results').fill('AR');
      // Narrowed to the tags containing "ar" (case ignored), most used first, from the whole list.
      await group.getByRole('button', { name: 'aardvark1' }).waitFor();
      expect(await chips(page)).toEqual(['harbour9', 'aardvark1']);
      await screenshotVariants(page, 'search-tags-typeahead');

      await group.getByRole('button', { name: 'aardvark1' }).click();
      await expect.poll(() => page.locator('ul[aria-label="Assets"] .name').allTextContents()).toEqual(['photo-11.png']);
      await page.getByLabel('Find a tag of these results').fill('zzz');
      await page.getByText('No tag of these results contains “zzz”').waitFor();
    } finally {
      await context.close();
    }
  });
});
