import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { apiData, hasChromium, png, registerApi, screenshotVariants, type Session, signedInPage, uploadApi, useBrowserSuite } from './harness.js';

const fourShots = (page: Page, name: string) => screenshotVariants(page, `private-${name}`);

/** The names on the asset cards of the grid. */
async function gridNames(page: Page): Promise<string[]> {
  return page.locator('ul[aria-label="Assets"] .name').allTextContents();
}

/**
 * Issue #27, section 2, in the web client: a private asset carries a lock badge in the grid and on its page (public
 * ones carry none), the asset page says in one line who sees it, and a viewer who did not upload it finds no trace of it.
 */
describe.skipIf(!hasChromium)('private assets, in chromium', () => {
  let browser: Browser;
  let base: string;
  let admin: Session;
  let ws: number;
  /** Vera uploaded her private asset as a manager; she is a viewer now. Walt is a viewer who uploaded nothing. */
  let vera: Session;
  let walt: Session;
  const ids: Record<string, number> = {};

  const api = <T>(method: string, path: string, body?: unknown, who: Session = admin) => apiData<T>(base, who.token, method, path, body);

  /** A member signed in with the team's workspace as their current one. */
  const asMember = (who: Session, role: string, options: { width?: number; height?: number } = {}) =>
    signedInPage(browser, { ...who, workspaces: [{ id: ws, name: 'Team', role }] }, options);

  useBrowserSuite(async (suite) => {
    ({ browser, base } = suite);
    admin = await registerApi(base, 'Ada Admin');
    ws = admin.workspaces[0]!.id;
    const veraAccount = await registerApi(base, 'Vera Viewer');
    const waltAccount = await registerApi(base, 'Walt Viewer');
    vera = veraAccount;
    walt = waltAccount;
    await api('POST', `/workspaces/${ws}/members`, { email: veraAccount.email, role: 'manager' });
    await api('POST', `/workspaces/${ws}/members`, { email: waltAccount.email, role: 'viewer' });
    ids['lake.png'] = (await uploadApi(base, admin.token, ws, { name: 'lake.png', type: 'image/png', data: await png(800, 450, '#1c7ed6') })).id;
    ids['forest.png'] = (await uploadApi(base, admin.token, ws, { name: 'forest.png', type: 'image/png', data: await png(800, 450, '#2f9e44') })).id;
    ids['board-minutes.png'] = (
      await uploadApi(base, admin.token, ws, { name: 'board-minutes.png', type: 'image/png', data: await png(600, 800, '#e8590c'), visibility: 1 })
    ).id;
    ids['vera-draft.png'] = (await uploadApi(base, vera.token, ws, { name: 'vera-draft.png', type: 'image/png', data: await png(800, 800, '#9c36b5'), visibility: 1 })).id;
    await api('PATCH', `/workspaces/${ws}/members/${vera.user.id}`, { role: 'viewer' });
  });

  it('shows the uploader a lock badge on their private asset, none on public ones, and not the others\' private assets', async () => {
    const { context, page } = await asMember(vera, 'viewer');
    try {
      await page.goto(`${base}/library?ws=${ws}`);
      await expect.poll(() => gridNames(page).then((n) => [...n].sort())).toEqual(['forest.png', 'lake.png', 'vera-draft.png']);
      const card = (name: string) => page.locator(`li.asset-card[data-asset-id="${ids[name]}"]`);
      await expect.poll(() => card('vera-draft.png').getByTitle(/^Private/).count()).toBe(1);
      expect(await card('vera-draft.png').locator('.private').textContent()).toBe('Private');
      expect(await card('lake.png').locator('.private').count()).toBe(0);
      expect(await page.locator('ul[aria-label="Assets"]').getByText(/public/i).count()).toBe(0);
      // Thumbnails are drawn (their signed URLs are the viewer's).
      await expect
        .poll(() => card('vera-draft.png').locator('img').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth))
        .toBeGreaterThan(0);
      await fourShots(page, 'library-owner');

      // Her asset's page: the badge beside the name, and who sees it in one line.
      await card('vera-draft.png').locator('a.link').click();
      await page.getByRole('heading', { name: 'vera-draft.png' }).waitFor();
      await page.locator('.title-row .badge', { hasText: 'Private' }).waitFor();
      await page.getByText('Private: only you, managers and admins can see it').waitFor();
      await fourShots(page, 'asset-owner');

      // A public asset's page has no badge at all.
      await page.goto(`${base}/asset/${ids['lake.png']}`);
      await page.getByRole('heading', { name: 'lake.png' }).waitFor();
      await page.getByText('Visible to everyone in this workspace').waitFor();
      expect(await page.locator('.title-row .badge').count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it('explains the visibility to a manager while it is being changed', async () => {
    const { context, page } = await asMember(admin, 'admin');
    try {
      await page.goto(`${base}/asset/${ids['board-minutes.png']}`);
      await page.getByRole('heading', { name: 'board-minutes.png' }).waitFor();
      const select = page.getByLabel('Visibility');
      expect(await select.inputValue()).toBe('1');
      const hint = page.locator('#meta-visibility-hint');
      expect(await hint.textContent()).toBe('Private: only its uploader, managers and admins can see it');
      expect(await select.getAttribute('aria-describedby')).toBe('meta-visibility-hint');
      await fourShots(page, 'asset-manager');
      await select.selectOption('0');
      expect(await hint.textContent()).toBe('Visible to everyone in this workspace');
      await page.getByRole('button', { name: 'Discard' }).click();
      expect(await hint.textContent()).toBe('Private: only its uploader, managers and admins can see it');
      // The admin's library shows every asset, the private ones with their badge.
      await page.goto(`${base}/library?ws=${ws}`);
      await expect.poll(() => gridNames(page).then((n) => [...n].sort())).toEqual(['board-minutes.png', 'forest.png', 'lake.png', 'vera-draft.png']);
      expect(await page.locator('ul[aria-label="Assets"] .private').count()).toBe(2);
    } finally {
      await context.close();
    }
  });

  it('leaves another viewer no trace of a private asset: not in the library, the search or its own page', async () => {
    const { context, page } = await asMember(walt, 'viewer');
    try {
      await page.goto(`${base}/library?ws=${ws}`);
      await expect.poll(() => gridNames(page).then((n) => [...n].sort())).toEqual(['forest.png', 'lake.png']);
      expect(await page.locator('ul[aria-label="Assets"] .private').count()).toBe(0);
      await fourShots(page, 'library-viewer');
      await page.goto(`${base}/library?ws=${ws}&q=board`);
      await page.getByText('No assets match').waitFor();
      await page.goto(`${base}/asset/${ids['board-minutes.png']}`);
      await page.getByText('This asset does not exist or was deleted').waitFor();
      await fourShots(page, 'asset-viewer-404');
    } finally {
      await context.close();
    }
  });
});
