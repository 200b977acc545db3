import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExifFiles, twoColourJpeg } from '../helpers/exif-files.js';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { hasChromium, png, registerApi, screenshot, type Session, signedInPage, uploadApi, useBrowserSuite } from './harness.js';

/** The names on the asset cards of the grid, in order. */
async function gridNames(page: Page): Promise<string[]> {
  return page.locator('ul[aria-label="Assets"] .name').allTextContents();
}

const PANEL = 'section[aria-labelledby="embedded-title"]';

/** The value of a row of the embedded-metadata panel. */
const row = (page: Page, label: string) => {
  const dd = page.locator(`${PANEL} dt`, { hasText: new RegExp(`^${label}$`) }).locator('xpath=following-sibling::dd[1]');
  return { textContent: async () => (await dd.textContent())?.trim(), locator: (selector: string) => dd.locator(selector) };
};

/**
 * Issue #12 and #13 in the web client: the asset page's embedded-metadata panel with values ExifTool
 * wrote into a real JPEG (and a manager's edit of the caption), the library's facet counts following
 * the filters, and the Generate dialog against the fake OpenAI Images API, ending with the new assets
 * in the grid.
 */
describe.skipIf(!hasChromium)('embedded metadata, facets and image generation, in chromium', () => {
  let fake: FakeOpenAI;
  let exif: ExifFiles;
  let browser: Browser;
  let base: string;
  let owner: Session;
  let ws: number;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    exif = new ExifFiles();
  });
  afterAll(async () => {
    await exif?.end();
    await fake?.close();
  });

  async function api<T>(method: string, path: string, body?: unknown, token = owner.token): Promise<T> {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { data: T }).data;
  }

  // Three generated images a day: two drawn, one refused, then the limit.
  useBrowserSuite(
    async (suite) => {
      ({ browser, base } = suite);
      owner = await registerApi(base, 'Dorothea Lange');
      ws = owner.workspaces[0]!.id;
      const harbour = await exif.withTags(await twoColourJpeg(600, 400), 'jpg', {
        'EXIF:DateTimeOriginal': '2023:07:14 09:30:00',
        'EXIF:OffsetTimeOriginal': '+02:00',
        'EXIF:Make': 'Canon',
        'EXIF:Model': 'Canon EOS R5',
        'EXIF:LensModel': 'RF24-105mm F4 L IS USM',
        'EXIF:ISO': 400,
        'EXIF:ExposureTime': '1/250',
        'EXIF:FNumber': 5.6,
        'EXIF:FocalLength': 35,
        'EXIF:ColorSpace': 'sRGB',
        'EXIF:GPSLatitude': 48.8584,
        'EXIF:GPSLatitudeRef': 'N',
        'EXIF:GPSLongitude': 2.2945,
        'EXIF:GPSLongitudeRef': 'E',
        'IPTC:Keywords': ['Paris', 'Seine'],
        'IPTC:Caption-Abstract': 'Sunset over the Seine',
        'IPTC:By-line': 'Ann Photographer',
        'IPTC:CopyrightNotice': '(c) 2023 Ann',
        'XMP-xmpRights:UsageTerms': 'Editorial use only',
      });
      const street = await exif.withTags(await twoColourJpeg(400, 600), 'jpg', {
        'EXIF:DateTimeOriginal': '2021:03:02 12:00:00',
        'EXIF:Make': 'FUJIFILM',
        'EXIF:Model': 'X100V',
        'IPTC:By-line': 'Bo Street',
      });
      const files = [
        { name: 'seine.jpg', type: 'image/jpeg', data: new Uint8Array(harbour) },
        { name: 'street.jpg', type: 'image/jpeg', data: new Uint8Array(street) },
        { name: 'plain.png', type: 'image/png', data: await png(300, 300, '#2f9e44') },
      ];
      for (const file of files) ids[file.name] = (await uploadApi(base, owner.token, ws, file)).id;
      // The files are read by a job after the upload.
      for (const id of Object.values(ids)) {
        for (let tries = 0; (await api<{ metadata_version_id: number | null }>('GET', `/dam/assets/${id}`)).metadata_version_id === null; tries += 1) {
          if (tries === 300) throw new Error(`asset ${id}: its file was not read within 30 s`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    },
    () => ({ imageGen: fake.config({ dailyLimit: 3 }) }),
  );

  it("shows the JPEG's embedded metadata on the asset page, and a manager edits the caption", async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/asset/${ids['seine.jpg']}`);
      await page.getByRole('heading', { name: 'Embedded metadata' }).waitFor();
      await expect.poll(() => row(page, 'Date taken').textContent()).toBe('14 Jul 2023, 09:30 (UTC+02:00)');
      expect(await row(page, 'Camera').textContent()).toBe('Canon EOS R5');
      expect(await row(page, 'Lens').textContent()).toBe('RF24-105mm F4 L IS USM');
      expect(await row(page, 'Exposure').textContent()).toBe('1/250 s · f/5.6 · ISO 400 · 35 mm');
      expect(await row(page, 'Colour space').textContent()).toBe('sRGB');
      const map = page.getByRole('link', { name: '48.8584° N, 2.2945° E' });
      expect(await map.getAttribute('href')).toBe('https://www.openstreetmap.org/?mlat=48.8584&mlon=2.2945#map=16/48.8584/2.2945');
      expect(await row(page, 'Caption').textContent()).toBe('Sunset over the Seine');
      expect(await row(page, 'Creator').textContent()).toBe('Ann Photographer');
      expect(await row(page, 'Copyright').textContent()).toBe('(c) 2023 Ann');
      expect(await row(page, 'Usage terms').textContent()).toBe('Editorial use only');
      expect(await row(page, 'Keywords').locator('.chip').allTextContents()).toEqual(['Paris', 'Seine']);
      // A photo without duration or pages shows neither.
      expect(await page.locator(`${PANEL} dt`).allTextContents()).not.toContain('Duration');
      await screenshot(page, 'asset-embedded-metadata');

      await page.getByRole('button', { name: 'Edit description' }).click();
      const caption = page.getByLabel('Caption');
      expect(await caption.inputValue()).toBe('Sunset over the Seine');
      await caption.fill('Sunset over the Seine, from the Pont des Arts');
      await page.getByRole('button', { name: 'Save description' }).click();
      await page.getByText('Description saved').waitFor();
      await expect.poll(() => row(page, 'Caption').textContent()).toBe('Sunset over the Seine, from the Pont des Arts · edited');
      const saved = await api<{ caption: string; creator: string; metadata_edited: string[] }>('GET', `/dam/assets/${ids['seine.jpg']}`);
      expect(saved).toMatchObject({ caption: 'Sunset over the Seine, from the Pont des Arts', creator: 'Ann Photographer', metadata_edited: ['caption'] });

      // A viewer reads the same panel without the Edit button.
      const viewer = await registerApi(base, 'Vera Viewer');
      await api('POST', `/workspaces/${ws}/members`, { email: viewer.email, role: 'viewer' });
      const seen = await signedInPage(browser, { ...viewer, workspaces: [{ id: ws, name: '', role: 'viewer' }] });
      try {
        await seen.page.goto(`${base}/asset/${ids['seine.jpg']}`);
        await expect.poll(() => row(seen.page, 'Camera').textContent()).toBe('Canon EOS R5');
        expect(await seen.page.getByRole('button', { name: 'Edit description' }).count()).toBe(0);
      } finally {
        await seen.context.close();
      }
    } finally {
      await context.close();
    }
  });

  it('shows facet counts beside the filters, and they follow the filters', async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/library`);
      await expect.poll(() => gridNames(page)).toHaveLength(3);
      await page.getByRole('button', { name: 'Filters', exact: true }).click();
      const images = page.locator('#search-filters button.toggle', { hasText: /^Images/ });
      await expect.poll(() => images.textContent()).toBe('Images3');
      const camera = page.locator('#filter-camera option');
      await expect.poll(() => camera.allTextContents()).toEqual(['Any', 'Canon EOS R5 (1)', 'X100V (1)']);
      expect(await page.locator('#filter-creator option').allTextContents()).toEqual(['Any', 'Ann Photographer (1)', 'Bo Street (1)']);
      expect(await page.locator('#filter-orientation option').allTextContents()).toEqual(['Any', 'Landscape (1)', 'Portrait (1)', 'Square (1)']);
      const years = page.getByRole('group', { name: 'Years taken' }).getByRole('button');
      expect(await years.allTextContents()).toEqual(['20231', '20211']);
      // The file's keywords became tags, offered with their counts.
      expect(await page.getByRole('group', { name: 'Frequent tags' }).getByRole('button').allTextContents()).toEqual(['Paris1', 'Seine1']);
      await screenshot(page, 'library-facets');

      // A year taken is a range of dates: in the address, the grid and every other count.
      await years.filter({ hasText: '2021' }).click();
      await page.waitForURL(/taken_from=2021-01-01&taken_to=2021-12-31/);
      await expect.poll(() => gridNames(page)).toEqual(['street.jpg']);
      await expect.poll(() => images.textContent()).toBe('Images1');
      expect(await page.locator('#filter-orientation option').allTextContents()).toEqual(['Any', 'Landscape (0)', 'Portrait (1)', 'Square (0)']);
      await expect.poll(() => camera.allTextContents()).toEqual(['Any', 'X100V (1)']);
      // The years themselves are counted without their own filter, so another can be chosen.
      expect(await years.allTextContents()).toEqual(['20231', '20211']);
      expect(await years.filter({ hasText: '2021' }).getAttribute('aria-pressed')).toBe('true');

      // A range typed in the date fields; with no camera chosen the other counts come back.
      await page.getByLabel('Taken from').fill('2020-01-01');
      await page.getByLabel('Taken to').fill('2023-07-31');
      await page.getByLabel('Taken to').dispatchEvent('change');
      await page.waitForURL(/taken_from=2020-01-01&taken_to=2023-07-31/);
      await expect.poll(async () => (await gridNames(page)).sort()).toEqual(['seine.jpg', 'street.jpg']);
      await expect.poll(() => images.textContent()).toBe('Images2');

      // Sorting by date taken, newest first; a camera as a filter.
      await page.locator('#search-sort').selectOption('taken_at:desc');
      await expect.poll(() => gridNames(page)).toEqual(['seine.jpg', 'street.jpg']);
      await page.locator('#search-sort').selectOption('taken_at:asc');
      await expect.poll(() => gridNames(page)).toEqual(['street.jpg', 'seine.jpg']);
      await page.locator('#filter-camera').selectOption('Canon EOS R5');
      await page.waitForURL(/camera=Canon/);
      await expect.poll(() => gridNames(page)).toEqual(['seine.jpg']);
      await expect.poll(() => camera.allTextContents()).toEqual(['Any', 'Canon EOS R5 (1)', 'X100V (1)']);
      await expect.poll(() => page.locator('#filter-creator option').allTextContents()).toEqual(['Any', 'Ann Photographer (1)']);

      // The state is in the address: a reload keeps filters and counts.
      await page.reload();
      await expect.poll(() => gridNames(page)).toEqual(['seine.jpg']);
      await expect.poll(() => images.textContent()).toBe('Images1');
      // At phone width the filters fit: nothing scrolls sideways.
      await page.setViewportSize({ width: 390, height: 844 });
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      await screenshot(page, 'library-facets-phone');
      await page.setViewportSize({ width: 1280, height: 820 });
      await page.getByRole('button', { name: 'Clear filters' }).click();
      await expect.poll(() => gridNames(page)).toHaveLength(3);
    } finally {
      await context.close();
    }
  });

  it('generates images from a prompt into the grid, and shows a refusal and the daily limit', async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/library`);
      await expect.poll(() => gridNames(page)).toHaveLength(3);
      await page.getByRole('button', { name: 'Generate' }).click();
      const dialog = page.getByRole('dialog', { name: 'Generate images' });
      await dialog.getByLabel('Describe the image').fill('A red fox in the snow');
      await dialog.getByLabel('Leave out').fill('people');
      await dialog.getByLabel('Size').selectOption('512x512');
      await dialog.getByLabel('Images').selectOption('2');
      await screenshot(page, 'generate-dialog');
      await dialog.getByRole('button', { name: 'Generate' }).click();
      // Progress, then the dialog closes and the images are in the grid.
      await page.getByText('2 images generated').waitFor();
      expect(await dialog.count()).toBe(0);
      await expect.poll(async () => (await gridNames(page)).filter((n) => n.startsWith('A red fox in the snow')).sort()).toEqual([
        'A red fox in the snow 1.png',
        'A red fox in the snow 2.png',
      ]);
      const asked = fake.requests.at(-1)!.body;
      expect(asked).toMatchObject({ size: '512x512', n: 1 });
      expect(String(asked.prompt)).toContain('people');
      await screenshot(page, 'generate-done');

      // Refused by the provider: its reason in the dialog, and the prompt can be changed.
      await page.getByRole('button', { name: 'Generate' }).click();
      await dialog.getByLabel('Describe the image').fill('A forbidden fox');
      await dialog.getByRole('button', { name: 'Generate' }).click();
      await dialog.getByText('The images could not be generated.').waitFor({ timeout: 30_000 });
      expect(await dialog.getByRole('alert').textContent()).toContain('Your request was rejected as a result of our safety system');
      await screenshot(page, 'generate-refused');
      await dialog.getByRole('button', { name: 'Change the prompt' }).click();
      expect(await dialog.getByLabel('Describe the image').inputValue()).toBe('A forbidden fox');

      // Three images asked for today: the fourth is refused at once with the limit.
      await dialog.getByLabel('Describe the image').fill('A fox at dawn');
      await dialog.getByRole('button', { name: 'Generate' }).click();
      const limit = dialog.getByRole('alert');
      await expect.poll(() => limit.textContent()).toContain('has 0 left today');
      expect(await limit.textContent()).toContain('More can be asked for from');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      expect(await gridNames(page)).toHaveLength(5);
    } finally {
      await context.close();
    }
  });
});
