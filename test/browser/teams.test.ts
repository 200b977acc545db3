import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtp, type TestSmtp } from '../helpers/smtp.js';
import { hasChromium, newPage, registerApi, screenshot, screenshotVariants, type Session, signedInPage, useBrowserSuite } from './harness.js';

const PASSWORD = 'correct horse battery';

const fourShots = (page: Page, name: string, ready?: () => Promise<unknown>) => screenshotVariants(page, `teams-${name}`, ready);

/**
 * Issue #27 in the web client (docs/features/teams.md): invitations from a workspace's settings and the invitee's page,
 * instance administration (/settings/users), the account's password and sessions, and what a session the server
 * ended does to an open page. No SMTP: links are copied from the dialogs.
 */
describe.skipIf(!hasChromium)('teams: invitations, user administration, account security, in chromium', () => {
  let browser: Browser;
  let base: string;
  /** The first account of the instance: its instance admin. */
  let admin: Session & { email: string; password: string };
  let ws: number;
  let wsName: string;

  async function api<T>(method: string, path: string, body?: unknown, token = admin.token): Promise<{ status: number; data: T }> {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json().catch(() => ({}))) as { data?: T };
    return { status: res.status, data: json.data as T };
  }

  /** Another session of an account (its own token), as a sign-in on another device makes. */
  async function loginApi(email: string, password: string): Promise<Session> {
    const res = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
    if (res.status !== 200) throw new Error(`login: ${res.status} ${await res.text()}`);
    return (await res.json()) as Session;
  }

  useBrowserSuite(async (suite) => {
    ({ browser, base } = suite);
    admin = await registerApi(base, 'Ada Admin');
    ws = admin.workspaces[0]!.id;
    wsName = admin.workspaces[0]!.name;
  });

  it('invites by e-mail from the workspace settings; the invitee creates an account from the copied link and lands in the workspace as a viewer', async () => {
    const invitee = `vera.viewer.${Date.now().toString(36)}@example.test`;
    const other = `olga.other.${Date.now().toString(36)}@example.test`;
    const existing = await registerApi(base, 'Max Manager');
    const { context, page } = await signedInPage(browser, admin);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    const guest = await newPage(browser);
    try {
      await page.goto(`${base}/settings/${ws}`);
      const pending = page.getByRole('region', { name: 'Pending invitations' });
      await pending.getByText('No pending invitations').waitFor();
      await screenshot(page, 'teams-settings-no-invitations');

      // Someone with an account is added at once.
      await page.getByLabel('E-mail').fill(existing.email);
      await page.getByLabel('Role', { exact: true }).selectOption('manager');
      await page.getByRole('button', { name: 'Invite', exact: true }).click();
      await page.getByText('Max Manager was added as a manager').waitFor();
      await page.getByRole('cell', { name: /^Max Manager/ }).waitFor();

      // Anyone else gets an invitation: its link in a dialog, to copy (no e-mail on this server).
      await page.getByLabel('E-mail').fill(invitee);
      await page.getByLabel('Role', { exact: true }).selectOption('viewer');
      await page.getByRole('button', { name: 'Invite', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Invitation created' });
      await dialog.waitFor();
      await dialog.getByText('It was not e-mailed').waitFor();
      await dialog.getByRole('button', { name: 'Copy link' }).click();
      await dialog.getByRole('button', { name: 'Copied' }).waitFor();
      const firstLink = await page.evaluate<string>('navigator.clipboard.readText()');
      expect(firstLink).toMatch(new RegExp(`^${base}/invite/[A-Za-z0-9_-]{20,}$`));
      expect(await dialog.getByLabel('Invitation link').inputValue()).toBe(firstLink);
      await fourShots(page, 'invite-link-dialog');
      await dialog.getByRole('button', { name: 'Done' }).click();

      // Listed as pending; Resend makes a new link and the first one stops working.
      const row = pending.getByRole('row').filter({ hasText: invitee });
      await expect.poll(() => row.textContent()).toContain('Viewer');
      await expect(row.textContent()).resolves.toContain('in 7 days');
      await row.getByRole('button', { name: 'Resend' }).click();
      const resent = page.getByRole('dialog', { name: 'A new invitation link' });
      const link = await resent.getByLabel('Invitation link').inputValue();
      expect(link).not.toBe(firstLink);
      await resent.getByRole('button', { name: 'Done' }).click();

      // A second invitation, revoked after confirming.
      await page.getByLabel('E-mail').fill(other);
      await page.getByRole('button', { name: 'Invite', exact: true }).click();
      await page.getByRole('dialog', { name: 'Invitation created' }).getByRole('button', { name: 'Done' }).click();
      await expect.poll(() => pending.getByRole('row').count()).toBe(3);
      await fourShots(page, 'settings-pending-invitations', () => pending.getByText(other).waitFor());
      await pending.getByRole('row').filter({ hasText: other }).getByRole('button', { name: 'Revoke' }).click();
      const confirm = page.getByRole('dialog', { name: `Revoke the invitation to ${other}?` });
      await confirm.getByRole('button', { name: 'Revoke' }).click();
      await page.getByText(`The invitation to ${other} was revoked`).waitFor();
      await expect.poll(() => pending.getByRole('row').count()).toBe(2);

      // The first link no longer works: a clear message and a way to sign in.
      await guest.page.goto(firstLink);
      await guest.page.getByRole('heading', { name: 'Invitation not valid' }).waitFor();
      await guest.page.getByText('does not work any more').waitFor();
      await expect(guest.page.getByRole('link', { name: 'Sign in' }).first().getAttribute('href')).resolves.toBe('/login');
      await fourShots(guest.page, 'invite-invalid');

      // The new one: who invites, to what, as what; the account is made with a name and a password.
      await guest.page.goto(link);
      await guest.page.getByRole('heading', { name: `Join ${wsName}` }).waitFor();
      await guest.page.getByText('Ada Admin invited you').waitFor();
      await expect(guest.page.getByText('as a viewer').count()).resolves.toBe(1);
      expect(await guest.page.getByLabel('E-mail').inputValue()).toBe(invitee);
      const signIn = guest.page.getByRole('link', { name: 'Sign in' });
      await expect(signIn.getAttribute('href')).resolves.toBe(`/login?redirect=${new URL(link).pathname}`);
      await fourShots(guest.page, 'invite-signed-out');
      await guest.page.getByLabel('Name').fill('Vera Viewer');
      await guest.page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await guest.page.getByLabel('Confirm password').fill('something else');
      await guest.page.getByText('The two passwords differ.').waitFor();
      await expect(guest.page.getByRole('button', { name: 'Create account and join' }).isDisabled()).resolves.toBe(true);
      await guest.page.getByLabel('Confirm password').fill(PASSWORD);
      await guest.page.getByRole('button', { name: 'Create account and join' }).click();
      await guest.page.waitForURL((u) => u.pathname === '/library' && u.searchParams.get('ws') === String(ws));
      await guest.page.getByRole('heading', { name: 'All assets' }).waitFor();
      await expect(guest.page.locator('#workspace-switcher option:checked').textContent()).resolves.toContain(wsName);
      // A viewer uploads nothing and makes no folders.
      await expect(guest.page.getByRole('button', { name: 'Upload' }).count()).resolves.toBe(0);
      await expect(guest.page.getByRole('button', { name: 'New folder' }).count()).resolves.toBe(0);
      await screenshot(guest.page, 'teams-invitee-library');

      // The used link is no longer valid; the admin sees the new member and no pending invitation.
      await guest.page.goto(link);
      await guest.page.getByRole('heading', { name: 'Invitation not valid' }).waitFor();
      await page.reload();
      await page.getByRole('cell', { name: /^Vera Viewer/ }).waitFor();
      await pending.getByText('No pending invitations').waitFor();
    } finally {
      await guest.context.close();
      await context.close();
    }
  });

  it('an invitation opened while signed in joins with that account, and says so when it is another one', async () => {
    const invited = await registerApi(base, 'Jo Joiner');
    // An invitation to an e-mail without an account, made over the API; then the account is registered.
    const email = `late.${Date.now().toString(36)}@example.test`;
    const made = await api<{ url: string }>('POST', `/workspaces/${ws}/invitations`, { email, role: 'manager' });
    expect(made.status).toBe(201);
    const late = await (async () => {
      const res = await fetch(`${base}/auth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD, name: 'Lee Late' }) });
      return { ...((await res.json()) as Session), email, password: PASSWORD };
    })();

    // Another account: told the invitation is for someone else.
    const wrong = await signedInPage(browser, invited);
    try {
      await wrong.page.goto(made.data.url);
      await wrong.page.getByText(`but this invitation is for ${email}`).waitFor();
      await expect(wrong.page.getByRole('button', { name: `Join ${wsName}` }).count()).resolves.toBe(0);
      await screenshot(wrong.page, 'teams-invite-other-account');
    } finally {
      await wrong.context.close();
    }

    // Signed out with an existing account: sign in, come back, join.
    const { context, page } = await newPage(browser);
    try {
      await page.goto(made.data.url);
      await page.getByText(`An account with ${email} exists already`).waitFor();
      await page.getByRole('link', { name: 'Sign in to join' }).click();
      await page.waitForURL('**/login?redirect=**');
      await page.getByLabel('E-mail').fill(late.email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.waitForURL((u) => u.pathname === new URL(made.data.url).pathname);
      await page.getByRole('button', { name: `Join ${wsName}` }).click();
      await page.waitForURL((u) => u.pathname === '/library' && u.searchParams.get('ws') === String(ws));
      await page.getByText(`You joined ${wsName} as a manager`).waitFor();
      await page.getByRole('button', { name: 'Upload' }).waitFor();
    } finally {
      await context.close();
    }
  });

  it('an instance admin disables a user from the users page; the user, on their next action, is sent to sign in with a message', async () => {
    const victim = await registerApi(base, 'Dan Disabled');
    const user = await signedInPage(browser, victim);
    const { context, page } = await signedInPage(browser, admin);
    try {
      await user.page.goto(`${base}/library`);
      await user.page.getByRole('heading', { name: 'All assets' }).waitFor();

      // Reached from the account menu, shown to instance admins only.
      await page.goto(`${base}/library`);
      await page.getByRole('button', { name: /Account/ }).click();
      await page.getByRole('menuitem', { name: 'Users and registration' }).click();
      await page.waitForURL('**/settings/users');
      await page.getByRole('heading', { name: 'Users', exact: true }).waitFor();
      await page.getByRole('row').filter({ hasText: admin.email }).getByText('Instance admin').waitFor();
      await fourShots(page, 'admin-users');

      await page.getByLabel('Search users').fill('dan disabled');
      await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
      const row = page.getByRole('row').filter({ hasText: victim.email });
      await row.getByRole('button', { name: 'Actions for Dan Disabled' }).click();
      await screenshot(page, 'teams-admin-users-menu');
      await row.getByRole('menuitem', { name: 'Disable account' }).click();
      const confirm = page.getByRole('dialog', { name: 'Disable Dan Disabled?' });
      await confirm.getByRole('button', { name: 'Disable account' }).click();
      await page.getByText('Dan Disabled was disabled and signed out').waitFor();
      await row.getByText('Disabled', { exact: true }).waitFor();

      // The user's next action (opening the workspace settings) finds the session ended.
      await user.page.getByRole('link', { name: 'Workspace settings' }).click();
      await user.page.waitForURL((u) => u.pathname === '/login' && u.searchParams.get('expired') === '1');
      await user.page.getByText('Your session has ended. Sign in again to continue.').waitFor();
      await fourShots(user.page, 'session-ended');
      // Signing in again is refused while disabled.
      await user.page.getByLabel('E-mail').fill(victim.email);
      await user.page.getByLabel('Password').fill(victim.password);
      await user.page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await user.page.getByRole('alert').waitFor();
      expect(new URL(user.page.url()).pathname).toBe('/login');

      // Enabled again, they can sign in.
      await row.getByRole('button', { name: 'Actions for Dan Disabled' }).click();
      await row.getByRole('menuitem', { name: 'Enable account' }).click();
      await page.getByText('Dan Disabled can sign in again').waitFor();
      await user.page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await user.page.waitForURL((u) => u.pathname.startsWith('/settings/'));
    } finally {
      await user.context.close();
      await context.close();
    }
  });

  it('an instance admin creates accounts (a setup link, "Set your password"; a temporary password, to change first), hands out a password link, deletes', async () => {
    const { context, page } = await signedInPage(browser, admin);
    const guest = await newPage(browser);
    const stamp = Date.now().toString(36);
    try {
      await page.goto(`${base}/settings/users`);
      await page.getByRole('button', { name: 'Create user' }).click();
      let dialog = page.getByRole('dialog', { name: 'Create a user' });
      await dialog.getByLabel('E-mail').fill(`sam.setup.${stamp}@example.test`);
      await dialog.getByLabel('Name').fill('Sam Setup');
      await fourShots(page, 'admin-create-user');
      await dialog.getByRole('button', { name: 'Create user' }).click();
      const linkDialog = page.getByRole('dialog', { name: 'Sam Setup can set up their account' });
      const setupLink = await linkDialog.getByLabel('Link').inputValue();
      expect(setupLink).toMatch(new RegExp(`^${base}/reset-password\\?token=`));
      await screenshot(page, 'teams-admin-setup-link');
      await linkDialog.getByRole('button', { name: 'Done' }).click();
      await page.getByRole('row').filter({ hasText: 'Sam Setup' }).getByText('No password').waitFor();

      await guest.page.goto(setupLink);
      await guest.page.getByRole('heading', { name: 'Set your password' }).waitFor();
      expect(await guest.page.getByLabel('E-mail').inputValue()).toBe(`sam.setup.${stamp}@example.test`);
      await fourShots(guest.page, 'reset-password-setup');
      await guest.page.getByLabel('New password', { exact: true }).fill(PASSWORD);
      await guest.page.getByLabel('Confirm new password').fill(PASSWORD);
      await guest.page.getByRole('button', { name: 'Set password and sign in' }).click();
      await guest.page.waitForURL('**/library**');
      await guest.page.getByRole('heading', { name: 'All assets' }).waitFor();
      await guest.page.getByRole('button', { name: /Account/ }).click();
      await guest.page.getByRole('menuitem', { name: 'Sign out' }).click();
      await guest.page.waitForURL('**/login');
      // Used once: the link is spent.
      await guest.page.goto(setupLink);
      await guest.page.getByRole('heading', { name: 'Link not valid' }).waitFor();

      // A temporary password: every page leads to the account settings until it is changed.
      await page.getByRole('button', { name: 'Create user' }).click();
      dialog = page.getByRole('dialog', { name: 'Create a user' });
      await dialog.getByLabel('E-mail').fill(`tim.temp.${stamp}@example.test`);
      await dialog.getByLabel('Name').fill('Tim Temp');
      await dialog.getByText('Set a temporary password').click();
      await dialog.getByLabel('Temporary password', { exact: true }).fill('temporary pass 1');
      await dialog.getByRole('button', { name: 'Create user' }).click();
      await page.getByText('Tim Temp was created').waitFor();
      await page.getByRole('row').filter({ hasText: 'Tim Temp' }).getByText('Temporary password', { exact: true }).waitFor();

      await guest.page.goto(`${base}/login`);
      await guest.page.getByLabel('E-mail').fill(`tim.temp.${stamp}@example.test`);
      await guest.page.getByLabel('Password').fill('temporary pass 1');
      await guest.page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await guest.page.waitForURL('**/settings/account');
      await guest.page.getByText('Choose a new password to continue').waitFor();
      await fourShots(guest.page, 'account-must-change', () => guest.page.getByLabel('Current password').waitFor());
      await guest.page.goto(`${base}/library`);
      await guest.page.waitForURL('**/settings/account');
      await guest.page.getByLabel('Current password').fill('temporary pass 1');
      await guest.page.getByLabel('New password', { exact: true }).fill(PASSWORD);
      await guest.page.getByLabel('Confirm new password').fill(PASSWORD);
      await guest.page.getByRole('button', { name: 'Change password' }).click();
      await guest.page.waitForURL('**/library');
      await guest.page.getByRole('heading', { name: 'All assets' }).waitFor();

      // A new password link for someone who lost theirs; making an instance admin.
      await page.reload();
      const tim = page.getByRole('row').filter({ hasText: 'Tim Temp' });
      await tim.getByRole('button', { name: 'Actions for Tim Temp' }).click();
      await tim.getByRole('menuitem', { name: 'New password link' }).click();
      const passwordDialog = page.getByRole('dialog', { name: 'A password link for Tim Temp' });
      expect(await passwordDialog.getByLabel('Link').inputValue()).toMatch(new RegExp(`^${base}/reset-password\\?token=`));
      await passwordDialog.getByRole('button', { name: 'Done' }).click();
      await tim.getByRole('button', { name: 'Actions for Tim Temp' }).click();
      await tim.getByRole('menuitem', { name: 'Make instance admin' }).click();
      await page.getByText('Tim Temp is now an instance admin').waitFor();
      await tim.getByText('Instance admin', { exact: true }).waitFor();

      // Deleting an account: the workspace only it administers goes to the user chosen.
      const sam = page.getByRole('row').filter({ hasText: 'Sam Setup' });
      await sam.getByRole('button', { name: 'Actions for Sam Setup' }).click();
      await sam.getByRole('menuitem', { name: 'Delete account…' }).click();
      const remove = page.getByRole('dialog', { name: 'Delete Sam Setup?' });
      await remove.getByLabel('Who takes over').selectOption({ label: `Tim Temp (tim.temp.${stamp}@example.test)` });
      await screenshot(page, 'teams-admin-delete-user');
      await remove.getByRole('button', { name: 'Delete account' }).click();
      await page.getByText('Sam Setup was deleted (1 workspace handed over)').waitFor();
      await expect.poll(() => sam.count()).toBe(0);
    } finally {
      await guest.context.close();
      await context.close();
    }
  });

  it('a password change ends the other sessions: the other browser, on its next action, is sent to sign in', async () => {
    const owner = await registerApi(base, 'Pat Password');
    const other = await loginApi(owner.email, owner.password);
    const here = await signedInPage(browser, owner);
    const there = await signedInPage(browser, other);
    try {
      await there.page.goto(`${base}/library`);
      await there.page.getByRole('heading', { name: 'All assets' }).waitFor();

      await here.page.goto(`${base}/settings/account`);
      const sessions = here.page.getByRole('list', { name: 'Sessions' });
      await expect.poll(() => sessions.getByRole('listitem').count()).toBe(2);
      await sessions.getByRole('listitem').filter({ hasText: 'This device' }).waitFor();
      await fourShots(here.page, 'account-security', () => sessions.getByRole('listitem').first().waitFor());

      await here.page.getByLabel('Current password').fill(owner.password);
      await here.page.getByLabel('New password', { exact: true }).fill('a brand new password');
      await here.page.getByLabel('Confirm new password').fill('a brand new password');
      await here.page.getByRole('button', { name: 'Change password' }).click();
      await here.page.getByText('Password changed; 1 other session was signed out').waitFor();
      await expect.poll(() => sessions.getByRole('listitem').count()).toBe(1);

      // The other browser's next action: opening its account settings.
      await there.page.getByRole('button', { name: /Account/ }).click();
      await there.page.getByRole('menuitem', { name: 'Account settings' }).click();
      await there.page.waitForURL((u) => u.pathname === '/login' && u.searchParams.get('expired') === '1');
      await there.page.getByText('Your session has ended').waitFor();
      await there.page.getByLabel('E-mail').fill(owner.email);
      await there.page.getByLabel('Password').fill('a brand new password');
      await there.page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await there.page.waitForURL('**/settings/account');

      // Sign out one session from the list; then every other one.
      await here.page.reload();
      await expect.poll(() => sessions.getByRole('listitem').count()).toBe(2);
      await sessions.getByRole('listitem').filter({ hasNotText: 'This device' }).getByRole('button', { name: 'Sign out' }).click();
      await expect.poll(() => sessions.getByRole('listitem').count()).toBe(1);
      const third = await loginApi(owner.email, 'a brand new password');
      await here.page.reload();
      await expect.poll(() => sessions.getByRole('listitem').count()).toBe(2);
      await here.page.getByRole('button', { name: 'Sign out all other sessions' }).click();
      await here.page.getByText('1 other session was signed out', { exact: true }).waitFor();
      expect((await api('GET', '/auth/me', undefined, third.token)).status).toBe(401);
    } finally {
      await here.context.close();
      await there.context.close();
    }
  });

  it('sign-in pages follow the registration mode; without e-mail there is no "Forgot password?"', async () => {
    const { context, page } = await signedInPage(browser, admin);
    const guest = await newPage(browser);
    try {
      // No SMTP on this server: no reset by e-mail.
      await guest.page.goto(`${base}/login`);
      await guest.page.getByRole('link', { name: 'Create an account' }).waitFor();
      await expect(guest.page.getByRole('link', { name: 'Forgot password?' }).count()).resolves.toBe(0);
      await guest.page.goto(`${base}/forgot-password`);
      await guest.page.getByText('This instance does not send e-mail').waitFor();
      await fourShots(guest.page, 'forgot-password');

      await page.goto(`${base}/settings/users`);
      const registration = page.getByRole('region', { name: 'Registration' });
      await registration.getByText('E-mail is not set up on this server').waitFor();
      await registration.getByLabel(/E-mail domains/).first().check();
      await expect(registration.getByRole('button', { name: 'Save' }).isDisabled()).resolves.toBe(true);
      await registration.getByRole('textbox', { name: 'E-mail domains' }).fill('Example.org\n@example.net');
      await registration.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Registration settings saved').waitFor();
      expect((await api<{ registration_domains: string[] }>('GET', '/admin/settings')).data.registration_domains.sort()).toEqual(['example.net', 'example.org']);
      await guest.page.goto(`${base}/register`);
      await guest.page.getByText(/You can create an account with an e-mail address at @example\.(org|net) or @example\.(org|net)\./).waitFor();
      await guest.page.getByLabel('Name').waitFor();

      await registration.getByLabel(/Invitation only/).check();
      await registration.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Registration settings saved').first().waitFor();
      await expect.poll(async () => (await api<{ registration_mode: string }>('GET', '/admin/settings')).data.registration_mode).toBe('invite');
      await guest.page.goto(`${base}/register`);
      await guest.page.getByText('Ask a workspace admin to invite you').waitFor();
      await expect(guest.page.getByLabel('Name').count()).resolves.toBe(0);
      await fourShots(guest.page, 'register-invite-only');
      await guest.page.goto(`${base}/login`);
      await guest.page.getByText('New here? Ask a workspace admin for an invitation.').waitFor();
    } finally {
      // The other tests register accounts.
      await api('PATCH', '/admin/settings', { registration_mode: 'open' });
      await guest.context.close();
      await context.close();
    }
  });
});

/** The same with e-mail (a test SMTP server on 127.0.0.1): "Forgot password?", its link, and invitations that say they were mailed. */
describe.skipIf(!hasChromium)('teams with e-mail, in chromium', () => {
  let browser: Browser;
  let base: string;
  let smtp: TestSmtp;
  let owner: Session & { email: string; password: string };
  beforeAll(async () => {
    smtp = await startSmtp();
  });
  afterAll(async () => {
    await smtp?.close();
  });
  useBrowserSuite(
    async (suite) => {
      ({ browser, base } = suite);
      owner = await registerApi(base, 'Mia Mailed');
    },
    () => ({ mail: { url: smtp.url, from: 'DAM <no-reply@example.test>' } }),
  );

  const linkIn = (text: string, path: string) => text.match(new RegExp(`${base}${path}[A-Za-z0-9_-]+`))?.[0];

  it('resets a forgotten password from the e-mailed link; the other sessions end', async () => {
    const other = await signedInPage(browser, owner);
    const { context, page } = await newPage(browser);
    try {
      await other.page.goto(`${base}/library`);
      await other.page.getByRole('heading', { name: 'All assets' }).waitFor();

      await page.goto(`${base}/login`);
      await page.getByRole('link', { name: 'Forgot password?' }).click();
      await page.waitForURL('**/forgot-password');
      await page.getByLabel('E-mail').fill(owner.email);
      await page.getByRole('button', { name: 'Send the link' }).click();
      await page.getByText('a link to choose a new password is on its way').waitFor();
      await fourShots(page, 'forgot-password-sent');
      const mail = await smtp.waitFor((m) => m.envelope.to.includes(owner.email));
      const link = linkIn(mail.text, '/reset-password\\?token=');
      expect(link).toBeDefined();

      await page.goto(link!);
      await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
      await fourShots(page, 'reset-password', () => page.getByLabel('New password', { exact: true }).waitFor());
      await page.getByLabel('New password', { exact: true }).fill('reset to something new');
      await page.getByLabel('Confirm new password').fill('reset to something new');
      await page.getByRole('button', { name: 'Reset password and sign in' }).click();
      await page.waitForURL('**/library');
      await page.getByRole('heading', { name: 'All assets' }).waitFor();

      // Every other session was ended: the other browser's next action leads to sign-in.
      await other.page.getByRole('link', { name: 'Workspace settings' }).click();
      await other.page.waitForURL((u) => u.pathname === '/login' && u.searchParams.get('expired') === '1');
      await other.page.getByText('Your session has ended').waitFor();
    } finally {
      await other.context.close();
      await context.close();
    }
  });

  it('says that an invitation was e-mailed', async () => {
    const email = `ines.invited.${Date.now().toString(36)}@example.test`;
    // Not the owner: the reset above ended the session the suite began with.
    const inviter = await registerApi(base, 'Ivo Inviter');
    const { context, page } = await signedInPage(browser, inviter);
    try {
      await page.goto(`${base}/settings/${inviter.workspaces[0]!.id}`);
      await page.getByLabel('E-mail').fill(email);
      await page.getByRole('button', { name: 'Invite', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Invitation created' });
      await dialog.getByText(`It was e-mailed to ${email}`).waitFor();
      const shown = await dialog.getByLabel('Invitation link').inputValue();
      const mail = await smtp.waitFor((m) => m.envelope.to.includes(email));
      expect(linkIn(mail.text, '/invite/')).toBe(shown);
    } finally {
      await context.close();
    }
  });
});
