import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { hasChromium, png, registerApi, screenshotVariants, signedInPage, uploadApi, useBrowserSuite } from './harness.js';

/**
 * Issue #27, "dead ends": "Add to collection" in a workspace without a collection offers to make one right there, and
 * the new collection gets what was being added, from the library's selection and from an asset's page.
 */
describe.skipIf(!hasChromium)('add to a new collection, in chromium', () => {
  let browser: Browser;
  let base: string;
  useBrowserSuite(async (suite) => {
    ({ browser, base } = suite);
  });

  async function collectionsOf(token: string, ws: number): Promise<{ name: string; asset_count: number }[]> {
    const res = await fetch(`${base}/dam/collections?workspaceId=${ws}`, { headers: { authorization: `Bearer ${token}` } });
    return ((await res.json()) as { data: { items: { name: string; asset_count: number }[] } }).data.items;
  }

  it('makes the first collection from the Add to collection dialog, with the selected assets in it', async () => {
    const owner = await registerApi(base, 'Cora Collector');
    const ws = owner.workspaces[0]!.id;
    await uploadApi(base, owner.token, ws, { name: 'one.png', type: 'image/png', data: await png(40, 30, '#c0392b') });
    const second = await uploadApi(base, owner.token, ws, { name: 'two.png', type: 'image/png', data: await png(40, 30, '#2980b9') });
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/library?ws=${ws}`);
      await page.getByLabel('Select one.png').click();
      await page.getByLabel('Select two.png').click();
      await page.getByRole('button', { name: 'Add to collection' }).click();
      const pick = page.getByRole('dialog', { name: 'Add 2 assets to a collection' });
      await pick.getByText('This workspace has no collection yet').waitFor();
      await expect(pick.getByRole('button', { name: 'Add', exact: true }).isDisabled()).resolves.toBe(true);
      await screenshotVariants(page, 'collection-add-empty');
      await pick.getByRole('button', { name: 'New collection' }).click();

      const prompt = page.getByRole('dialog', { name: 'New collection' });
      await prompt.getByLabel('Collection name').fill('Spring campaign');
      await prompt.getByRole('button', { name: 'Create' }).click();
      await page.getByText('Collection “Spring campaign” created').waitFor();
      await expect.poll(() => collectionsOf(owner.token, ws)).toEqual([expect.objectContaining({ name: 'Spring campaign', asset_count: 2 })]);

      // From an asset's page, the same dialog lists the collection and still offers a new one.
      await page.goto(`${base}/asset/${second.id}`);
      await page.getByRole('button', { name: 'Add to collection' }).click();
      const again = page.getByRole('dialog', { name: 'Add to a collection' });
      await expect.poll(() => again.getByLabel('Collection').locator('option').allTextContents()).toEqual(['Spring campaign']);
      await again.getByRole('button', { name: 'New collection' }).click();
      const named = page.getByRole('dialog', { name: 'New collection' });
      await named.getByLabel('Collection name').fill('Hero shots');
      await named.getByRole('button', { name: 'Create and add' }).click();
      await page.getByText('Added to the new collection “Hero shots”').waitFor();
      const all = await collectionsOf(owner.token, ws);
      expect(all.map((c) => [c.name, c.asset_count]).sort()).toEqual([
        ['Hero shots', 1],
        ['Spring campaign', 2],
      ]);
    } finally {
      await context.close();
    }
  });
});
