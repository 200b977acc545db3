import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { haveFfmpeg, testClip } from '../helpers/media.js';
import { type BrowserApp, hasChromium, png, registerApi, screenshot, screenshotVariants, type Session, signedInPage, uploadApi, useBrowserSuite } from './harness.js';

/** A picture with detail to zoom into: a grid of numbered squares. */
async function chart(width: number, height: number): Promise<Uint8Array> {
  const sharp = (await import('sharp')).default;
  const cells: string[] = [];
  for (let x = 0; x < width; x += 250) {
    for (let y = 0; y < height; y += 250) {
      const fill = (x / 250 + y / 250) % 2 ? '#1971c2' : '#f08c00';
      cells.push(`<rect x="${x}" y="${y}" width="250" height="250" fill="${fill}"/><text x="${x + 125}" y="${y + 150}" font-size="90" text-anchor="middle" fill="#fff">${x / 250},${y / 250}</text>`);
    }
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${cells.join('')}</svg>`;
  return new Uint8Array(await sharp(Buffer.from(svg)).png().toBuffer());
}

const TRIP = Array.from({ length: 26 }, (_, i) => `trip-${String(i + 1).padStart(2, '0')}.png`);

/**
 * Issue #27 in the web client, "the asset page as a viewer": previous and next within the list an asset was
 * opened from (a tag filter sorted by name, 26 assets over two pages of 24, with an untagged asset sorting
 * between two of them), by keys, buttons and a swipe; zoom to the file's full resolution and full screen;
 * the duration badge of video tiles and the "Fit" grid.
 */
describe.skipIf(!hasChromium)('the asset page as a viewer, in chromium', () => {
  let browser: Browser;
  let env: BrowserApp;
  let base: string;
  let owner: Session;
  let ws: number;
  const ids: Record<string, number> = {};

  useBrowserSuite(async (suite) => {
    ({ browser, env, base } = suite);
    owner = await registerApi(base, 'Ansel Adams');
    ws = owner.workspaces[0]!.id;
    const upload = async (name: string, type: string, data: Uint8Array, tags?: string[]) =>
      (ids[name] = (await uploadApi(base, owner.token, ws, { name, type, data, ...(tags ? { tags } : {}) })).id);
    for (const [i, name] of TRIP.entries()) {
      // Landscape, portrait and panorama pictures: the "Fit" grid shows each in its own proportions.
      const [w, h] = ([[320, 240], [240, 320], [400, 150]] as const)[i % 3]!;
      await upload(name, 'image/png', await png(w, h, `hsl(${(i * 37) % 360}, 65%, 55%)`), ['trip']);
    }
    // Not tagged: sorts between trip-23 and trip-24 but is not in the list.
    await upload('trip-23b.png', 'image/png', await png(320, 240, '#868e96'));
    await upload('chart.png', 'image/png', await chart(3000, 2000));
    if (haveFfmpeg) await upload('clip.mp4', 'video/mp4', new Uint8Array(testClip({ seconds: 4 })));
    await env.app.app.jobs.drain();
  });

  const heading = (page: Page, name: string) => page.getByRole('heading', { level: 1, name }).waitFor();
  const position = (page: Page) => page.locator('.viewer .position').textContent();
  const listUrl = (extra = '') => `${base}/library?ws=${ws}&tags=trip&sort=display_file_name:asc${extra}`;

  it('steps through the filtered list by keys and buttons, across a page boundary, and keeps it on reload', async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(listUrl());
      await page.getByRole('link', { name: /^trip-23\.png/ }).click();
      await heading(page, 'trip-23.png');
      await expect.poll(() => position(page)).toBe('23 of 26');
      await screenshotVariants(page, 'asset-viewer-list', () => page.locator('.zoom img').waitFor());

      // → skips the untagged trip-23b; then crosses to page 2, which the URL records.
      await page.keyboard.press('ArrowRight');
      await heading(page, 'trip-24.png');
      await expect.poll(() => position(page)).toBe('24 of 26');
      await page.keyboard.press('ArrowRight');
      await heading(page, 'trip-25.png');
      await expect.poll(() => position(page)).toBe('25 of 26');
      expect(new URL(page.url()).searchParams.get('page')).toBe('2');
      expect(new URL(page.url()).pathname).toBe(`/asset/${ids['trip-25.png']}`);

      // A reload keeps the list (it is in the URL).
      await page.reload();
      await heading(page, 'trip-25.png');
      await expect.poll(() => position(page)).toBe('25 of 26');

      // The buttons: Next to the end (then disabled), Previous back over the boundary.
      await page.getByRole('button', { name: 'Next asset' }).click();
      await heading(page, 'trip-26.png');
      await expect.poll(() => page.getByRole('button', { name: 'Next asset' }).isDisabled()).toBe(true);
      await page.keyboard.press('ArrowRight');
      await page.getByRole('button', { name: 'Previous asset' }).click();
      await heading(page, 'trip-25.png');
      await page.getByRole('button', { name: 'Previous asset' }).click();
      await heading(page, 'trip-24.png');
      expect(new URL(page.url()).searchParams.get('page')).toBeNull();
      await page.keyboard.press('ArrowLeft');
      await heading(page, 'trip-23.png');

      // The shortcuts are in the help.
      await page.keyboard.press('?');
      const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
      await help.getByText('On an asset’s page: the previous or next asset of the list it was opened from').waitFor();
      await help.getByText('On an asset’s page: full screen, or back').waitFor();
      await page.keyboard.press('Escape');

      // Back to the library: the same list, on the page of the asset.
      await page.getByRole('link', { name: 'Library' }).click();
      await page.getByRole('heading', { name: 'All assets' }).waitFor();
      const back = new URL(page.url()).searchParams;
      expect([back.get('tags'), back.get('sort')]).toEqual(['trip', 'display_file_name:asc']);

      // Opened from elsewhere (no list): no previous or next.
      await page.goto(`${base}/asset/${ids['trip-10.png']}`);
      await heading(page, 'trip-10.png');
      await page.getByRole('button', { name: 'Full screen' }).waitFor();
      expect(await page.getByRole('button', { name: 'Next asset' }).count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it('swipes to the next and previous asset on a phone', async () => {
    const { context, page } = await signedInPage(browser, owner, { width: 390, height: 844 });
    try {
      await page.goto(`${base}/asset/${ids['trip-02.png']}?ws=${ws}&tags=trip&sort=display_file_name:asc`);
      await heading(page, 'trip-02.png');
      await expect.poll(() => position(page)).toBe('2 of 26');
      const cdp = await context.newCDPSession(page);
      await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 5 });
      const swipe = async (dx: number) => {
        await page.locator('.zoom img').waitFor();
        const box = (await page.locator('.zoom').boundingBox())!;
        const [x, y] = [box.x + box.width / 2 - dx / 2, box.y + box.height / 2];
        await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x, y }] });
        for (let i = 1; i <= 5; i += 1) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x: x + (dx * i) / 5, y: y + i }] });
        await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
      };
      await swipe(-160);
      await heading(page, 'trip-03.png');
      await expect.poll(() => position(page)).toBe('3 of 26');
      await swipe(160);
      await heading(page, 'trip-02.png');
      // A short or mostly upright movement is not a swipe.
      await swipe(-20);
      await page.waitForTimeout(300);
      expect(new URL(page.url()).pathname).toBe(`/asset/${ids['trip-02.png']}`);
    } finally {
      await context.close();
    }
  });

  it('zooms to the full-resolution file by double-click and the wheel, and goes full screen', async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/asset/${ids['chart.png']}`);
      await heading(page, 'chart.png');
      const img = page.locator('.zoom img');
      const natural = () => img.evaluate((el) => (el as unknown as { complete: boolean; naturalWidth: number }).naturalWidth);
      // First the 1440 px preview, not the 3000 px file.
      await expect.poll(natural).toBe(1440);

      // Double-click: 1:1, drawn from the file itself.
      await img.dblclick();
      await expect.poll(() => img.getAttribute('data-zoomed')).toBe('true');
      await expect.poll(natural).toBe(3000);
      const drawn = await img.evaluate((el) => (el as unknown as { getBoundingClientRect(): { width: number } }).getBoundingClientRect().width);
      expect(Math.round(drawn)).toBe(3000);
      // Dragging pans the picture.
      const before = await img.boundingBox();
      await page.mouse.move(640, 300);
      await page.mouse.down();
      await page.mouse.move(540, 260, { steps: 5 });
      await page.mouse.up();
      expect(Math.round((await img.boundingBox())!.x)).toBeLessThan(Math.round(before!.x));
      await screenshotVariants(page, 'asset-viewer-zoomed', async () => {
        // A new width starts again from the whole picture (after the next layout): zoom in again.
        await page.waitForTimeout(200);
        if ((await img.getAttribute('data-zoomed')) === 'true') return;
        await img.dblclick();
        await expect.poll(() => img.getAttribute('data-zoomed')).toBe('true');
        await expect.poll(natural).toBe(3000);
      });

      // Double-click again: the whole picture. The wheel zooms too.
      await page.waitForTimeout(200);
      if ((await img.getAttribute('data-zoomed')) !== 'true') {
        await img.dblclick();
        await expect.poll(() => img.getAttribute('data-zoomed')).toBe('true');
      }
      await img.dblclick();
      await expect.poll(() => img.getAttribute('data-zoomed')).toBe('false');
      const box = (await img.boundingBox())!;
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.wheel(0, -400);
      await expect.poll(() => img.getAttribute('data-zoomed')).toBe('true');

      // Full screen: the button, then `f` back.
      await page.getByRole('button', { name: 'Full screen' }).click();
      await expect.poll(() => page.evaluate('document.fullscreenElement?.className ?? null')).toContain('viewer');
      await page.getByRole('button', { name: 'Exit full screen' }).waitFor();
      await screenshot(page, 'asset-viewer-fullscreen');
      await page.keyboard.press('f');
      await expect.poll(() => page.evaluate('document.fullscreenElement')).toBeNull();
      await page.keyboard.press('f');
      await expect.poll(() => page.evaluate('document.fullscreenElement?.className ?? null')).toContain('viewer');
      await page.keyboard.press('f');
      await expect.poll(() => page.evaluate('document.fullscreenElement')).toBeNull();
    } finally {
      await context.close();
    }
  });

  it.skipIf(!haveFfmpeg)('shows the length of a video on its tile', async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/library?ws=${ws}&type=video`);
      const card = page.locator(`[data-asset-id="${ids['clip.mp4']}"]`);
      await card.waitFor();
      await expect.poll(() => card.locator('.duration').textContent()).toBe('0:04');
      // Pictures have none.
      await page.goto(listUrl());
      await page.locator('ul[aria-label="Assets"] li').first().waitFor();
      expect(await page.locator('ul[aria-label="Assets"] .duration').count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it('shows pictures whole in the "Fit" grid, remembered after a reload', async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(listUrl());
      await page.locator('ul[aria-label="Assets"] img').first().waitFor();
      const fit = () => page.evaluate<string>(`getComputedStyle(document.querySelector('ul[aria-label="Assets"] img')).objectFit`);
      expect(await fit()).toBe('cover');
      const toggle = page.getByRole('button', { name: 'Fit' });
      expect(await toggle.getAttribute('aria-pressed')).toBe('false');
      await toggle.click();
      await expect.poll(fit).toBe('contain');
      await page.reload();
      await page.locator('ul[aria-label="Assets"] img').first().waitFor();
      await expect.poll(fit).toBe('contain');
      expect(await page.getByRole('button', { name: 'Fit' }).getAttribute('aria-pressed')).toBe('true');
      await screenshotVariants(page, 'library-fit-grid', () =>
        expect.poll(() => page.locator('ul[aria-label="Assets"] img').evaluateAll((imgs) => imgs.slice(0, 6).every((i) => (i as unknown as { complete: boolean; naturalWidth: number }).complete && (i as unknown as { naturalWidth: number }).naturalWidth > 0))).toBe(true),
      );
      // Off again: square crops.
      await page.getByRole('button', { name: 'Fit' }).click();
      await expect.poll(fit).toBe('cover');
    } finally {
      await context.close();
    }
  });
});
