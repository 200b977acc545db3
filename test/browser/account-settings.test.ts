import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { hasChromium, registerApi, screenshot, signedInPage, useBrowserSuite } from './harness.js';

/** The account settings page (issue #13): the phone number, checked as it is typed, saved in E.164. */
describe.skipIf(!hasChromium)('account settings, in chromium', () => {
  let browser: Browser;
  let base: string;
  useBrowserSuite(async (suite) => {
    ({ browser, base } = suite);
  });

  async function storedPhone(token: string): Promise<string | null> {
    const res = await fetch(`${base}/auth/me`, { headers: { authorization: `Bearer ${token}` } });
    return ((await res.json()) as { user: { phone: string | null } }).user.phone;
  }

  it('checks the phone number while it is typed, saves it in E.164 and removes it again', async () => {
    const owner = await registerApi(base, 'Phone Owner');
    const { context, page } = await signedInPage(browser, owner);
    const checks: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/phone-number/validate')) checks.push(request.postData() ?? '');
    });
    try {
      // Reached from the account menu.
      await page.goto(`${base}/library`);
      await page.getByRole('button', { name: /Account/ }).click();
      await page.getByRole('menuitem', { name: 'Account settings' }).click();
      await page.waitForURL('**/settings/account');
      await page.getByRole('heading', { name: 'Account settings' }).waitFor();

      const field = page.getByLabel('Phone number');
      const feedback = page.locator('#account-phone-feedback');
      const save = page.getByRole('button', { name: 'Save' });
      // The browser speaks en-GB: a number without + is read as a UK number.
      await expect.poll(() => feedback.textContent()).toContain('or as a number of United Kingdom');
      await expect(save.isDisabled()).resolves.toBe(true);

      // Typed at a person's pace: checked once typing pauses, not on every key.
      await field.pressSequentially('020 7946', { delay: 40 });
      await expect.poll(() => feedback.textContent()).toContain('not a number in use');
      await expect(field.getAttribute('aria-invalid')).resolves.toBe('true');
      await expect(save.isDisabled()).resolves.toBe(true);
      expect(checks.length).toBeLessThan(3);
      expect(checks.at(-1)).toBe(JSON.stringify({ number: '020 7946', country: 'GB' }));
      await screenshot(page, 'account-phone-invalid');

      await field.pressSequentially(' 0958', { delay: 40 });
      await expect.poll(() => feedback.textContent()).toContain('+44 20 7946 0958');
      await expect(feedback.textContent()).resolves.toContain('landline');
      await expect(field.getAttribute('aria-invalid')).resolves.toBe('false');
      await screenshot(page, 'account-phone-valid');
      await save.click();
      await page.getByText('Account saved').waitFor();
      expect(await storedPhone(owner.token)).toBe('+442079460958');

      // Shown again after a reload; too short a number cannot be saved.
      await page.reload();
      await expect.poll(() => field.inputValue()).toBe('+442079460958');
      await expect.poll(() => feedback.textContent()).toContain('+44 20 7946 0958');
      await field.fill('+44 12');
      await expect.poll(() => feedback.textContent()).toContain('Too short');
      await expect(save.isDisabled()).resolves.toBe(true);

      // An empty field removes the number.
      await field.fill('');
      await expect.poll(() => feedback.textContent()).toContain('Optional');
      await save.click();
      await page.getByText('Account saved').waitFor();
      expect(await storedPhone(owner.token)).toBeNull();
    } finally {
      await context.close();
    }
  });

  it('renames the account, and the menu shows the new name', async () => {
    const owner = await registerApi(base, 'Old Name');
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/settings/account`);
      await page.getByLabel('Name', { exact: true }).fill('New Name');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Account saved').waitFor();
      await expect.poll(() => page.getByRole('button', { name: /Account/ }).getAttribute('aria-label')).toBe('Account: New Name');
    } finally {
      await context.close();
    }
  });
});
