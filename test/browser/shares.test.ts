import { readFile } from 'node:fs/promises';
import type { Browser, Download, Page, Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { readZip } from '../helpers/zip.js';
import { type BrowserApp, hasChromium, newPage, png, registerApi, screenshot, screenshotVariants, type Session, signedInPage, uploadApi, useBrowserSuite } from './harness.js';

interface ShareJson {
  id: number;
  key: string;
  url: string;
  target: string;
  asset_ids: number[];
  folder_id: number | null;
  collection_id: number | null;
  expires_at: number | null;
  has_password: boolean;
  max_downloads: number | null;
  download_count: number;
  view_count: number;
  status: string;
}

/** Issue #14 in the web client: the Share dialog, the Shared links page and the public page /s/:key. */
describe.skipIf(!hasChromium)('shared links, in chromium', () => {
  let browser: Browser;
  let env: BrowserApp;
  let base: string;
  let owner: Session;
  let manager: Session;
  let ws: number;
  let press: number;
  const ids: Record<string, number> = {};
  const bytes: Record<string, Uint8Array> = {};

  async function api<T>(method: string, path: string, body?: unknown, who: Session = owner): Promise<T> {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${who.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { data: T }).data;
  }
  const links = async () => (await api<{ items: ShareJson[] }>('GET', `/shared?workspaceId=${ws}&per_page=100`)).items;

  /** A context with no session at all: a visitor who was sent the link. */
  async function visitor(width = 1280, height = 820) {
    const opened = await newPage(browser, { width, height });
    const sent: Request[] = [];
    opened.page.on('request', (r) => sent.push(r));
    return { ...opened, sent };
  }
  const noBearer = (sent: Request[]) => sent.filter((r) => r.headers().authorization !== undefined).map((r) => r.url());
  const galleryNames = (page: Page) => page.locator('ul[aria-label="Files"] .name').allTextContents();

  /**
   * Library "Download ZIP": the page asks POST /zip/link and never fetches the archive itself; the browser downloads
   * the signed URL (a navigation, which carries no bearer token), so the archive streams to disk; it holds these PNGs.
   */
  async function expectStreamedZip(sent: Request[], download: Download, names: string[]): Promise<void> {
    expect(sent.filter((r) => new URL(r.url()).pathname.startsWith('/zip/')).map((r) => `${r.method()} ${new URL(r.url()).pathname}`)).toEqual([
      'POST /zip/link',
    ]);
    const url = new URL(download.url());
    expect(url.pathname).toBe('/zip/download');
    expect(url.searchParams.get('signature')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const { entries } = await readZip(await readFile(await download.path()));
    expect(entries.map((e) => e.name).sort()).toEqual([...names].sort());
    for (const e of entries) expect(e.data.equals(Buffer.from(bytes[e.name]!))).toBe(true);
  }

  useBrowserSuite(async (suite) => {
    ({ browser, env, base } = suite);
    owner = await registerApi(base, 'Grace Hopper');
    ws = owner.workspaces[0]!.id;
    const registered = await registerApi(base, 'Mary Jackson');
    await api('POST', `/workspaces/${ws}/members`, { email: registered.email, role: 'manager' });
    manager = { ...registered, workspaces: [...registered.workspaces, { id: ws, name: owner.workspaces[0]!.name, role: 'manager' }] };
    press = (await api<{ id: number }>('POST', '/dam/folders', { workspace_id: ws, name: 'Press kit', parent_id: null })).id;
    const seed = [
      { name: 'harbour.png', colour: '#1971c2', folderId: press },
      { name: 'lighthouse.png', colour: '#e03131', folderId: press },
      { name: 'meadow.png', colour: '#2f9e44', folderId: undefined },
    ];
    for (const f of seed) {
      bytes[f.name] = await png(640, 480, f.colour);
      ids[f.name] = (await uploadApi(base, owner.token, ws, { name: f.name, type: 'image/png', data: bytes[f.name]!, folderId: f.folderId })).id;
    }
    await env.app.app.jobs.drain();
  });

  it('creates a link from the asset page; a visitor without an account unlocks it, views and downloads; revoking it closes the page', async () => {
    const { context, page } = await signedInPage(browser, owner);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    let url: string;
    try {
      await page.goto(`${base}/asset/${ids['meadow.png']}`);
      await page.getByRole('button', { name: 'Share' }).click();
      const dialog = page.getByRole('dialog', { name: 'Share “meadow.png”' });
      await dialog.waitFor();
      // 30 days by default; an admin may choose "never".
      await expect(dialog.getByLabel('Link expires').inputValue()).resolves.toBe('30d');
      await expect(dialog.getByRole('option', { name: 'Never expires' }).count()).resolves.toBe(1);
      await dialog.getByLabel('Password', { exact: true }).selectOption('set');
      // Issue #28: at least 8 characters; the dialog suggests a passphrase and shows it.
      await dialog.getByRole('button', { name: 'Suggest a passphrase' }).click();
      await expect(dialog.locator('#share-password').getAttribute('type')).resolves.toBe('text');
      expect((await dialog.locator('#share-password').inputValue()).split(' ')).toHaveLength(4);
      await dialog.locator('#share-password').fill('summer sea');
      await dialog.getByLabel('Limit the number of downloads').check();
      await dialog.getByLabel('Downloads allowed in all').fill('5');
      await dialog.getByLabel(/Description/).fill('Meadow for the spring issue');
      await screenshot(page, 'share-dialog');
      await dialog.getByRole('button', { name: 'Create link' }).click();

      const done = page.getByRole('dialog', { name: 'Link created' });
      await done.waitFor();
      url = await done.getByLabel('Shared link').inputValue();
      expect(url).toMatch(new RegExp(`^${base}/s/[A-Za-z0-9_-]{24}$`));
      await expect(done.textContent()).resolves.toContain('Protected by a password');
      await done.getByRole('button', { name: 'Copy link' }).click();
      await done.getByRole('button', { name: 'Copied' }).waitFor();
      expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(url);
      await screenshot(page, 'share-created');
      const [made] = await links();
      expect(made).toMatchObject({ target: 'assets', asset_ids: [ids['meadow.png']], has_password: true, max_downloads: 5 });
      expect(made!.expires_at! - Date.now() / 1000).toBeGreaterThan(29.9 * 86_400);
    } finally {
      await context.close();
    }

    // A fresh browser: no session, nothing stored.
    const guest = await visitor();
    try {
      await guest.page.goto(url);
      await guest.page.getByRole('heading', { name: 'This link is protected' }).waitFor();
      await guest.page.getByLabel('Password').fill('winter');
      await guest.page.getByRole('button', { name: 'Open' }).click();
      await guest.page.getByText('Wrong password.').waitFor();
      await expect(guest.page.getByRole('alert').textContent()).resolves.toContain('9 more tries before a pause');
      await screenshot(guest.page, 'share-public-wrong-password');
      await guest.page.getByLabel('Password').fill('summer sea');
      await guest.page.getByRole('button', { name: 'Open' }).click();
      await guest.page.getByRole('heading', { name: 'Shared files' }).waitFor();
      await expect(guest.page.getByText('Meadow for the spring issue').count()).resolves.toBe(1);
      await expect.poll(() => galleryNames(guest.page)).toEqual(['meadow.png']);
      // The thumbnail is drawn.
      await expect.poll(() => guest.page.locator('ul[aria-label="Files"] img').evaluate((img: { naturalWidth: number }) => img.naturalWidth)).toBeGreaterThan(0);

      // Unlocked for this tab: a reload asks no password again. The signed-in session was never involved.
      await guest.page.reload();
      await expect.poll(() => galleryNames(guest.page)).toEqual(['meadow.png']);
      expect(await guest.page.evaluate<string | null>("localStorage.getItem('dam.session')")).toBeNull();

      // The large view, then a download of the file itself.
      await guest.page.getByRole('button', { name: 'View meadow.png' }).click();
      const viewer = guest.page.getByRole('dialog', { name: 'meadow.png' });
      await expect.poll(() => viewer.locator('img').evaluate((img: { naturalWidth: number }) => img.naturalWidth)).toBeGreaterThan(0);
      await screenshot(guest.page, 'share-public-viewer');
      const [file] = await Promise.all([guest.page.waitForEvent('download'), viewer.getByRole('button', { name: 'Download' }).click()]);
      expect(file.suggestedFilename()).toBe('meadow.png');
      expect(new Uint8Array(await readFile(await file.path()))).toEqual(bytes['meadow.png']);
      await viewer.getByRole('button', { name: 'Close' }).click();

      // Everything as one ZIP.
      const [zip] = await Promise.all([guest.page.waitForEvent('download'), guest.page.getByRole('button', { name: 'Download all' }).click()]);
      expect(zip.suggestedFilename()).toMatch(/\.zip$/);
      const archive = await readFile(await zip.path());
      expect(archive.subarray(0, 2).toString()).toBe('PK');
      await expect.poll(() => guest.page.getByText('3 downloads left').count()).toBe(1);
      await screenshot(guest.page, 'share-public-gallery');
      expect(noBearer(guest.sent)).toEqual([]);
    } finally {
      await guest.context.close();
    }

    // The manager's view: counts, the access log, then revoke with confirmation.
    const admin = await signedInPage(browser, owner);
    try {
      await admin.page.goto(`${base}/settings/${ws}`);
      await admin.page.getByRole('link', { name: 'Manage shared links' }).click();
      await admin.page.getByRole('heading', { name: 'Shared links' }).waitFor();
      const card = admin.page.locator('li[data-share-id]').filter({ hasText: 'Meadow for the spring issue' });
      await expect.poll(() => card.textContent()).toContain('2 of 5 downloads');
      await expect.poll(() => card.textContent()).toContain('“meadow.png”');
      await card.getByRole('button', { name: 'Access log' }).click();
      const log = admin.page.getByRole('dialog', { name: /Access log/ });
      await log.locator('tr[data-action="unlock-failed"]').waitFor();
      await expect.poll(() => log.locator('tbody tr').count()).toBeGreaterThanOrEqual(5);
      await expect(log.textContent()).resolves.toContain('Downloaded everything as a ZIP');
      await expect.poll(() => log.locator('tr[data-action="download"]').textContent()).toContain('“meadow.png”');
      await screenshot(admin.page, 'shares-access-log');
      await log.getByRole('button', { name: 'Close' }).last().click();

      await card.getByRole('button', { name: 'Revoke' }).click();
      const confirm = admin.page.getByRole('dialog', { name: /Revoke/ });
      await confirm.getByRole('button', { name: 'Revoke link' }).click();
      await expect.poll(() => card.getAttribute('data-status')).toBe('revoked');
      await expect(card.getByRole('button', { name: 'Copy link' }).count()).resolves.toBe(0);
    } finally {
      await admin.context.close();
    }

    const late = await visitor();
    try {
      await late.page.goto(url);
      await late.page.getByRole('heading', { name: 'This link is not available' }).waitFor();
      await expect(late.page.locator('[data-problem="gone"]').textContent()).resolves.toContain('expired or been revoked');
      await screenshot(late.page, 'share-public-revoked');
    } finally {
      await late.context.close();
    }
  });

  it('a folder link at phone width: the gallery fits, and the download limit is told before and after it is reached', async () => {
    const link = await api<ShareJson>('POST', '/shared', { workspaceId: ws, folder_id: press, max_downloads: 1, description: 'Press kit\nHigh resolution, free to print.' });
    const phone = await visitor(390, 844);
    try {
      await phone.page.goto(link.url);
      await expect.poll(() => galleryNames(phone.page)).toEqual(['harbour.png', 'lighthouse.png']);
      await phone.page.getByRole('heading', { name: 'Press kit' }).waitFor();
      await expect(phone.page.getByText('1 download left').count()).resolves.toBe(1);
      expect(await phone.page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
      // Two tiles side by side.
      const [a, b] = await phone.page.locator('ul[aria-label="Files"] > li').evaluateAll((els) =>
        els.map((el) => (el as unknown as { getBoundingClientRect(): { x: number; y: number; width: number } }).getBoundingClientRect()),
      );
      expect(a!.y).toBe(b!.y);
      expect(b!.x + b!.width).toBeLessThanOrEqual(390);
      await screenshot(phone.page, 'share-public-phone');

      // Someone else takes the only download meanwhile: the page learns it when asked for a file.
      const res = await fetch(`${base}/shared/public/${link.key}/assets/${ids['harbour.png']}/download`);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      await phone.page.getByRole('button', { name: 'Download harbour.png' }).click();
      await phone.page.locator('[data-notice="limit"]').waitFor();
      await expect(phone.page.getByRole('button', { name: 'Download harbour.png' }).count()).resolves.toBe(0);
      await expect(phone.page.getByRole('button', { name: 'Download all' }).count()).resolves.toBe(0);
      // The files can still be viewed.
      await phone.page.getByRole('button', { name: 'View lighthouse.png' }).click();
      await phone.page.getByRole('dialog', { name: 'lighthouse.png' }).waitFor();
      expect(await phone.page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
      await screenshot(phone.page, 'share-public-phone-viewer');
      await phone.page.getByRole('button', { name: 'Close' }).click();
      await phone.page.reload();
      await phone.page.locator('[data-notice="limit"]').waitFor();
      await screenshot(phone.page, 'share-public-phone-limit');
    } finally {
      await phone.context.close();
    }
  });

  it('pauses the password prompt after ten wrong passwords, with the time to wait', async () => {
    const link = await api<ShareJson>('POST', '/shared', { workspaceId: ws, asset_ids: [ids['harbour.png']], password: 'right one' });
    for (let i = 0; i < 10; i += 1) {
      const res = await fetch(`${base}/shared/public/${link.key}/unlock`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ password: `wrong ${i}` }),
      });
      expect(res.status).toBe(401);
    }
    const guest = await visitor(390, 844);
    try {
      await guest.page.goto(link.url);
      await guest.page.getByLabel('Password').fill('right one');
      await guest.page.getByRole('button', { name: 'Open' }).click();
      await guest.page.getByText('Too many wrong passwords.').waitFor();
      await expect(guest.page.getByRole('alert').textContent()).resolves.toMatch(/Try again in 1[45] minutes/);
      await expect(guest.page.getByRole('button', { name: /Wait/ }).isDisabled()).resolves.toBe(true);
      expect(await guest.page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
      await screenshot(guest.page, 'share-public-too-many');
    } finally {
      await guest.context.close();
    }
  });

  it('shares a folder and a selection from the library, and edits a link on the Shared links page (managers cannot make one that never expires)', async () => {
    const before = (await links()).length;
    const { context, page } = await signedInPage(browser, manager);
    try {
      await page.goto(`${base}/library?ws=${ws}&folder=${press}`);
      await page.getByRole('heading', { name: 'Press kit' }).waitFor();
      await page.getByRole('button', { name: 'Share' }).click();
      const dialog = page.getByRole('dialog', { name: 'Share the folder “Press kit”' });
      await expect(dialog.getByRole('option', { name: 'Never expires' }).count()).resolves.toBe(0);
      await expect(dialog.textContent()).resolves.toContain('Only workspace admins can make a link that never expires');
      await dialog.getByLabel('Link expires').selectOption('7d');
      await dialog.getByLabel(/Allow downloads/).uncheck();
      await dialog.getByRole('button', { name: 'Create link' }).click();
      await page.getByRole('dialog', { name: 'Link created' }).getByText('They can view the files but not download them.').waitFor();
      await page.getByRole('button', { name: 'Done' }).click();

      await page.goto(`${base}/library?ws=${ws}&sort=display_file_name:asc`);
      await page.locator('ul[aria-label="Assets"] [data-asset-id]').first().waitFor();
      for (const name of ['harbour.png', 'meadow.png']) await page.getByRole('checkbox', { name: new RegExp(name) }).check();
      await page.getByRole('region', { name: 'Selection' }).getByRole('button', { name: 'Share' }).click();
      await page.getByRole('dialog', { name: 'Share 2 assets' }).getByRole('button', { name: 'Create link' }).click();
      await page.getByRole('dialog', { name: 'Link created' }).waitFor();
      await page.getByRole('button', { name: 'Done' }).click();
    } finally {
      await context.close();
    }
    const made = (await links()).slice(0, (await links()).length - before);
    expect(made.map((l) => l.target)).toEqual(['assets', 'folder']);
    expect(made[0]!.asset_ids.sort()).toEqual([ids['harbour.png'], ids['meadow.png']].sort());
    expect(made[1]).toMatchObject({ folder_id: press });
    expect(made[1]!.expires_at! - Date.now() / 1000).toBeLessThan(7 * 86_400 + 60);

    // The admin removes the password of a link and makes it never expire.
    const locked = await api<ShareJson>('POST', '/shared', { workspaceId: ws, collection_id: (await api<{ id: number }>('POST', '/dam/collections', { workspace_id: ws, name: 'Spring' })).id, password: 'spring picks', description: 'Spring picks' });
    const admin = await signedInPage(browser, owner, { width: 390, height: 844 });
    try {
      await admin.page.goto(`${base}/settings/${ws}/shares`);
      const card = admin.page.locator(`li[data-share-id="${locked.id}"]`);
      await expect.poll(() => card.textContent()).toContain('Collection “Spring”');
      await expect(card.textContent()).resolves.toContain('Password');
      await card.getByRole('button', { name: 'Edit' }).click();
      const edit = admin.page.getByRole('dialog', { name: 'Edit Spring picks' });
      await edit.getByLabel('Link expires').selectOption('never');
      await edit.getByLabel('Password', { exact: true }).selectOption('remove');
      await edit.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => card.textContent()).toContain('Never expires');
      await expect(card.locator('.badge', { hasText: 'Password' }).count()).resolves.toBe(0);
      expect(await api<ShareJson>('GET', `/shared/${locked.id}`)).toMatchObject({ expires_at: null, has_password: false });
      expect(await admin.page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
      await screenshot(admin.page, 'shares-page-phone');
      // The workspace's activity tells it.
      await admin.page.goto(`${base}/settings/${ws}`);
      await admin.page.locator('[data-action="share.update"]').first().waitFor();
      await expect(admin.page.locator('[data-action="share.update"]').first().textContent()).resolves.toContain('changed the shared link');
    } finally {
      await admin.context.close();
    }
  });

  it('shows a viewer no Share button and no list of links, but Download ZIP of a folder', async () => {
    const registered = await registerApi(base, 'Katherine Coleman');
    await api('POST', `/workspaces/${ws}/members`, { email: registered.email, role: 'viewer' });
    const viewer = { ...registered, workspaces: [{ id: ws, name: owner.workspaces[0]!.name, role: 'viewer' }] };
    const { context, page } = await signedInPage(browser, viewer);
    try {
      await page.goto(`${base}/asset/${ids['meadow.png']}`);
      await page.getByRole('button', { name: 'Download', exact: true }).waitFor();
      await expect(page.getByRole('button', { name: 'Share' }).count()).resolves.toBe(0);
      await page.getByRole('button', { name: /Account/ }).click();
      await expect(page.getByRole('menuitem', { name: 'Shared links' }).count()).resolves.toBe(0);
      await page.goto(`${base}/settings/${ws}/shares`);
      await page.getByText('Only managers and admins can see shared links').waitFor();
      await page.goto(`${base}/library?ws=${ws}&folder=${press}`);
      await page.getByRole('heading', { name: 'Press kit' }).waitFor();
      await expect(page.getByRole('button', { name: 'Share' }).count()).resolves.toBe(0);
      const sent: Request[] = [];
      page.on('request', (r) => sent.push(r));
      const [zip] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download ZIP' }).click()]);
      expect(zip.suggestedFilename()).toBe('Press kit.zip');
      await expectStreamedZip(sent, zip, ['harbour.png', 'lighthouse.png']);
    } finally {
      await context.close();
    }
  });

  it('downloads a selection of the library as one ZIP', async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/library?ws=${ws}&sort=display_file_name:asc`);
      await page.locator('ul[aria-label="Assets"] [data-asset-id]').first().waitFor();
      for (const name of ['harbour.png', 'meadow.png']) await page.getByRole('checkbox', { name: new RegExp(name) }).check();
      const sent: Request[] = [];
      page.on('request', (r) => sent.push(r));
      const [zip] = await Promise.all([page.waitForEvent('download'), page.getByRole('region', { name: 'Selection' }).getByRole('button', { name: 'Download ZIP' }).click()]);
      expect(zip.suggestedFilename()).toBe('assets.zip');
      await expectStreamedZip(sent, zip, ['harbour.png', 'meadow.png']);
    } finally {
      await context.close();
    }
  });

  it("offers a manager only the expiries within the workspace's cap (issue #28), and says why", async () => {
    await api('PATCH', `/workspaces/${ws}`, { share_max_expiry_days: 7 });
    const { context, page } = await signedInPage(browser, manager);
    try {
      await page.goto(`${base}/library?ws=${ws}&folder=${press}`);
      await page.getByRole('heading', { name: 'Press kit' }).waitFor();
      await page.getByRole('button', { name: 'Share' }).click();
      const dialog = page.getByRole('dialog', { name: 'Share the folder “Press kit”' });
      await expect.poll(() => dialog.textContent()).toContain('or one that lasts more than 7 days');
      await expect(dialog.getByLabel('Link expires').locator('option').allTextContents()).resolves.toEqual(['1 day', '7 days', 'Until a date…']);
      // The 30-day default is beyond the cap: the longest preset left is chosen.
      await expect(dialog.getByLabel('Link expires').inputValue()).resolves.toBe('7d');
      await dialog.getByLabel('Link expires').selectOption('date');
      const max = await dialog.getByLabel('Last day the link works').getAttribute('max');
      expect(max).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      await screenshotVariants(page, 'share-expiry-cap', () => dialog.waitFor());
      await dialog.getByLabel('Link expires').selectOption('7d');
      await dialog.getByRole('button', { name: 'Create link' }).click();
      await page.getByRole('dialog', { name: 'Link created' }).waitFor();
    } finally {
      await context.close();
      await api('PATCH', `/workspaces/${ws}`, { share_max_expiry_days: 90 });
    }
    const made = (await links())[0]!;
    expect(made.expires_at! - Date.now() / 1000).toBeLessThan(7 * 86_400 + 60);
  });
});
