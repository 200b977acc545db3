import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousViolationsInThemes } from './axe.js';
import { recordRefusal } from '../../src/repositories/sweep-refusals.js';
import { apiData, type BrowserApp, dropFiles, hasChromium, newPage, png, registerApi, type Session, signedInPage, uploadApi, useBrowserSuite } from './harness.js';

/**
 * Issue #29: axe (WCAG 2.0/2.1 A and AA, best practices) on every main page, in light and in dark:
 * no serious or critical violation. A failure lists each rule, its impact and the elements.
 */
describe.skipIf(!hasChromium)('accessibility of the main pages (axe), in chromium', () => {
  let browser: Browser;
  let env: BrowserApp;
  let base: string;
  let owner: Session;
  let ws: number;
  let assetId: number;
  let shareUrl: string;

  useBrowserSuite(async (suite) => {
    ({ browser, env, base } = suite);
    owner = await registerApi(base, 'Ada Lovelace');
    ws = owner.workspaces[0]!.id;
    const folder = await apiData<{ id: number }>(base, owner.token, 'POST', '/dam/folders', { workspace_id: ws, name: 'Press kit', parent_id: null });
    const seed = [
      { name: 'harbour.png', colour: '#1971c2', folderId: folder.id },
      { name: 'lighthouse.png', colour: '#e03131', folderId: folder.id },
      { name: 'meadow.png', colour: '#2f9e44', folderId: undefined },
    ];
    for (const f of seed) {
      const { id } = await uploadApi(base, owner.token, ws, { name: f.name, type: 'image/png', data: await png(640, 480, f.colour), tags: ['spring'], folderId: f.folderId });
      assetId ??= id;
    }
    await uploadApi(base, owner.token, ws, { name: 'notes.txt', type: 'text/plain', data: new TextEncoder().encode('notes'), visibility: 1 });
    await env.app.app.jobs.drain();
    shareUrl = (await apiData<{ url: string }>(base, owner.token, 'POST', '/shared', { workspaceId: ws, folder_id: folder.id, description: 'Press kit for the spring issue' })).url;
  });

  /** Opens a page (signed in unless `guest`), brings it to the state `ready` waits for, and asserts axe's bar in both themes. */
  async function check(open: { path: string; guest?: boolean }, ready: (page: Page) => Promise<unknown>): Promise<void> {
    const { context, page } = open.guest ? await newPage(browser) : await signedInPage(browser, owner);
    try {
      await page.goto(`${base}${open.path}`);
      await ready(page);
      const found = await seriousViolationsInThemes(page);
      expect(found, `axe found serious or critical violations on ${open.path}:\n${found}`).toBe('');
    } finally {
      await context.close();
    }
  }

  it('the check itself fails a page with a nameless button and low contrast, naming the rule and the element', async () => {
    const { context, page } = await newPage(browser);
    try {
      await page.goto(`${base}/login`);
      await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
      // In-page code is written as source: this file is type-checked without the DOM library.
      await page.evaluate(`(() => {
        // In the sign-in card: on its plain background axe can measure contrast (not on the page's gradient).
        document.querySelector('.card').insertAdjacentHTML('beforeend', '<button id="nameless" type="button"></button><p id="faint">Faint words</p>');
        // Through the CSSOM: the Content-Security-Policy refuses style attributes.
        document.getElementById('faint').style.color = 'light-dark(#ddd, #333)';
      })()`);
      const found = await seriousViolationsInThemes(page);
      expect(found).toMatch(/^\[light\]$/m);
      expect(found).toMatch(/^\[dark\]$/m);
      expect(found).toMatch(/^button-name \(critical\) at #nameless: /m);
      expect(found).toMatch(/^color-contrast \(serious\) at #faint: .*contrast of/m);
    } finally {
      await context.close();
    }
  });

  it('the sign-in page', async () => {
    await check({ path: '/login', guest: true }, (page) => page.getByRole('button', { name: 'Sign in', exact: true }).waitFor());
  });

  it('the library with assets', async () => {
    await check({ path: '/library' }, async (page) => {
      await page.getByRole('heading', { name: 'All assets' }).waitFor();
      await page.locator('ul[aria-label="Assets"] li').nth(3).waitFor();
    });
  });

  it('the library with a selection', async () => {
    await check({ path: '/library' }, async (page) => {
      await page.locator('ul[aria-label="Assets"] li').nth(3).waitFor();
      await page.getByLabel('Select meadow.png').check();
      await page.getByText('1 selected').waitFor();
    });
  });

  it('the account menu and the keyboard shortcuts', async () => {
    await check({ path: '/library' }, async (page) => {
      await page.locator('ul[aria-label="Assets"] li').nth(3).waitFor();
      await page.getByRole('button', { name: /^Account/ }).click();
      await page.getByRole('menu').waitFor();
    });
    await check({ path: '/library' }, async (page) => {
      await page.locator('ul[aria-label="Assets"] li').nth(3).waitFor();
      await page.keyboard.press('?');
      await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
    });
  });

  it('the asset page', async () => {
    await check({ path: `/asset/${assetId}` }, (page) => page.getByRole('heading', { name: 'harbour.png' }).waitFor());
  });

  it('the upload panel, open', async () => {
    await check({ path: '/library' }, async (page) => {
      await page.getByRole('heading', { name: 'All assets' }).waitFor();
      await dropFiles(page, [
        { name: 'dune.png', type: 'image/png', bytes: await png(320, 200, '#f08c00') },
        { name: 'empty.txt', type: 'text/plain', bytes: new TextEncoder().encode('x') },
      ]);
      const panel = page.getByRole('region', { name: 'Uploads' });
      await panel.getByRole('heading', { name: '2 uploaded' }).waitFor({ timeout: 30_000 });
      // Done, it folds to its header: open it again.
      const toggle = panel.getByRole('button', { name: 'Show or hide uploads' });
      if ((await toggle.getAttribute('aria-expanded')) === 'false') await toggle.click();
      await panel.locator('[data-state="done"]').first().waitFor();
    });
  });

  it('the sharing dialog', async () => {
    await check({ path: `/asset/${assetId}` }, async (page) => {
      await page.getByRole('button', { name: 'Share' }).click();
      await page.getByRole('dialog', { name: 'Share “harbour.png”' }).waitFor();
    });
  });

  it('the account settings', async () => {
    await check({ path: '/settings/account' }, (page) => page.getByRole('heading', { name: 'Account settings' }).waitFor());
  });

  it('the workspace settings', async () => {
    await check({ path: `/settings/${ws}` }, (page) => page.getByRole('heading', { name: 'Members' }).waitFor());
  });

  it('the shared links page', async () => {
    await check({ path: `/settings/${ws}/shares` }, (page) => page.getByText('Press kit for the spring issue').first().waitFor());
  });

  it('the held-back deletions page, with one waiting (its owner is the instance admin)', async () => {
    const facts = { sweep: 'trash', workspace_id: ws, would_delete: 3, workspace_total: 4, summary: 'would delete 3 of the workspace\'s 4 assets', examples: ['asset 1 harbour.png'] };
    await recordRefusal(env.app.database.db, facts, Math.floor(Date.now() / 1000), undefined);
    await check({ path: '/settings/housekeeping' }, (page) => page.getByRole('button', { name: 'Let it delete…' }).waitFor());
  });

  it('the public page of a shared link', async () => {
    await check({ path: new URL(shareUrl).pathname, guest: true }, (page) => page.locator('ul[aria-label="Files"] li').nth(1).waitFor());
  });
});
