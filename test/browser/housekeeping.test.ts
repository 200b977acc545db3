import type { Browser } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { s3ClientSettings } from '../../src/config.js';
import { recordRefusal } from '../../src/repositories/sweep-refusals.js';
import { freePort } from '../helpers/app.js';
import { s3Storage } from '../helpers/uploads.js';
import { apiData, type BrowserSuite, dropFiles, hasChromium, png, registerApi, screenshotVariants, type Session, signedInPage, useBrowserSuite } from './harness.js';

/**
 * Issue #37 in the web client: an instance admin's page of held-back deletions (/settings/housekeeping, GET /admin/sweeps
 * and POST /admin/sweeps/{sweep}/confirm), and a fault's refusal in the client's words. The refusals are recorded as the
 * sweeps record them (src/repositories/sweep-refusals.ts; test/sweep-guard.test.ts drives the sweeps themselves to it):
 * housekeeping runs once a minute, too slow for a page test. The app's store is S3 at a port nothing listens on, so
 * that an upload meets a store that is down, as a real outage.
 */
describe.skipIf(!hasChromium)('held-back deletions and fault messages, in chromium', () => {
  let suite: BrowserSuite;
  let browser: Browser;
  let base: string;
  let admin: Session & { email: string };
  let member: Session & { email: string };
  let deadPort = 0;

  beforeAll(async () => {
    deadPort = await freePort();
  });
  useBrowserSuite(
    async (s) => {
      suite = s;
      ({ browser, base } = s);
      // The first account of the instance is its admin.
      admin = await registerApi(base, 'Ada Admin');
      member = await registerApi(base, 'Max Member');
    },
    () => ({ storage: { ...s3Storage(`http://127.0.0.1:${deadPort}`, 'gone'), client: { ...s3ClientSettings({}), maxAttempts: 2, connectTimeoutMs: 1000 } } }),
  );

  it('lists what each sweep held back, with examples; confirming one lets it delete and the list says so', async () => {
    const db = suite.env.app.database.db;
    const now = Math.floor(Date.now() / 1000);
    const adminWs = admin.workspaces[0]!;
    const memberWs = member.workspaces[0]!.id;
    await recordRefusal(
      db,
      {
        sweep: 'trash',
        workspace_id: adminWs.id,
        would_delete: 40,
        workspace_total: 50,
        summary: "would delete 40 of the workspace's 50 assets (in the trash for more than 30 days)",
        examples: ['asset 12 beach.jpg', 'asset 13 harbour at dusk.png', 'asset 14 brochure-2026.pdf'],
      },
      now - 3 * 3600,
      undefined,
    );
    await recordRefusal(
      db,
      {
        sweep: 'orphaned-objects',
        workspace_id: memberWs,
        would_delete: 812,
        workspace_total: 815,
        summary: 'would delete 812 of the 815 stored objects of the workspace that no row accounts for (orphans)',
        examples: [`ws/${memberWs}/assets/a1b2c3/original (48213 bytes)`, `ws/${memberWs}/assets/d4e5f6/original (1048576 bytes)`],
      },
      now - 600,
      undefined,
    );

    const { context, page } = await signedInPage(browser, admin);
    try {
      await page.goto(`${base}/library`);
      await page.getByRole('button', { name: /^Account: Ada Admin/ }).click();
      await page.getByRole('menuitem', { name: 'Held-back deletions' }).click();
      await page.waitForURL(`${base}/settings/housekeeping`);
      await page.getByRole('heading', { name: 'Held-back deletions', level: 1 }).waitFor();

      // The admin's own workspace by its name; one it is not a member of by its id.
      const trash = page.getByRole('article', { name: `Expired trash · “${adminWs.name}”` });
      const orphans = page.getByRole('article', { name: `Files nothing refers to · Workspace #${memberWs}` });
      await trash.getByText('Would delete 40 of 50 (80%)').waitFor();
      await orphans.getByText('Would delete 812 of 815 (100%)').waitFor();
      await orphans.getByText(/If the store was swapped or emptied, do not confirm/).waitFor();
      expect(await trash.getByText('Waiting for you').count()).toBe(1);
      await trash.getByText('What it would delete').click();
      await trash.getByText('asset 13 harbour at dusk.png').waitFor();
      await trash.getByText(/in the trash for more than 30 days/).waitFor();
      await screenshotVariants(page, 'housekeeping-refused');

      await trash.getByRole('button', { name: 'Let it delete…' }).click();
      const dialog = page.getByRole('dialog', { name: `Delete 40 items from “${adminWs.name}”?` });
      await dialog.getByText(/a batch a minute, and nothing beyond them/).waitFor();
      await screenshotVariants(page, 'housekeeping-confirm-dialog');
      await dialog.getByRole('button', { name: 'Delete 40 items' }).click();
      await page.getByText(`Housekeeping will delete 40 items of “${adminWs.name}”`).waitFor();
      await trash.getByText('Deleting').waitFor();
      await trash.getByText(/Confirmed just now/).waitFor();
      expect(await trash.getByRole('button', { name: 'Let it delete…' }).count()).toBe(0);
      // The other one still waits.
      expect(await orphans.getByRole('button', { name: 'Let it delete…' }).count()).toBe(1);

      // The server has it confirmed by this admin.
      const listed = await apiData<{ sweep: string; state: string; confirmed_by: number | null }[]>(base, admin.token, 'GET', '/admin/sweeps');
      expect(listed.find((r) => r.sweep === 'trash')).toMatchObject({ state: 'confirmed', confirmed_by: admin.user.id });
      expect(listed.find((r) => r.sweep === 'orphaned-objects')).toMatchObject({ state: 'refused', confirmed_by: null });

      // Resolved on its own meanwhile (here: gone from the table, as when the trash is restored): the page says so and
      // shows the list as it is now.
      await db.deleteFrom('sweep_refusals').where('sweep', '=', 'orphaned-objects').execute();
      await orphans.getByRole('button', { name: 'Let it delete…' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete 812 items' }).click();
      await page.getByText('This deletion is no longer waiting; the list is up to date.').waitFor();
      await orphans.waitFor({ state: 'detached' });
      expect(await page.getByRole('article').count()).toBe(1);
    } finally {
      await context.close();
    }
  });

  it('with nothing held back, says so; someone who is not an instance admin has no menu entry and is told the page is not theirs', async () => {
    await suite.env.app.database.db.deleteFrom('sweep_refusals').execute();
    const { context, page } = await signedInPage(browser, admin);
    try {
      await page.goto(`${base}/settings/housekeeping`);
      await page.getByText('Nothing is held back').waitFor();
      await page.getByText('Every housekeeping run has stayed within its limits.').waitFor();
      await screenshotVariants(page, 'housekeeping-none');
    } finally {
      await context.close();
    }
    const other = await signedInPage(browser, member);
    try {
      await other.page.goto(`${base}/library`);
      await other.page.getByRole('button', { name: /^Account: Max Member/ }).click();
      await other.page.getByRole('menuitem', { name: 'Account settings' }).waitFor();
      expect(await other.page.getByRole('menuitem', { name: 'Held-back deletions' }).count()).toBe(0);
      await other.page.goto(`${base}/settings/housekeeping`);
      await other.page.getByText('Only instance admins see held-back deletions').waitFor();
      expect(await other.page.getByRole('article').count()).toBe(0);
    } finally {
      await other.context.close();
    }
  });

  it('an upload the unavailable store refuses says so in plain words (503 STORAGE_UNAVAILABLE), and nothing is added', async () => {
    const { context, page } = await signedInPage(browser, member);
    try {
      await page.goto(`${base}/library`);
      await page.getByRole('heading', { name: 'All assets' }).waitFor();
      await dropFiles(page, [{ name: 'poster.png', type: 'image/png', bytes: await png(64, 48, '#3366aa') }]);
      await page.getByText('File storage is unavailable — try again shortly.').first().waitFor({ timeout: 30_000 });
      await screenshotVariants(page, 'fault-storage-unavailable');
      // The refused upload's 'uploading' asset was removed with it.
      const listed = await apiData<{ total: number }>(base, member.token, 'GET', `/dam/assets?workspaceId=${member.workspaces[0]!.id}`);
      expect(listed.total).toBe(0);
    } finally {
      await context.close();
    }
  });
});
