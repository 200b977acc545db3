import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { startHttpTestApp } from '../helpers/app.js';
import { startS3Server } from '../helpers/uploads.js';
import {
  type BrowserApp,
  hasChromium,
  newPage,
  png,
  registerApi,
  screenshot,
  signedInPage,
  takePolicyViolations,
  uploadApi,
  useBrowserSuite,
} from './harness.js';

describe.skipIf(!hasChromium)('security headers, in chromium', () => {
  let browser: Browser;
  let env: BrowserApp;
  let base: string;
  useBrowserSuite(async (suite) => {
    ({ browser, env, base } = suite);
  });

  it('the client page carries the policy, and the watcher sees what it blocks', async () => {
    const { context, page } = await newPage(browser);
    try {
      const response = await page.goto(`${base}/login`);
      const headers = response!.headers();
      expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(headers['x-frame-options']).toBe('DENY');
      expect(headers['referrer-policy']).toBe('no-referrer');
      await page.getByLabel('E-mail').waitFor();
      // Inline script is what the policy exists to stop: it does not run, and the violation is reported.
      await page.evaluate(`(() => {
        const s = document.createElement('script');
        s.textContent = 'window.inlineRan = true';
        document.body.appendChild(s);
      })()`);
      await expect.poll(() => takePolicyViolations().join('\n')).toContain('script-src-elem blocked inline');
      expect(await page.evaluate('window.inlineRan === true')).toBe(false);
    } finally {
      await context.close();
    }
  });

  it('a page of another site cannot frame the client', async () => {
    const { context, page } = await newPage(browser);
    try {
      // The fake Google is another origin: frame the library from there.
      await page.goto(`${env.google.baseUrl}/o/oauth2/v2/auth?client_id=x`);
      await page.evaluate(`(() => {
        const f = document.createElement('iframe');
        f.src = ${JSON.stringify(`${base}/login`)};
        document.body.appendChild(f);
      })()`);
      const frame = page.locator('iframe');
      await frame.waitFor();
      await page.waitForTimeout(500);
      // The framed document never loads our client (Chromium shows its own error page in the frame).
      const framed = page.frames().find((f) => f !== page.mainFrame());
      expect(await framed?.locator('#login-email').count()).toBe(0);
      // Chromium reports the refusal (our page's frame-ancestors) in the framing page's console.
      await expect.poll(() => takePolicyViolations().join('\n')).toContain("frame-ancestors 'none'");
    } finally {
      await context.close();
    }
  });

  it('the API docs render under their own policy', async () => {
    const { context, page } = await newPage(browser);
    try {
      const response = await page.goto(`${base}/docs`);
      expect(response!.status()).toBe(200);
      await page.locator('.swagger-ui .opblock').first().waitFor();
      await page.getByText('DAM service').first().waitFor();
      // Expanding an operation renders its schemas (more markup, more inline styles).
      await page.locator('.opblock-summary').first().click();
      await page.locator('.opblock-body').first().waitFor();
      await screenshot(page, 'api-docs');
    } finally {
      await context.close();
    }
  });

  it('shows thumbnails and previews (signed media URLs, blob: object URLs) without violations', async () => {
    const owner = await registerApi(base, 'Hedy Lamarr');
    const ws = owner.workspaces[0]!.id;
    const asset = await uploadApi(base, owner.token, ws, { name: 'green.png', type: 'image/png', data: await png(640, 360, '#2f9e44') });
    await uploadApi(base, owner.token, ws, { name: 'notes.txt', type: 'text/plain', data: new TextEncoder().encode('notes') });
    await env.app.app.jobs.drain();
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/library`);
      await expect.poll(() => page.locator('ul[aria-label="Assets"] .name').count()).toBe(2);
      await expect.poll(() => page.locator('ul[aria-label="Assets"] img').evaluateAll((imgs: { complete: boolean; naturalWidth: number }[]) => imgs.filter((i) => i.complete && i.naturalWidth > 0).length)).toBeGreaterThan(0);
      await screenshot(page, 'security-library');
      await page.goto(`${base}/asset/${asset.id}`);
      await page.locator('[data-version="v1"]').waitFor();
      await page.locator('[data-version="v1"]').getByRole('button', { name: 'Download v1' }).click();
      await screenshot(page, 'security-asset');
    } finally {
      await context.close();
    }
  });

  it('uploads straight to an S3 bucket on another origin (connect-src)', async () => {
    const s3 = await startS3Server();
    const app = await startHttpTestApp({ config: { storage: await s3.newBucket(), minPartSize: 5 } });
    try {
      const admin = await registerApi(app.baseUrl, 'Bucket Admin');
      // seed 2.3's bucket CORS rules, so the browser may PUT parts from the client's origin.
      const cors = await fetch(`${app.baseUrl}/storage/updateBucketConfig`, { method: 'POST', headers: { authorization: `Bearer ${admin.token}` } });
      expect(cors.status).toBe(200);
      const { context, page } = await signedInPage(browser, admin);
      try {
        const puts: string[] = [];
        page.on('request', (req) => {
          if (req.method() === 'PUT') puts.push(new URL(req.url()).origin);
        });
        await page.goto(`${app.baseUrl}/library`);
        await page.getByRole('heading', { name: 'All assets' }).waitFor();
        await page.locator('input[type=file][multiple]').setInputFiles({ name: 'to-s3.txt', mimeType: 'text/plain', buffer: Buffer.from('straight to the bucket') });
        await page.getByRole('region', { name: 'Uploads' }).locator('[data-state="done"]').filter({ hasText: 'to-s3.txt' }).waitFor({ state: 'attached' });
        expect(puts).toEqual([s3.endpoint]);
        await expect.poll(() => page.locator('ul[aria-label="Assets"] .name').allTextContents()).toContain('to-s3.txt');
        await screenshot(page, 'security-s3-upload');
      } finally {
        await context.close();
      }
    } finally {
      await app.close();
      await s3.close();
    }
  });
});
