import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  type BrowserApp,
  hasChromium,
  newPage,
  registerApi,
  screenshot,
  useBrowserSuite,
} from './harness.js';

describe.skipIf(!hasChromium)('signing in, in chromium', () => {
  let browser: Browser;
  let env: BrowserApp;
  let base: string;
  useBrowserSuite(async (suite) => {
    ({ browser, env, base } = suite);
  });

  it('registers, signs out and signs in again with the keyboard', async () => {
    const { context, page } = await newPage(browser);
    try {
      await page.goto(`${base}/`);
      await page.waitForURL((u) => u.pathname === '/login' && u.searchParams.get('redirect') === '/library');
      await page.getByRole('link', { name: 'Create an account' }).click();
      await page.waitForURL('**/register**');
      await page.getByLabel('Name').fill('Ada Lovelace');
      await page.getByLabel('E-mail').fill('ada@example.test');
      await page.getByLabel('Password').fill('short');
      await screenshot(page, 'register');
      await expect(page.getByRole('button', { name: 'Create account' }).isDisabled()).resolves.toBe(true);
      await page.getByLabel('Password').fill('correct horse battery');
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.waitForURL('**/library**');
      await page.getByRole('heading', { name: 'All assets' }).waitFor();
      await expect(page.locator('#workspace-switcher option:checked').textContent()).resolves.toContain("Ada Lovelace's workspace");

      await page.getByRole('button', { name: /Account/ }).click();
      await page.getByRole('menuitem', { name: 'Sign out' }).click();
      await page.waitForURL('**/login');
      // The old session is gone: the library sends back to sign-in.
      await page.goto(`${base}/library`);
      await page.waitForURL((u) => u.pathname === '/login' && u.searchParams.get('redirect') === '/library');

      await page.getByLabel('E-mail').fill('ada@example.test');
      await page.getByLabel('Password').fill('wrong password');
      await page.keyboard.press('Enter');
      await page.getByRole('alert').filter({ hasText: 'E-mail or password is wrong' }).waitFor();
      await screenshot(page, 'login-error');

      // Keyboard only: the e-mail field has focus on arrival, Tab reaches the password, Enter submits.
      await page.goto(`${base}/login`);
      await expect.poll(() => page.evaluate<string | undefined>('document.activeElement?.id')).toBe('login-email');
      await page.keyboard.type('ada@example.test');
      await page.keyboard.press('Tab');
      await page.keyboard.type('correct horse battery');
      await screenshot(page, 'login');
      await page.keyboard.press('Enter');
      await page.waitForURL('**/library');
      await page.getByRole('heading', { name: 'All assets' }).waitFor();
    } finally {
      await context.close();
    }
  });

  it('signs in with Google and lands on the page the user wanted', async () => {
    const owner = await registerApi(base, 'Grace Hopper');
    env.google.setAuthorizeAccount({ sub: '110000000000000000042', email: owner.email, email_verified: true, name: 'Grace Hopper' });
    const { context, page } = await newPage(browser);
    try {
      const wanted = `/settings/${owner.workspaces[0]!.id}`;
      await page.goto(`${base}${wanted}`);
      await page.waitForURL((u) => u.pathname === '/login' && u.searchParams.get('redirect') === wanted);
      await page.getByRole('button', { name: 'Sign in with Google' }).click();
      await page.waitForURL(`${env.google.baseUrl}/o/oauth2/v2/auth?**`);
      await screenshot(page, 'google-account-chooser');
      await page.click('#account');
      await page.waitForURL(`**${wanted}`);
      await page.getByRole('heading', { name: "Grace Hopper's workspace" }).waitFor();
      // The verified e-mail linked the Google account to the existing one; the token left the address bar.
      await expect(page.getByText(owner.email).count()).resolves.toBeGreaterThan(0);
      expect(page.url()).not.toContain('access_token');
      await screenshot(page, 'workspace-settings');
    } finally {
      await context.close();
    }
  });

  it('refuses a replayed Google token with a message, then shows the sign-in page', async () => {
    const token = env.google.issueToken({ sub: '110000000000000000043', email: 'replay@example.test', name: 'Re Play' });
    const first = await fetch(`${base}/auth/social/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ access_token: token, provider: 'google' }),
    });
    expect(first.status).toBe(200);
    const { context, page } = await newPage(browser);
    try {
      await page.goto(`${base}/social-login?access_token=${encodeURIComponent(token)}`);
      await page.getByRole('alert').filter({ hasText: 'already used' }).waitFor();
      expect(page.url()).toBe(`${base}/social-login`);
      await screenshot(page, 'social-login-replayed');
      await page.waitForURL((u) => u.pathname === '/login', { timeout: 10_000 });
      await page.getByRole('alert').filter({ hasText: 'already used' }).waitFor();
    } finally {
      await context.close();
    }
  });

  it('shows the provider error when Google refuses, then shows the sign-in page', async () => {
    env.google.deny = { error: 'access_denied', error_description: 'The user did not grant access' };
    const { context, page } = await newPage(browser);
    try {
      await page.goto(`${base}/login`);
      await page.getByRole('button', { name: 'Sign in with Google' }).click();
      await page.click('#account');
      await page.getByRole('alert').filter({ hasText: 'The user did not grant access' }).waitFor();
      await screenshot(page, 'social-login-provider-error');
      await page.getByRole('button', { name: 'Back to sign in now' }).click();
      await page.waitForURL((u) => u.pathname === '/login');
      await page.getByRole('alert').filter({ hasText: 'The user did not grant access' }).waitFor();
    } finally {
      env.google.deny = null;
      await context.close();
    }
  });

  it('offers Retry after a network error, and Retry signs in', async () => {
    const token = env.google.issueToken({ sub: '110000000000000000044', email: 'net@example.test', name: 'Net Work' });
    const { context, page } = await newPage(browser);
    try {
      let dropped = 0;
      await page.route('**/auth/social/callback', async (route) => {
        if (dropped++ === 0) return route.abort('internetdisconnected');
        return route.continue();
      });
      await page.goto(`${base}/social-login?access_token=${encodeURIComponent(token)}`);
      await page.getByRole('alert').filter({ hasText: 'could not reach the server' }).waitFor();
      await screenshot(page, 'social-login-network-error');
      await page.getByRole('button', { name: 'Retry' }).click();
      await page.waitForURL('**/library');
      await page.getByRole('heading', { name: 'All assets' }).waitFor();
      await expect(page.locator('#workspace-switcher option:checked').textContent()).resolves.toContain("Net Work's workspace");
      expect(dropped).toBe(2);
    } finally {
      await context.close();
    }
  });
});
