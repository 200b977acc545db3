import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  type BrowserApp,
  hasChromium,
  newPage,
  png,
  registerApi,
  screenshot,
  type Session,
  signedInPage,
  uploadApi,
  useBrowserSuite,
} from './harness.js';

/** The names on the asset cards of the grid, in order. */
async function gridNames(page: Page): Promise<string[]> {
  return page.locator('ul[aria-label="Assets"] .name').allTextContents();
}

/** The asset ids of the grid's tiles, in order. */
async function gridIds(page: Page): Promise<number[]> {
  return (await page.locator('ul[aria-label="Assets"] [data-asset-id]').evaluateAll((tiles: { dataset: { assetId?: string } }[]) => tiles.map((t) => Number(t.dataset.assetId))));
}

/** The workspace the header's switcher shows. */
async function switcherShows(page: Page): Promise<string | undefined> {
  return (await page.locator('#workspace-switcher option:checked').textContent())?.trim();
}

/** A computed style property of the first element matching a selector. */
async function styleOf(page: Page, selector: string, property: string): Promise<string> {
  return page.evaluate<string>(`getComputedStyle(document.querySelector(${JSON.stringify(selector)}))[${JSON.stringify(property)}]`);
}

/** The page's background colour (the theme's --bg). */
async function background(page: Page): Promise<string> {
  return page.evaluate<string>('getComputedStyle(document.documentElement).backgroundColor');
}
const LIGHT_BG = 'rgb(245, 246, 250)';
const DARK_BG = 'rgb(15, 19, 28)';

