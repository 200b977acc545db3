import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  type BrowserApp,
  hasChromium,
  png,
  registerApi,
  screenshot,
  SCREENSHOT_DIR,
  type Session,
  signedInPage,
  uploadApi,
  useBrowserSuite,
} from './harness.js';

/** The names on the asset cards of the grid, in order. */
async function gridNames(page: Page): Promise<string[]> {
  return page.locator('ul[aria-label="Assets"] .name').allTextContents();
}

/** The names listed in the trash, in order. */
async function trashNames(page: Page): Promise<string[]> {
  return page.locator('tr[data-trash] .name').allTextContents();
}

/** Issue #11 in the web client: bulk actions, the trash, the activity log. */
describe.skipIf(!hasChromium)('bulk actions, trash and activity, in chromium', () => {
  let browser: Browser;
  let env: BrowserApp;
  let base: string;
  let owner: Session;
  let manager: Session;
  let ws: number;
  let archive: number;
  const ids: Record<string, number> = {};

  async function api<T>(method: string, path: string, body?: unknown, who: Session = owner): Promise<T> {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${who.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { data: T }).data;
  }
  const tagsOf = async (name: string) => (await api<{ tags: string[] }>('GET', `/dam/assets/${ids[name]}`)).tags;
  const trashTotal = async () => (await api<{ total: number }>('GET', `/dam/trash?workspaceId=${ws}`)).total;

  useBrowserSuite(async (suite) => {
    ({ browser, env, base } = suite);
    owner = await registerApi(base, 'Katherine Johnson');
    ws = owner.workspaces[0]!.id;
    const registered = await registerApi(base, 'Dorothy Vaughan');
    await api('POST', `/workspaces/${ws}/members`, { email: registered.email, role: 'manager' });
    manager = { ...registered, workspaces: [...registered.workspaces, { id: ws, name: owner.workspaces[0]!.name, role: 'manager' }] };
    archive = (await api<{ id: number }>('POST', '/dam/folders', { workspace_id: ws, name: 'Archive', parent_id: null })).id;
    const seed = [
      { name: 'apple.png', colour: '#c92a2a', tags: ['fruit'] },
      { name: 'banana.png', colour: '#fab005', tags: [] },
      { name: 'cherry.png', colour: '#a61e4d', tags: [] },
      { name: 'damson.png', colour: '#5f3dc4', tags: [] },
    ];
    for (const f of seed) ids[f.name] = (await uploadApi(base, owner.token, ws, { name: f.name, type: 'image/png', data: await png(480, 360, f.colour), tags: f.tags })).id;
    await env.app.app.jobs.drain();
  });

  it('tags two assets at once from the selection bar, then they carry the tag', async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/library?ws=${ws}&sort=display_file_name:asc`);
      await expect.poll(() => gridNames(page)).toEqual(['apple.png', 'banana.png', 'cherry.png', 'damson.png']);
      await page.getByLabel('Select apple.png').click();
      await page.getByLabel('Select banana.png').click();
      const bar = page.getByRole('region', { name: 'Selection' });
      await bar.getByText('2 selected').waitFor();
      await screenshot(page, 'trash-bulk-bar');

      await bar.getByRole('button', { name: 'Add tags' }).click();
      const dialog = page.getByRole('dialog', { name: 'Add tags to 2 assets' });
      await dialog.getByLabel('Tags to add').pressSequentially('harvest');
      await dialog.getByLabel('Tags to add').press('Enter');
      await dialog.locator('.chip').filter({ hasText: 'harvest' }).waitFor();
      await screenshot(page, 'trash-bulk-tag-dialog');
      await dialog.getByRole('button', { name: 'Add tags' }).click();
      await page.getByText('Tagged 2 assets with “harvest”').waitFor();
      expect(await tagsOf('apple.png')).toEqual(['fruit', 'harvest']);
      expect(await tagsOf('banana.png')).toEqual(['harvest']);

      // The library filtered by the tag shows both; the asset page shows the chip.
      await page.goto(`${base}/library?ws=${ws}&tags=harvest&sort=display_file_name:asc`);
      await expect.poll(() => gridNames(page)).toEqual(['apple.png', 'banana.png']);
      await page.goto(`${base}/asset/${ids['banana.png']}`);
      await page.locator('.chip').filter({ hasText: 'harvest' }).waitFor();

      // Removing offers the selection's own tags.
      await page.goto(`${base}/library?ws=${ws}&sort=display_file_name:asc`);
      await expect.poll(() => gridNames(page)).toHaveLength(4);
      await page.getByLabel('Select apple.png').click();
      await bar.getByRole('button', { name: 'Remove tags' }).click();
      const untag = page.getByRole('dialog', { name: 'Remove tags from 1 asset' });
      await untag.getByRole('button', { name: 'fruit' }).click();
      await untag.getByRole('button', { name: 'Remove tags' }).click();
      await page.getByText('Removed “fruit” from 1 asset').waitFor();
      expect(await tagsOf('apple.png')).toEqual(['harvest']);
    } finally {
      await context.close();
    }
  });

  it('says which assets a bulk move could not move, and makes assets private in one go', async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/library?ws=${ws}&sort=display_file_name:asc`);
      await expect.poll(() => gridNames(page)).toHaveLength(4);
      await page.getByLabel('Select cherry.png').click();
      await page.getByLabel('Select damson.png').click();
      // Someone else moves damson to the trash meanwhile: the move reports it, and moves cherry.
      await api('DELETE', `/dam/assets/${ids['damson.png']}`);
      await page.getByRole('button', { name: 'Move to folder' }).click();
      await page.getByLabel('Destination folder').selectOption({ label: 'Archive' });
      await page.getByRole('button', { name: 'Move', exact: true }).click();
      await page.getByText('Moved 1 asset to “Archive”').waitFor();
      await page.getByText('1 of 2 could not be moved: “damson.png” (not found: deleted or moved to the trash meanwhile).').waitFor();
      await screenshot(page, 'trash-bulk-partial-failure');
      expect((await api<{ folder_id: number | null }>('GET', `/dam/assets/${ids['cherry.png']}`)).folder_id).toBe(archive);
      await expect.poll(() => gridNames(page)).toEqual(['apple.png', 'banana.png', 'cherry.png']);

      await page.getByLabel('Select cherry.png').click();
      await page.getByRole('button', { name: 'Visibility' }).click();
      const dialog = page.getByRole('dialog', { name: 'Visibility of 1 asset' });
      await dialog.getByLabel('Make them').selectOption({ label: 'Private' });
      await dialog.getByRole('button', { name: 'Apply' }).click();
      await page.getByText('1 asset made private').waitFor();
      expect((await api<{ visibility: number }>('GET', `/dam/assets/${ids['cherry.png']}`)).visibility).not.toBe(0);
    } finally {
      await context.close();
    }
  });

  it('deletes the selection to the trash, lists it there, and restores it into the library', async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/library?ws=${ws}&sort=display_file_name:asc`);
      await expect.poll(() => gridNames(page)).toEqual(['apple.png', 'banana.png', 'cherry.png']);
      await page.getByLabel('Select apple.png').click();
      await page.getByLabel('Select banana.png').click();
      await page.getByRole('region', { name: 'Selection' }).getByRole('button', { name: 'Delete' }).click();
      const confirm = page.getByRole('dialog', { name: 'Delete 2 assets?' });
      await confirm.getByText('The assets move to the trash').waitFor();
      await confirm.getByRole('button', { name: 'Delete' }).click();
      await page.getByText('2 assets moved to the trash').waitFor();
      await expect.poll(() => gridNames(page)).toEqual(['cherry.png']);

      await page.getByRole('navigation', { name: 'Folders and collections' }).getByRole('button', { name: 'Trash' }).click();
      await page.waitForURL(`**/library/trash?ws=${ws}`);
      await page.getByRole('heading', { name: 'Trash' }).waitFor();
      await expect.poll(async () => (await trashNames(page)).sort()).toEqual(['apple.png', 'banana.png', 'damson.png']);
      const apple = page.locator(`tr[data-trash="asset:${ids['apple.png']}"]`);
      expect(await apple.locator('.by').textContent()).toContain('Katherine Johnson');
      expect(await apple.textContent()).toContain('in 30 days');
      await screenshot(page, 'trash-view');

      await page.getByLabel('apple.png').check();
      await page.getByLabel('banana.png').check();
      await page.getByRole('button', { name: 'Restore 2' }).click();
      await page.getByText('2 items restored').waitFor();
      await expect.poll(() => trashNames(page)).toEqual(['damson.png']);
      expect((await api<{ tags: string[] }>('GET', `/dam/assets/${ids['banana.png']}`)).tags).toEqual(['harvest']);

      await page.getByRole('button', { name: 'All assets' }).click();
      await page.waitForURL((url) => url.pathname === '/library');
      await expect.poll(async () => (await gridNames(page)).sort()).toEqual(['apple.png', 'banana.png', 'cherry.png']);
    } finally {
      await context.close();
    }
  });

  it('the Delete key goes to the trash too; managers restore but only admins empty the trash, after a confirmation', async () => {
    // The manager on a phone: the trash's rows become blocks.
    const asManager = await signedInPage(browser, manager, { width: 390, height: 800 });
    try {
      const page = asManager.page;
      await page.goto(`${base}/library?ws=${ws}&sort=display_file_name:asc`);
      await expect.poll(() => gridNames(page)).toEqual(['apple.png', 'banana.png', 'cherry.png']);
      await page.locator('ul[aria-label="Assets"] a').last().focus();
      await page.keyboard.press('Delete');
      await page.getByRole('dialog', { name: 'Delete 1 asset?' }).getByRole('button', { name: 'Delete' }).click();
      await page.getByText('1 asset moved to the trash').waitFor();
      await page.goto(`${base}/library/trash?ws=${ws}`);
      await expect.poll(async () => (await trashNames(page)).sort()).toEqual(['cherry.png', 'damson.png']);
      expect(await page.locator(`tr[data-trash="asset:${ids['cherry.png']}"] .by`).textContent()).toContain('Dorothy Vaughan');
      await page.getByRole('button', { name: /^Restore/ }).waitFor();
      expect(await page.getByRole('button', { name: 'Empty trash' }).count()).toBe(0);
      await page.getByLabel('cherry.png').check();
      await screenshot(page, 'trash-view-phone');
    } finally {
      await asManager.context.close();
    }

    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/library/trash?ws=${ws}`);
      await expect.poll(() => trashNames(page)).toHaveLength(2);
      await page.getByRole('button', { name: 'Empty trash' }).click();
      const confirm = page.getByRole('dialog', { name: 'Empty the trash?' });
      await confirm.getByText('All 2 items in the trash are deleted for good').waitFor();
      await screenshot(page, 'trash-empty-confirm');
      await confirm.getByRole('button', { name: 'Empty trash' }).click();
      await page.getByText('Trash emptied: 2 assets deleted for good').waitFor();
      await page.getByText('The trash is empty').waitFor();
      expect(await trashTotal()).toBe(0);
      await screenshot(page, 'trash-view-empty');
    } finally {
      await context.close();
    }
  });

  it("the asset page shows the asset's history, an edit's before and after, restored versions, and loads more", async () => {
    // A second version, then the first restored: v3 is a copy of v1.
    const form = new FormData();
    form.set('file', new Blob([await png(480, 360, '#2b8a3e')], { type: 'image/png' }), 'apple-green.png');
    const v2 = await fetch(`${base}/dam/assets/${ids['apple.png']}/versions`, { method: 'POST', headers: { authorization: `Bearer ${owner.token}` }, body: form });
    expect(v2.status).toBe(201);
    // The version list answers bare (seed 4.5), not in the {success, data} envelope.
    const listed = await fetch(`${base}/dam/assets/${ids['apple.png']}/versions`, { headers: { authorization: `Bearer ${owner.token}` } });
    const versions = (await listed.json()) as { id: number; version: string }[];
    await api('POST', `/dam/versions/${versions.find((v) => v.version === 'v1')!.id}/restore`);
    await env.app.app.jobs.drain();

    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/asset/${ids['apple.png']}`);
      await page.getByRole('heading', { name: 'apple.png', exact: true }).waitFor();
      await page.locator('[data-version="v3"]').getByText('restored from v1').waitFor();
      const history = page.getByRole('region', { name: 'History' });
      const entries = history.locator('li.entry');
      await history.locator('[data-action="version.restore"]').getByText('restored v1 of apple.png').waitFor();

      await page.getByLabel('Name', { exact: true }).fill('apple-final.png');
      await page.getByRole('button', { name: 'Save changes' }).click();
      const rename = entries.first();
      await expect.poll(() => rename.getAttribute('data-action')).toBe('asset.update');
      expect((await rename.locator('.what').textContent())?.replace(/\s+/g, ' ').trim()).toBe('Katherine Johnson renamed apple-final.png');
      expect((await rename.locator('.changes').textContent())?.trim()).toBe('Name: “apple.png” → “apple-final.png”');
      await screenshot(page, 'trash-asset-history');

      // Enough entries for a second page (20 a page): each is a tag edit.
      for (let i = 1; i <= 20; i += 1) await api('PATCH', `/dam/assets/${ids['apple.png']}`, { tags: [`take-${i}`] });
      await history.getByRole('button', { name: 'Refresh' }).click();
      await expect.poll(() => entries.count()).toBe(20);
      await history.getByRole('button', { name: 'Load more' }).click();
      await expect.poll(() => entries.count()).toBeGreaterThan(20);
      // The oldest entry is the upload; after it there is nothing more to load.
      await expect.poll(() => entries.last().getAttribute('data-action')).toBe('asset.upload');
      expect(await history.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it("workspace settings list the whole workspace's activity, one member's on demand (dark mode)", async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.goto(`${base}/settings/${ws}`);
      const activity = page.getByRole('region', { name: 'Activity' });
      await activity.locator('li.entry').first().waitFor();
      await activity.getByRole('link', { name: 'apple-final.png' }).first().waitFor();
      await screenshot(page, 'trash-workspace-activity-dark');
      // The previous test's 20 edits pushed the emptied trash to the second page.
      await activity.getByRole('button', { name: 'Load more' }).click();
      await activity.locator('[data-action="workspace.empty_trash"]').getByText('emptied the trash (2 assets)').waitFor();
      await activity.locator('[data-action="workspace.empty_trash"]').scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${SCREENSHOT_DIR}/trash-workspace-activity-older-dark.png` });

      await activity.getByLabel('Whose changes').selectOption({ label: 'Dorothy Vaughan' });
      await expect.poll(() => activity.locator('li.entry .who').allTextContents()).toEqual(['Dorothy Vaughan']);
      expect((await activity.locator('li.entry .what').textContent())?.replace(/\s+/g, ' ').trim()).toBe('Dorothy Vaughan moved cherry.png to the trash');
    } finally {
      await context.close();
    }
  });
});
