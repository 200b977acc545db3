import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/payments/plans.js';
import { testConfig } from '../helpers/app.js';
import { startFakeStripe, type FakeStripe } from '../helpers/fake-stripe.js';
import { hasChromium, registerApi, screenshot, type Session, signedInPage, uploadApi, useBrowserSuite } from './harness.js';

/**
 * Issue #17 in the web client, against the fake Stripe (test/helpers/fake-stripe.ts): the Billing tab (plan,
 * usage bars, plan cards), Upgrade to Stripe Checkout, the signed webhook and the ?checkout=success return,
 * the billing portal, the near-limit banner, an upload refused for the storage limit, and no billing at all
 * when the instance has no payments.
 */
const STORAGE_LIMIT = 1_000_000;
const PLANS: Plan[] = [
  { id: 'free', name: 'Free', limits: { storage_bytes: STORAGE_LIMIT, members: 3, assets: 10 } },
  { id: 'pro', name: 'Pro', price_label: 'EUR 12 / month', limits: { storage_bytes: 50_000_000, members: 10 }, stripe_price_id: 'price_pro' },
  { id: 'studio', name: 'Studio', price_label: 'EUR 40 / month', limits: {}, stripe_price_id: 'price_studio' },
];

interface Subscription {
  plan: string;
  usage: { storage_bytes: number; members: number; assets: number };
}

/** A file of `size` bytes on disk, for the file input. */
function fileOf(name: string, size: number): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'dam-billing-'));
  const file = path.join(dir, name);
  writeFileSync(file, Buffer.alloc(size, 'billing test data\n'));
  return file;
}

