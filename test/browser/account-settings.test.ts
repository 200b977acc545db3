import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { hasChromium, registerApi, screenshot, screenshotVariants, signedInPage, useBrowserSuite } from './harness.js';

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

  // Issue #29: the language switch applies at once, is stored on the user, and wins over the browser's language.
  it('switches to German at once, keeps it after a reload and on another device', async () => {
    const owner = await registerApi(base, 'Sprach Wechsler');
    const { context, page } = await signedInPage(browser, owner);
    try {
      await page.goto(`${base}/settings/account`);
      await page.getByRole('heading', { name: 'Account settings' }).waitFor();
      await expect(page.locator('html').getAttribute('lang')).resolves.toBe('en');
      const select = page.getByLabel('Language of DAM');
      // Each language is named in its own words.
      await expect(select.locator('option').allTextContents()).resolves.toEqual(['English', 'Deutsch', 'Français', 'Español']);
      await select.selectOption({ label: 'Deutsch' });
      await page.getByRole('heading', { name: 'Kontoeinstellungen' }).waitFor();
      await page.getByText('Sprache gespeichert').waitFor();
      const res = await fetch(`${base}/auth/me`, { headers: { authorization: `Bearer ${owner.token}` } });
      expect(((await res.json()) as { user: { locale: string | null } }).user.locale).toBe('de');

      await page.reload();
      await page.getByRole('heading', { name: 'Kontoeinstellungen' }).waitFor();
      await expect(page.locator('html').getAttribute('lang')).resolves.toBe('de');
      await expect(page.title()).resolves.toBe('Kontoeinstellungen · DAM');
      await page.getByRole('heading', { name: 'Passwort' }).waitFor();
      await page.getByRole('heading', { name: 'Sitzungen' }).waitFor();
      await expect(page.getByRole('button', { name: 'Speichern' }).isVisible()).resolves.toBe(true);
      // The phone hint names the browser's country (en-GB) in German.
      await expect.poll(() => page.locator('#account-phone-feedback').textContent()).toContain('Inlandsnummer (Vereinigtes Königreich)');
      await screenshotVariants(page, 'account-language-de', () => page.getByRole('heading', { name: 'Kontoeinstellungen' }).waitFor());
    } finally {
      await context.close();
    }

    // Another browser (still an en-GB one) signed in as the same user: German once the account is read.
    const other = await signedInPage(browser, owner);
    try {
      await other.page.goto(`${base}/settings/account`);
      await other.page.getByRole('heading', { name: 'Kontoeinstellungen' }).waitFor();
      // Back to English, and the menu follows.
      await other.page.getByLabel('Sprache von DAM').selectOption({ label: 'English' });
      await other.page.getByRole('heading', { name: 'Account settings' }).waitFor();
      await other.page.getByRole('button', { name: /Account/ }).click();
      await other.page.getByRole('menuitem', { name: 'Sign out' }).waitFor();
    } finally {
      await other.context.close();
    }
  });

  it('follows the browser language before sign-in', async () => {
    const context = await browser.newContext({ locale: 'fr-FR' });
    try {
      const page = await context.newPage();
      await page.goto(`${base}/login`);
      await page.getByRole('heading', { name: 'Connexion' }).waitFor();
      await expect(page.locator('html').getAttribute('lang')).resolves.toBe('fr');
      await expect(page.getByLabel('Mot de passe').isVisible()).resolves.toBe(true);
      // A wrong password: the server's stable code, in French.
      await page.getByLabel('E-mail').fill('nobody@example.test');
      await page.getByLabel('Mot de passe').fill('not the password');
      await page.getByRole('button', { name: 'Se connecter', exact: true }).click();
      await page.getByRole('alert').getByText('L’e-mail ou le mot de passe est incorrect.').waitFor();
    } finally {
      await context.close();
    }
  });
});
