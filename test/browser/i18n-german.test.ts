import type { Browser, Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { hasChromium, png, registerApi, screenshotVariants, type Session, signedInPage, uploadApi, useBrowserSuite } from './harness.js';

/**
 * Issue #29: "A browser test switches to German and checks the library, upload and sharing pages". The account's
 * language is German (PATCH /auth/me, as Account settings → Language stores it) while the browser speaks en-GB: the
 * library, the upload panel and the Share dialog are in German, with German numbers and dates, and no English left.
 */

/** Words of the English catalogue that German never uses: one of them in a German page is a string left untranslated. */
const ENGLISH = [
  'All assets',
  'New folder',
  'Share',
  'Select',
  'Search',
  'Loading',
  'Folders',
  'Collections',
  'Trash',
  'Uploading',
  'Uploaded',
  'uploaded',
  'finished',
  'Cancel',
  'Close',
  'Done',
  'Create link',
  'Link created',
  'Shared link',
  'Expires',
  'expires',
  'Password',
  'Copy link',
  'Anyone',
  'download',
  'just now',
  'ago',
  'minute',
];
const ENGLISH_WORDS = new RegExp(`\\b(${ENGLISH.join('|')})\\b`);

/** The English words a region shows (none expected). */
async function englishIn(region: Locator): Promise<string[]> {
  const text = await region.innerText();
  return [...text.matchAll(new RegExp(ENGLISH_WORDS, 'g'))].map((m) => m[0]);
}

describe.skipIf(!hasChromium)('the client in German (issue #29), in chromium', () => {
  let browser: Browser;
  let base: string;
  let owner: Session;
  let ws: number;
  let meadow: number;
  useBrowserSuite(async (suite) => {
    ({ browser, base } = suite);
    owner = await registerApi(base, 'Greta Deutsch');
    ws = owner.workspaces[0]!.id;
    // What Account settings → Language → Deutsch stores (account-settings.test.ts switches there through the page).
    const res = await fetch(`${base}/auth/me`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ locale: 'de' }),
    });
    expect(res.status).toBe(200);
    // 2,048 bytes: "2,0 kB" in German (English would say "2.0 kB").
    await uploadApi(base, owner.token, ws, { name: 'notizen.txt', type: 'text/plain', data: new Uint8Array(2048).fill(65) });
    meadow = (await uploadApi(base, owner.token, ws, { name: 'wiese.png', type: 'image/png', data: await png(320, 200, '#2b8a3e') })).id;
  });

  async function germanLibrary(page: Page): Promise<Locator> {
    await page.goto(`${base}/library`);
    await page.getByRole('heading', { name: 'Alle Assets' }).waitFor();
    await expect.poll(() => page.locator('html').getAttribute('lang')).toBe('de');
    return page.locator('main');
  }

  it('shows the library in German: headings, buttons, sizes and times', async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      const main = await germanLibrary(page);
      await expect(page.title()).resolves.toBe('Bibliothek · DAM');
      await main.getByRole('button', { name: 'Hochladen' }).waitFor();
      await main.getByRole('button', { name: 'Neuer Ordner' }).first().waitFor();
      const card = main.locator('.asset-card').filter({ hasText: 'notizen.txt' });
      // A decimal comma, and the time relative to now in German.
      await expect.poll(() => card.innerText()).toContain('2,0 kB');
      expect(await card.innerText()).toMatch(/gerade eben|vor \d+ Minuten?/);
      expect(await englishIn(main)).toEqual([]);
      expect(await englishIn(page.locator('header').first())).toEqual([]);
      await screenshotVariants(page, 'i18n-de-library', () => page.getByRole('heading', { name: 'Alle Assets' }).waitFor());
    } finally {
      await context.close();
    }
  });

  it('says in German how an upload went', async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      await germanLibrary(page);
      await page.locator('input[type=file][multiple]').setInputFiles({ name: 'baum.png', mimeType: 'image/png', buffer: Buffer.from(await png(300, 200, '#862e9c')) });
      const status = page.getByTestId('upload-status');
      await expect.poll(() => status.textContent(), { timeout: 20_000 }).toBe('Uploads abgeschlossen: 1 hochgeladen');
      const panel = page.getByRole('region', { name: 'Uploads' });
      // The finished file's line (the panel folds its list once all is done).
      const item = panel.locator('[data-state="done"]').filter({ hasText: 'baum.png' });
      await item.waitFor({ state: 'attached' });
      expect(await item.textContent()).toContain('Hochgeladen');
      expect(await englishIn(panel)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shares an asset through the German Share dialog, with a German date', async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/asset/${meadow}`);
      await expect.poll(() => page.locator('html').getAttribute('lang')).toBe('de');
      await page.getByRole('button', { name: 'Freigeben' }).click();
      const dialog = page.getByRole('dialog', { name: '„wiese.png“ teilen' });
      await dialog.waitFor();
      await expect(dialog.getByLabel('Link läuft ab').inputValue()).resolves.toBe('30d');
      await dialog.getByRole('option', { name: 'Läuft nie ab' }).waitFor({ state: 'attached' });
      await dialog.getByRole('button', { name: 'Abbrechen' }).waitFor();
      expect(await englishIn(dialog)).toEqual([]);
      await screenshotVariants(page, 'i18n-de-share-dialog', () => dialog.waitFor());

      await dialog.getByRole('button', { name: 'Link erstellen' }).click();
      const done = page.getByRole('dialog', { name: 'Link erstellt' });
      await done.waitFor();
      expect(await done.getByLabel('Freigabelink').inputValue()).toMatch(new RegExp(`^${base}/s/[A-Za-z0-9_-]{24}$`));
      const text = await done.innerText();
      // "Läuft in 30 Tagen ab (5. Jan. 2026, 09:30)": German words, a German date.
      expect(text).toMatch(/Läuft in 30 Tagen ab \(\d{1,2}\. \p{L}+\.? \d{4}/u);
      expect(text).toContain('Die Empfänger können die Dateien ansehen und herunterladen.');
      await done.getByRole('button', { name: 'Link kopieren' }).waitFor();
      expect(await englishIn(done)).toEqual([]);
      await screenshotVariants(page, 'i18n-de-share-created', () => done.waitFor());
    } finally {
      await context.close();
    }
  });
});