describe.skipIf(!hasChromium)('billing, in chromium', () => {
  let fake: FakeStripe;
  let browser: Browser;
  let base: string;

  async function api<T>(method: string, url: string, who: Session, body?: unknown): Promise<T> {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: { authorization: `Bearer ${who.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { data: T }).data;
  }
  const subscription = (who: Session) => api<Subscription>('GET', `/payments/subscription?workspaceId=${who.workspaces[0]!.id}`, who);

  /** Stripe's side of a paid checkout: the subscription exists and checkout.session.completed is delivered, signed. */
  async function completeCheckout(workspaceId: number, price: string): Promise<void> {
    const customer = [...fake.customers.values()].find((c) => (c.metadata as Record<string, string>).workspace_id === String(workspaceId))!.id as string;
    const sub = fake.setSubscription({ id: `sub_browser_${workspaceId}`, customer, price, metadata: { workspace_id: String(workspaceId) } });
    const event = fake.event('checkout.session.completed', {
      id: 'cs_test_browser',
      object: 'checkout.session',
      mode: 'subscription',
      customer,
      client_reference_id: String(workspaceId),
      subscription: sub.id,
    });
    const res = await fetch(`${base}/payments/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': fake.sign(event.body) },
      body: event.body,
    });
    expect(res.status, await res.text()).toBe(200);
  }

  /** Stripe's hosted pages are not reachable from the test: answer them here, and let the test see where the browser went. */
  async function stubStripePages(page: Page): Promise<void> {
    for (const host of ['https://checkout.stripe.test/**', 'https://billing.stripe.test/**']) {
      await page.route(host, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Stripe</title><p>Stripe</p>' }));
    }
  }

  const bar = (page: Page, name: string) => page.getByRole('progressbar', { name: `${name} used` });
  const banner = (page: Page) => page.getByRole('status', { name: 'Plan limits' });

  beforeAll(async () => {
    fake = await startFakeStripe();
  });
  afterAll(async () => {
    await fake?.close();
  });

  useBrowserSuite(
    (suite) => {
      ({ browser, base } = suite);
    },
    () => ({ payments: { ...testConfig().payments, plans: PLANS, stripe: fake.config() } }),
  );

  it('shows plan and usage, upgrades through Checkout and shows the paid plan after the webhook and the return', async () => {
    const owner = await registerApi(base, 'Grace Hopper');
    const ws = owner.workspaces[0]!.id;
    await uploadApi(base, owner.token, ws, { name: 'notes.txt', type: 'text/plain', data: new TextEncoder().encode('a few words') });
    const { context, page } = await signedInPage(browser, owner);
    try {
      await stubStripePages(page);
      await page.goto(`${base}/settings/${ws}`);
      const tabs = page.getByRole('navigation', { name: 'Workspace settings' });
      await tabs.getByRole('link', { name: 'Billing' }).click();
      await page.waitForURL(`${base}/settings/${ws}/billing`);
      expect(await tabs.getByRole('link', { name: 'Billing' }).getAttribute('aria-current')).toBe('page');

      await page.getByRole('heading', { name: 'Current plan: Free' }).waitFor();
      await expect.poll(() => bar(page, 'Members').getAttribute('aria-valuetext')).toBe('1 of 3');
      expect(await bar(page, 'Assets').getAttribute('aria-valuetext')).toBe('1 of 10');
      expect(await bar(page, 'Assets').getAttribute('aria-valuenow')).toBe('10');
      expect(await bar(page, 'Storage').getAttribute('aria-valuetext')).toMatch(/^[\d.]+ k?B of 977 kB$/);
      // No banner: nothing is near a limit.
      expect(await banner(page).count()).toBe(0);

      const card = (id: string) => page.locator(`li[data-plan="${id}"]`);
      expect(await card('free').getByRole('button', { name: 'Current plan' }).isDisabled()).toBe(true);
      expect(await card('pro').innerText()).toContain('EUR 12 / month');
      expect(await card('pro').innerText()).toContain('48 MB storage');
      expect(await card('studio').innerText()).toContain('Unlimited members');
      // Never subscribed: no customer yet, so no billing portal.
      expect(await page.getByRole('button', { name: 'Manage billing' }).count()).toBe(0);
      await screenshot(page, 'billing-free');

      // Upgrade: the browser goes to the Checkout session's URL the fake answered.
      const checkoutUrl = page.waitForRequest((r) => r.url().startsWith('https://checkout.stripe.test/') && r.isNavigationRequest());
      await card('pro').getByRole('button', { name: 'Upgrade to Pro' }).click();
      const target = (await checkoutUrl).url();
      const session = fake.requests.filter((r) => r.path === '/v1/checkout/sessions').at(-1)!;
      expect(target).toMatch(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_/);
      expect(session.body).toMatchObject({ client_reference_id: String(ws), line_items: { '0': { price: 'price_pro' } } });
      await page.waitForURL(target);

      // Stripe confirms, then sends the customer back.
      await completeCheckout(ws, 'price_pro');
      // Stripe fills in {CHECKOUT_SESSION_ID} when it redirects.
      const successUrl = String(session.body.success_url).replace('{CHECKOUT_SESSION_ID}', target.split('/').at(-1)!);
      expect(successUrl).toMatch(new RegExp(`^${base}/settings/${ws}/billing\\?checkout=success(&|$)`));
      await page.goto(successUrl);
      await page.getByRole('heading', { name: 'Current plan: Pro' }).waitFor();
      await page.getByText('Thank you: the workspace is now on the Pro plan.').waitFor();
      await expect.poll(() => new URL(page.url()).search).toBe('');
      expect(await page.getByTestId('plan-status').innerText()).toBe('Active');
      expect(await page.getByText(/^Renews on /).count()).toBe(1);
      expect(await bar(page, 'Members').getAttribute('aria-valuetext')).toBe('1 of 10');
      // Unlimited: said, no bar.
      expect(await page.locator('li[data-kind="assets"]').innerText()).toContain('1 (unlimited)');
      expect(await bar(page, 'Assets').count()).toBe(0);
      expect(await card('pro').getByRole('button', { name: 'Current plan' }).isDisabled()).toBe(true);
      // A live subscription changes plans in the portal, not through a second checkout.
      expect(await card('studio').getByRole('button', { name: 'Upgrade to Studio' }).count()).toBe(0);
      await card('studio').getByRole('button', { name: 'Change to Studio in Manage billing' }).waitFor();
      await screenshot(page, 'billing-pro');

      const portal = page.waitForRequest((r) => r.url().startsWith('https://billing.stripe.test/') && r.isNavigationRequest());
      await page.getByRole('button', { name: 'Manage billing', exact: true }).click();
      expect((await portal).url()).toMatch(/^https:\/\/billing\.stripe\.test\/p\/session\/bps_/);
    } finally {
      await context.close();
    }
  });

  it('says when checkout was canceled, and shows the tab to admins only', async () => {
    const owner = await registerApi(base, 'Ada Lovelace');
    const ws = owner.workspaces[0]!.id;
    const viewer = await registerApi(base, 'Charles Babbage');
    await api('POST', `/workspaces/${ws}/members`, owner, { email: viewer.email, role: 'viewer' });
    const manager = await registerApi(base, 'Mary Somerville');
    await api('POST', `/workspaces/${ws}/members`, owner, { email: manager.email, role: 'manager' });

    const { context, page } = await signedInPage(browser, owner, { width: 390, height: 800 });
    try {
      await page.goto(`${base}/settings/${ws}/billing?checkout=canceled`);
      await page.getByText('Checkout was canceled: nothing was charged and the plan is unchanged.').waitFor();
      await page.getByRole('heading', { name: 'Current plan: Free' }).waitFor();
      // Phone width: nothing wider than the screen.
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      await screenshot(page, 'billing-phone');
    } finally {
      await context.close();
    }

    for (const who of [viewer, manager]) {
      const me = { ...who, workspaces: [{ id: ws, name: owner.workspaces[0]!.name, role: who === viewer ? 'viewer' : 'manager' }] };
      const other = await signedInPage(browser, me);
      try {
        await other.page.goto(`${base}/settings/${ws}`);
        await other.page.getByRole('heading', { name: 'Members' }).waitFor();
        expect(await other.page.getByRole('link', { name: 'Billing' }).count()).toBe(0);
        await other.page.goto(`${base}/settings/${ws}/billing`);
        await other.page.getByText('Only admins of this workspace manage its billing').waitFor();
        expect(await other.page.getByRole('button', { name: /Upgrade/ }).count()).toBe(0);
      } finally {
        await other.context.close();
      }
    }
  });

  it('warns near the storage limit and shows why an upload past it is refused', async () => {
    const owner = await registerApi(base, 'Hedy Lamarr');
    const ws = owner.workspaces[0]!.id;
    const viewer = await registerApi(base, 'George Antheil');
    await api('POST', `/workspaces/${ws}/members`, owner, { email: viewer.email, role: 'viewer' });
    await uploadApi(base, owner.token, ws, { name: 'score.txt', type: 'text/plain', data: new Uint8Array(930_000).fill(65) });
    const used = (await subscription(owner)).usage.storage_bytes;
    expect(used).toBeGreaterThanOrEqual(STORAGE_LIMIT * 0.9);
    expect(used).toBeLessThan(STORAGE_LIMIT);

    const { context, page } = await signedInPage(browser, owner, { width: 390, height: 800 });
    try {
      const payments: string[] = [];
      page.on('request', (r) => {
        if (new URL(r.url()).pathname.startsWith('/payments/')) payments.push(new URL(r.url()).pathname);
      });
      await page.goto(`${base}/library`);
      await page.getByRole('heading', { name: 'All assets' }).waitFor();
      await banner(page).waitFor();
      expect(await banner(page).innerText()).toMatch(/uses 9\d % of its storage limit \(\d+ kB of 977 kB\)/);
      await banner(page).getByRole('link', { name: 'Upgrade or pay in Billing' }).waitFor();
      await screenshot(page, 'billing-banner-phone');
      // The banner asks once per workspace: moving around the app asks nothing more.
      await page.getByRole('link', { name: 'Workspace settings' }).first().click();
      await page.getByRole('heading', { name: 'Members' }).waitFor();
      expect(payments).toEqual(['/payments/subscription']);

      // Past the limit: the failed upload says which limit, in the plan's words.
      await page.goto(`${base}/library`);
      await page.getByRole('heading', { name: 'All assets' }).waitFor();
      await page.locator('input[type=file][multiple]').setInputFiles(fileOf('too-much.bin', 200_000));
      const panel = page.getByRole('region', { name: 'Uploads' });
      const failed = panel.locator('[data-state="failed"]').filter({ hasText: 'too-much.bin' });
      await failed.waitFor({ timeout: 20_000 });
      const reason = await failed.innerText();
      expect(reason).toMatch(/limit/i);
      expect(reason).not.toMatch(/^Failed$/m);
      // Once, in human units: not the server's byte counts beside the plan's line.
      expect(reason).not.toMatch(/bytes are used/);
      expect(await failed.getByTestId('upload-refusal').innerText()).toMatch(/Over the plan's storage limit: \d+ kB used, this file needs 195 kB\./);
      await failed.getByRole('link', { name: 'See plans' }).waitFor();
      await screenshot(page, 'billing-upload-refused-phone');
    } finally {
      await context.close();
    }

    // A viewer sees the banner too, without the link to a tab they do not have.
    const me = { ...viewer, workspaces: [{ id: ws, name: owner.workspaces[0]!.name, role: 'viewer' }] };
    const other = await signedInPage(browser, me);
    try {
      await other.page.goto(`${base}/library`);
      await banner(other.page).waitFor();
      expect(await banner(other.page).innerText()).toContain('An admin of the workspace can change its plan.');
      expect(await banner(other.page).getByRole('link').count()).toBe(0);
    } finally {
      await other.context.close();
    }
  });
});

describe.skipIf(!hasChromium)('billing with payments off, in chromium', () => {
  let browser: Browser;
  let base: string;
  let owner: Session;

  // The default test config has no Stripe key: payments are off.
  useBrowserSuite(async (suite) => {
    ({ browser, base } = suite);
    owner = await registerApi(base, 'Linus Torvalds');
  });

  it('shows no Billing tab, no banner and asks the server once', async () => {
    const { context, page } = await signedInPage(browser, owner);
    try {
      const payments: number[] = [];
      page.on('response', (r) => {
        if (new URL(r.url()).pathname.startsWith('/payments/')) payments.push(r.status());
      });
      await page.goto(`${base}/library`);
      await page.getByRole('heading', { name: 'All assets' }).waitFor();
      await page.getByRole('link', { name: 'Workspace settings' }).first().click();
      await page.getByRole('heading', { name: 'Members' }).waitFor();
      const tabs = page.getByRole('navigation', { name: 'Workspace settings' });
      await tabs.getByRole('link', { name: 'Shared links' }).waitFor();
      expect(await tabs.getByRole('link', { name: 'Billing' }).count()).toBe(0);
      await page.getByRole('button', { name: /^Account:/ }).click();
      expect(await page.getByRole('menuitem', { name: 'Billing' }).count()).toBe(0);
      await tabs.getByRole('link', { name: 'Shared links' }).click();
      await page.getByRole('heading', { name: 'Shared links' }).waitFor();
      expect(await page.getByRole('status', { name: 'Plan limits' }).count()).toBe(0);
      // The one 404 PAYMENTS_DISABLED is remembered for the page load.
      expect(payments).toEqual([404]);
    } finally {
      await context.close();
    }
  });
});