describe.skipIf(!hasChromium)('library ergonomics, in chromium', () => {
  let browser: Browser;
  let env: BrowserApp;
  let base: string;
  let owner: Session;
  let ws: number;
  let studio: { id: number; name: string };
  let studioFolder: number;
  let archive: number;
  const ids: Record<string, number> = {};

  async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${owner.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { data: T }).data;
  }

  useBrowserSuite(async (suite) => {
    ({ browser, env, base } = suite);
    const registered = await registerApi(base, 'Grace Hopper');
    ws = registered.workspaces[0]!.id;
    owner = registered;
    studio = await api<{ id: number; name: string }>('POST', '/workspaces', { name: 'Studio B' });
    owner = { ...registered, workspaces: [...registered.workspaces, { ...studio, role: 'admin' }] };
    archive = (await api<{ id: number }>('POST', '/dam/folders', { workspace_id: ws, name: 'Archive', parent_id: null })).id;
    studioFolder = (await api<{ id: number }>('POST', '/dam/folders', { workspace_id: studio.id, name: 'Studio shots', parent_id: null })).id;
    const seed = [
      { name: 'alpha.png', colour: '#e03131', tags: ['launch'] },
      { name: 'bravo.png', colour: '#f08c00', tags: ['sunset'] },
      { name: 'charlie.png', colour: '#2f9e44', tags: ['sunrise'] },
      { name: 'delta.png', colour: '#1971c2', tags: ['summer'] },
      { name: 'echo.png', colour: '#9c36b5', tags: [] },
    ];
    for (const f of seed) ids[f.name] = (await uploadApi(base, owner.token, ws, { name: f.name, type: 'image/png', data: await png(640, 480, f.colour), tags: f.tags })).id;
    ids['notes.txt'] = (await uploadApi(base, owner.token, ws, { name: 'notes.txt', type: 'text/plain', data: new TextEncoder().encode('minutes') })).id;
    ids['studio.png'] = (await uploadApi(base, owner.token, studio.id, { name: 'studio.png', type: 'image/png', data: await png(300, 300, '#495057'), folderId: studioFolder })).id;
    await env.app.app.jobs.drain();
  });

  it('the workspace switcher follows an asset link, and a folder link, of another workspace', async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/library`);
      await expect.poll(() => gridNames(page)).toHaveLength(6);
      expect(await switcherShows(page)).toBe("Grace Hopper's workspace");

      await page.goto(`${base}/asset/${ids['studio.png']}`);
      await page.getByRole('heading', { name: 'studio.png' }).waitFor();
      await expect.poll(() => switcherShows(page)).toBe('Studio B');
      expect(await page.getByRole('link', { name: 'Workspace settings' }).getAttribute('href')).toBe(`/settings/${studio.id}`);
      await screenshot(page, 'ux-switcher-asset');
      await page.getByRole('link', { name: 'Library' }).click();
      await page.getByRole('heading', { name: 'Studio shots' }).waitFor();
      await expect.poll(() => gridNames(page)).toEqual(['studio.png']);

      // Back in the first workspace, a folder link of the other one without ?ws=.
      await page.getByLabel('Workspace', { exact: true }).selectOption(String(ws));
      await expect.poll(() => gridNames(page)).toHaveLength(6);
      await page.goto(`${base}/library?folder=${studioFolder}`);
      await page.getByRole('heading', { name: 'Studio shots' }).waitFor();
      await expect.poll(() => switcherShows(page)).toBe('Studio B');
      expect(new URL(page.url()).searchParams.get('ws')).toBe(String(studio.id));
      await expect.poll(() => gridNames(page)).toEqual(['studio.png']);
    } finally {
      await context.close();
    }
  });

  it('completes tags from the workspace with the keyboard, and never saves a half-typed tag', async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/asset/${ids['alpha.png']}`);
      await page.getByRole('heading', { name: 'alpha.png' }).waitFor();
      const tags = page.getByLabel('Tags');
      await tags.pressSequentially('su');
      const list = page.getByRole('listbox', { name: 'Suggestions' });
      await list.waitFor();
      await expect.poll(() => list.getByRole('option').allTextContents()).toEqual(['summer', 'sunrise', 'sunset']);
      await tags.press('ArrowDown');
      await tags.press('ArrowDown');
      await expect(list.getByRole('option', { selected: true }).textContent()).resolves.toContain('sunrise');
      await screenshot(page, 'ux-tag-autocomplete');
      await tags.press('Enter');
      await page.locator('.chip').filter({ hasText: 'sunrise' }).waitFor();
      await expect(list.isVisible()).resolves.toBe(false);

      // Escape closes the list and adds nothing; leaving the field keeps the text, unadded, and says so.
      await tags.pressSequentially('sun');
      await list.waitFor();
      await tags.press('Escape');
      await expect(list.isVisible()).resolves.toBe(false);
      await page.getByLabel('Name').click();
      await page.getByText('“sun” is not added yet').waitFor();
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByText('Changes saved').waitFor();
      expect((await api<{ tags: string[] }>('GET', `/dam/assets/${ids['alpha.png']}`)).tags).toEqual(['launch', 'sunrise']);

      // The library's tag filter completes the same way.
      await page.goto(`${base}/library?ws=${ws}`);
      await expect.poll(() => gridNames(page)).toHaveLength(6);
      await page.getByRole('button', { name: 'Filters' }).click();
      const filter = page.getByLabel('Tags (all of)');
      await filter.pressSequentially('sunr');
      await page.getByRole('listbox', { name: 'Suggestions' }).getByRole('option', { name: 'sunrise' }).waitFor();
      await filter.press('ArrowDown');
      await filter.press('Enter');
      await expect.poll(() => new URL(page.url()).searchParams.get('tags')).toBe('sunrise');
      await expect.poll(async () => (await gridNames(page)).sort()).toEqual(['alpha.png', 'charlie.png']);
    } finally {
      await context.close();
    }
  });

  it('selects a range with Shift-click, clears it with Escape, moves by dragging onto a folder and deletes with the Delete key', async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/library?ws=${ws}&sort=created_at:asc`);
      await expect.poll(() => gridNames(page)).toEqual(['alpha.png', 'bravo.png', 'charlie.png', 'delta.png', 'echo.png', 'notes.txt']);
      await page.getByLabel('Select bravo.png').click();
      await page.getByLabel('Select echo.png').click({ modifiers: ['Shift'] });
      await page.getByText('4 selected').waitFor();
      const checked = await page.locator('ul[aria-label="Assets"] li:has(input:checked) .name').allTextContents();
      expect(checked).toEqual(['bravo.png', 'charlie.png', 'delta.png', 'echo.png']);
      await screenshot(page, 'ux-range-selected');
      await page.keyboard.press('Escape');
      await expect.poll(() => page.getByRole('region', { name: 'Selection' }).count()).toBe(0);
      await expect(page.locator('ul[aria-label="Assets"] input:checked').count()).resolves.toBe(0);

      // Drag two selected tiles onto a folder of the tree: both move.
      await page.getByLabel('Select charlie.png').click();
      await page.getByLabel('Select delta.png').click();
      await page.locator(`[data-asset-id="${ids['delta.png']}"] .frame`).dragTo(page.locator(`[data-folder-id="${archive}"]`));
      await page.getByText('Moved 2 assets to “Archive”').waitFor();
      const folders = await Promise.all(['charlie.png', 'delta.png', 'echo.png'].map(async (n) => (await api<{ folder_id: number | null }>('GET', `/dam/assets/${ids[n]}`)).folder_id));
      expect(folders).toEqual([archive, archive, null]);

      // Arrow keys move between tiles; Delete asks, then deletes the tile in focus.
      await page.locator('ul[aria-label="Assets"] a').first().focus();
      await page.keyboard.press('ArrowRight');
      const focused = () => page.evaluate<string | undefined>("document.activeElement?.closest('[data-asset-id]')?.dataset.assetId");
      await expect.poll(focused).toBe(String(ids['bravo.png']));
      await page.keyboard.press('End');
      await expect.poll(focused).toBe(String(ids['notes.txt']));
      await page.keyboard.press('Delete');
      await page.getByRole('dialog', { name: 'Delete 1 asset?' }).waitFor();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
      await expect.poll(() => gridNames(page)).toEqual(['alpha.png', 'bravo.png', 'charlie.png', 'delta.png', 'echo.png']);
      await page.locator('ul[aria-label="Assets"] a').first().focus();
      await page.keyboard.press('Enter');
      // The link carries the list it is part of in its query string (the asset page's previous and next).
      await page.waitForURL((url) => url.pathname === `/asset/${ids['alpha.png']}`);
    } finally {
      await context.close();
    }
  });

  it('sorts the library by name and by size', async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/library?ws=${ws}`);
      await expect.poll(() => gridNames(page)).not.toHaveLength(0);
      await page.getByLabel('Sort').selectOption({ label: 'Name Z–A' });
      await expect.poll(() => new URL(page.url()).searchParams.get('sort')).toBe('display_file_name:desc');
      await expect.poll(() => gridNames(page)).toEqual([...(await gridNames(page))].sort().reverse());
      await page.getByLabel('Sort').selectOption({ label: 'Name A–Z' });
      await expect.poll(() => gridNames(page)).toEqual(['alpha.png', 'bravo.png', 'charlie.png', 'delta.png', 'echo.png']);
      await page.getByLabel('Sort').selectOption({ label: 'Largest first' });
      await expect.poll(() => new URL(page.url()).searchParams.get('sort')).toBe('file_size:desc');
      const bySize = async () => {
        const sizes = await Promise.all((await gridIds(page)).map(async (id) => (await api<{ file_size: number }>('GET', `/dam/assets/${id}`)).file_size));
        return sizes.length === 5 && sizes.join() === [...sizes].sort((x, y) => y - x).join();
      };
      await expect.poll(bySize).toBe(true);
    } finally {
      await context.close();
    }
  });

  it('shows a thumbnail in the grid once it is made, without a reload; file-type icons fit their tiles', async () => {
    // An empty ZIP archive: no preview is ever made of one, its tile keeps the archive icon.
    const zip = new Uint8Array([0x50, 0x4b, 0x05, 0x06, ...new Array<number>(18).fill(0)]);
    const bundle = await uploadApi(base, owner.token, ws, { name: 'bundle.zip', type: 'application/zip', data: zip });
    await env.app.app.jobs.drain();
    await env.app.app.jobs.stop();
    let restarted = false;
    try {
      const { id } = await uploadApi(base, owner.token, ws, { name: 'fresh.png', type: 'image/png', data: await png(900, 600, '#f76707') });
      const { context, page } = await signedInPage(browser, owner);
      try {
        await page.goto(`${base}/library?ws=${ws}&sort=created_at:desc`);
        await expect.poll(() => gridNames(page)).toContain('fresh.png');
        const img = page.locator(`[data-asset-id="${id}"] img`);
        await expect.poll(() => img.getAttribute('src')).toContain('/media/icons/image.svg');
        // The icon is shown whole, inside the tile.
        expect(await styleOf(page, `[data-asset-id="${id}"] img`, 'objectFit')).toBe('contain');
        expect(await page.locator(`[data-asset-id="${bundle.id}"] img`).getAttribute('src')).toContain('/media/icons/archive.svg');
        expect(await styleOf(page, `[data-asset-id="${bundle.id}"] img`, 'objectFit')).toBe('contain');
        await screenshot(page, 'ux-thumbnail-pending');
        await page.evaluate('window.__sameDocument = true');

        env.app.app.jobs.start();
        restarted = true;
        await expect.poll(() => img.getAttribute('src'), { timeout: 20_000 }).toMatch(/\/media\/versions\/\d+\/thumbnail\?/);
        await expect.poll(() => page.evaluate<boolean>(`(() => { const el = document.querySelector('[data-asset-id="${id}"] img'); return el.complete && el.naturalWidth > 0; })()`)).toBe(true);
        expect(await styleOf(page, `[data-asset-id="${id}"] img`, 'objectFit')).toBe('cover');
        expect(await page.evaluate('window.__sameDocument === true')).toBe(true);
        await screenshot(page, 'ux-thumbnail-ready');
      } finally {
        await context.close();
      }
    } finally {
      if (!restarted) env.app.app.jobs.start();
    }
  });

  it('keyboard shortcuts: ? shows them, / goes to search, u uploads, none fires while typing', async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/library?ws=${ws}`);
      await expect.poll(() => gridNames(page)).not.toHaveLength(0);
      await page.keyboard.press('?');
      const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
      await help.waitFor();
      await help.getByText('Select a range of assets').waitFor();
      await screenshot(page, 'ux-shortcuts-help');
      await page.keyboard.press('Escape');
      await expect(help.count()).resolves.toBe(0);

      await page.keyboard.press('/');
      await expect.poll(() => page.evaluate<string | undefined>('document.activeElement?.id')).toBe('search-q');
      // Typing in the search box: u and ? are letters there.
      let chooser = false;
      page.on('filechooser', () => {
        chooser = true;
      });
      await page.keyboard.type('u?');
      await expect(page.locator('#search-q').inputValue()).resolves.toBe('u?');
      await expect(page.getByRole('dialog').count()).resolves.toBe(0);
      expect(chooser).toBe(false);

      await page.locator('#search-q').fill('');
      await page.getByRole('heading', { name: 'All assets' }).click();
      const picked = page.waitForEvent('filechooser');
      await page.keyboard.press('u');
      expect((await picked).isMultiple()).toBe(true);
    } finally {
      await context.close();
    }
  });

  it('folds the upload panel when the uploads are done, and it never covers the pager', async () => {
    const { context, page } = await signedInPage(browser, owner, { width: 1280, height: 560 });
    /** Whether the panel overlaps the pager once the page is scrolled to its end. */
    const overlap = async () => {
      await page.evaluate('window.scrollTo(0, document.documentElement.scrollHeight)');
      const [a, b] = await Promise.all([page.getByRole('region', { name: 'Uploads' }).boundingBox(), page.getByRole('navigation', { name: 'Pages' }).boundingBox()]);
      return a!.y < b!.y + b!.height && b!.y < a!.y + a!.height && a!.x < b!.x + b!.width && b!.x < a!.x + a!.width;
    };
    try {
      await page.goto(`${base}/library?ws=${ws}`);
      await expect.poll(() => gridNames(page)).not.toHaveLength(0);
      const files = ['one', 'two', 'three', 'four', 'five'].map((n) => ({ name: `${n}.txt`, mimeType: 'text/plain', buffer: Buffer.from(n) }));
      await page.locator('input[type=file][multiple]').setInputFiles(files);
      const panel = page.getByRole('region', { name: 'Uploads' });
      await panel.getByRole('heading', { name: '5 uploaded' }).waitFor({ timeout: 20_000 });
      // Folded: the list is hidden, the header says what happened.
      await expect.poll(() => panel.getByRole('list').first().isVisible()).toBe(false);
      await expect(panel.getByRole('button', { name: 'Show or hide uploads' }).getAttribute('aria-expanded')).resolves.toBe('false');
      await expect.poll(() => gridNames(page)).toContain('five.txt');
      expect(await overlap()).toBe(false);
      await screenshot(page, 'ux-uploads-folded');
      // Unfolded it is taller, and the page makes room for it.
      await panel.getByRole('button', { name: 'Show or hide uploads' }).click();
      await expect.poll(() => panel.getByRole('list').first().isVisible()).toBe(true);
      await expect.poll(overlap).toBe(false);
      await panel.getByRole('button', { name: 'Clear finished uploads' }).click();
      await expect(panel.count()).resolves.toBe(0);
    } finally {
      await context.close();
    }
  });

  it('follows the system dark mode, and the theme menu overrides it (remembered)', async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.goto(`${base}/library?ws=${ws}`);
      await expect.poll(() => gridNames(page)).not.toHaveLength(0);
      expect(await background(page)).toBe(DARK_BG);
      await screenshot(page, 'ux-dark-library');

      await page.getByRole('button', { name: /Account/ }).click();
      await page.getByRole('menuitemradio', { name: 'Light' }).click();
      expect(await background(page)).toBe(LIGHT_BG);
      await page.reload();
      await expect.poll(() => gridNames(page)).not.toHaveLength(0);
      expect(await background(page)).toBe(LIGHT_BG);

      // The system is light now; the user picks dark.
      await page.emulateMedia({ colorScheme: 'light' });
      await page.getByRole('button', { name: /Account/ }).click();
      await page.getByRole('menuitemradio', { name: 'Dark' }).click();
      expect(await background(page)).toBe(DARK_BG);
      await expect(page.getByRole('menuitemradio', { name: 'Dark' }).getAttribute('aria-checked')).resolves.toBe('true');
      await screenshot(page, 'ux-dark-menu');
      await page.keyboard.press('Escape');
      await page.goto(`${base}/asset/${ids['bravo.png']}`);
      await page.locator('[data-version="v1"]').waitFor();
      expect(await background(page)).toBe(DARK_BG);
      // A visible focus ring on the control reached by keyboard.
      await page.getByRole('button', { name: 'Download', exact: true }).focus();
      await page.keyboard.press('Shift+Tab');
      await page.keyboard.press('Tab');
      const outline = await page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle');
      expect(outline).toBe('solid');
      await screenshot(page, 'ux-dark-asset');
      await page.getByLabel('Tags').pressSequentially('su');
      await page.getByRole('listbox', { name: 'Suggestions' }).waitFor();
      await page.getByLabel('Tags').press('ArrowDown');
      await screenshot(page, 'ux-dark-tags');
      await page.getByLabel('Tags').press('Escape');
      await page.getByRole('heading', { name: 'Details' }).click();
      await page.keyboard.press('?');
      await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
      await screenshot(page, 'ux-dark-shortcuts');
      await page.keyboard.press('Escape');
      await page.goto(`${base}/settings/${ws}`);
      await page.getByRole('heading', { name: 'Members' }).waitFor();
      await screenshot(page, 'ux-dark-settings');
      await page.goto(`${base}/asset/${ids['bravo.png']}`);
      await page.locator('[data-version="v1"]').waitFor();

      await page.getByRole('button', { name: /Account/ }).click();
      await page.getByRole('menuitemradio', { name: 'System' }).click();
      expect(await background(page)).toBe(LIGHT_BG);
    } finally {
      await context.close();
    }
    // Signed out, the sign-in page follows the system too.
    const guest = await newPage(browser);
    try {
      await guest.page.emulateMedia({ colorScheme: 'dark' });
      await guest.page.goto(`${base}/login`);
      await guest.page.getByLabel('E-mail').waitFor();
      expect(await background(guest.page)).toBe(DARK_BG);
      await screenshot(guest.page, 'ux-dark-login');
    } finally {
      await guest.context.close();
    }
  });

  it('at phone width, long e-mail addresses wrap and the only admin is not offered to leave', async () => {
    const long = await registerApi(base, 'Bartholomew Maximilian Featherstonehaugh Wolfeschlegelsteinhausenbergerdorff');
    await api('POST', `/workspaces/${ws}/members`, { email: long.email, role: 'manager' });
    const { context, page } = await signedInPage(browser, owner, { width: 390, height: 844 });
    try {
      await page.goto(`${base}/settings/${ws}`);
      await page.getByText(long.email).waitFor();
      const row = page.locator('tr').filter({ hasText: '(you)' });
      await expect(row.getByRole('button', { name: 'Leave' }).count()).resolves.toBe(0);
      await row.getByText('Only admin').waitFor();
      await page.getByText('You are the only admin').waitFor();
      // Nothing scrolls sideways: the page, nor the members table.
      expect(await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
      expect(await page.evaluate<number>("(() => { const el = document.querySelector('.table-wrap'); return el.scrollWidth - el.clientWidth; })()")).toBeLessThanOrEqual(0);
      const email = page.getByText(long.email);
      const box = (await email.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(390);
      expect(box.height).toBeGreaterThan(30);
      await screenshot(page, 'ux-phone-settings');

      // With a second admin, leaving is offered again.
      await page.getByLabel(`Role of ${long.user.name}`).selectOption('admin');
      await row.getByRole('button', { name: 'Leave' }).waitFor();
    } finally {
      await context.close();
    }
  });
});
