import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { dialects } from './helpers/databases.js';
import { registerUser, type Account } from './helpers/factories.js';
import { startSmtp, type Received, type TestSmtp } from './helpers/smtp.js';
import {
  accept,
  dataOf,
  expectError,
  invite,
  login,
  me,
  preview,
  tokenOf,
  uniqueEmail,
  type AuthBody,
  type Invitation,
  type InviteResult,
} from './helpers/teams.js';

/**
 * docs/features/teams.md "E-mail" and the forgotten password, against a real SMTP server (test/helpers/smtp.ts):
 * what is sent, to whom, with which link, and that a failing server never fails a request.
 */

const PUBLIC_URL = 'https://dam.example.test';
const FROM = 'DAM <no-reply@dam.example.test>';
const DAY = 86_400;

/** The first link of the public URL in a mail's text. */
function linkIn(message: Received, path: string): string {
  const match = new RegExp(`${PUBLIC_URL.replace(/\./g, '\\.')}${path}[^\\s"<>]*`).exec(message.text);
  expect(match, message.text).not.toBeNull();
  return match![0];
}

/** Sent from DAM_SMTP_FROM (mailparser quotes the display name). */
function expectFrom(message: Received): void {
  expect(message.envelope.from).toBe('no-reply@dam.example.test');
  expect(message.from).toBe('"DAM" <no-reply@dam.example.test>');
}

const to = (email: string) => (m: Received) => m.envelope.to.includes(email);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(dialects)('e-mail on %s', (dialect) => {
  let smtp: TestSmtp;
  let t: TestApp;
  let root: Account;
  let owner: Account;
  const logs: string[] = [];

  beforeAll(async () => {
    smtp = await startSmtp();
    t = await startTestApp({
      dialect,
      config: { publicUrl: PUBLIC_URL, mail: { url: smtp.url, from: FROM }, sessionTtl: 30 * DAY, logLevel: 'info' },
      logStream: { write: (line) => void logs.push(line) },
    });
    root = await registerUser(t, { name: 'Root Admin' });
    owner = await registerUser(t, { name: 'Olivia Owner' });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  const resetRequest = (email: string) => t.request({ method: 'POST', url: '/auth/password-reset', payload: { email } });
  const linkInfo = (token: string) => t.request({ method: 'GET', url: `/auth/password-reset?token=${token}` });
  const confirm = (token: string, password: string) => t.request({ method: 'POST', url: '/auth/password-reset/confirm', payload: { token, password } });

  it('says that e-mail is on: password_reset in GET /auth/options, smtp in the admin settings', async () => {
    expect(dataOf<{ password_reset: boolean }>(await t.request({ method: 'GET', url: '/auth/options' })).password_reset).toBe(true);
    expect(dataOf<{ smtp: boolean }>(await t.request({ method: 'GET', url: '/admin/settings', token: root.token })).smtp).toBe(true);
  });

  describe('invitations', () => {
    it('mails the invitation with its link, which accepts it', async () => {
      const email = uniqueEmail('mailed');
      const data = dataOf<InviteResult>(await invite(t, owner, owner.workspaceId, email, 'manager'), 201);
      expect(data).toMatchObject({ added: false, emailed: true });

      const mail = await smtp.waitFor(to(email));
      expect(mail.envelope.to).toEqual([email]);
      expect(mail.to).toBe(email);
      expectFrom(mail);
      expect(mail.subject).toBe(`Invitation to join "Olivia Owner's workspace"`);
      expect(mail.text).toContain('Olivia Owner invited you');
      expect(mail.text).toContain('manager');
      const link = linkIn(mail, '/invite/');
      expect(link).toBe(data.url);
      expect(mail.html).toContain(data.url);

      const accepted = await accept(t, tokenOf(link), { name: 'Mailed Invitee', password: 'invitee password' });
      expect(accepted.statusCode, accepted.body).toBe(201);
      expect(accepted.json<AuthBody>().workspaces).toContainEqual({ id: owner.workspaceId, name: "Olivia Owner's workspace", role: 'manager' });
    });

    it('mails a resent invitation with the new link; the first mail\'s link no longer works', async () => {
      const email = uniqueEmail('resent');
      const made = dataOf<InviteResult>(await invite(t, owner, owner.workspaceId, email, 'viewer'), 201);
      const first = await smtp.waitFor(to(email));
      const res = await t.request({ method: 'POST', url: `/workspaces/${owner.workspaceId}/invitations/${made.invitation!.id}/resend`, token: owner.token });
      const resent = dataOf<{ invitation: Invitation; url: string; emailed: boolean }>(res);
      expect(resent.emailed).toBe(true);
      const second = await smtp.waitFor((m) => to(email)(m) && m !== first);
      expect(linkIn(second, '/invite/')).toBe(resent.url);
      expect(resent.url).not.toBe(made.url);
      expectError(await preview(t, tokenOf(linkIn(first, '/invite/'))), 410, 'LINK_INVALID');
      expect((await preview(t, tokenOf(linkIn(second, '/invite/')))).statusCode).toBe(200);
    });

    it('tells an existing account it was added, with no invitation link', async () => {
      const existing = await registerUser(t, { name: 'Ezra Existing' });
      const data = dataOf<InviteResult>(await invite(t, owner, owner.workspaceId, existing.user.email, 'viewer'), 201);
      expect(data).toMatchObject({ added: true, invitation: null, url: null, emailed: true });
      const mail = await smtp.waitFor(to(existing.user.email));
      expect(mail.subject).toBe(`You were added to "Olivia Owner's workspace"`);
      expect(mail.text).toContain('Olivia Owner added you');
      expect(mail.text).toContain('viewer');
      expect(mail.text).toContain(PUBLIC_URL);
      expect(mail.text).not.toContain('/invite/');
    });
  });

  describe('accounts made by an admin', () => {
    it('mails the setup link of an account created without a password', async () => {
      const email = uniqueEmail('setup');
      const created = dataOf<{ url: string; emailed: boolean }>(await t.request({ method: 'POST', url: '/admin/users', token: root.token, payload: { email, name: 'Sett Up' } }), 201);
      expect(created.emailed).toBe(true);
      const mail = await smtp.waitFor(to(email));
      expect(mail.subject).toBe('Set up your account');
      expect(mail.text).toContain('Root Admin created an account for you');
      expect(linkIn(mail, '/reset-password')).toBe(created.url);
      const res = await confirm(tokenOf(created.url), 'my chosen password');
      expect(res.statusCode, res.body).toBe(200);
      expect((await login(t, email, 'my chosen password')).statusCode).toBe(200);
    });

    it('sends nothing for an account created with a temporary password (the admin hands it on)', async () => {
      const email = uniqueEmail('temporary');
      const created = dataOf<{ url: string | null; emailed: boolean }>(
        await t.request({ method: 'POST', url: '/admin/users', token: root.token, payload: { email, name: 'Temp', password: 'temporary password' } }),
        201,
      );
      expect(created).toMatchObject({ url: null, emailed: false });
      // A mail sent after it, to someone else, arrives: nothing to the new account came before it.
      const marker = uniqueEmail('marker');
      await invite(t, owner, owner.workspaceId, marker, 'viewer');
      await smtp.waitFor(to(marker));
      expect(smtp.messages.some(to(email))).toBe(false);
    });

    it('mails a new password link made by an admin', async () => {
      const user = await registerUser(t);
      const link = dataOf<{ url: string; emailed: boolean }>(await t.request({ method: 'POST', url: `/admin/users/${user.user.id}/password-link`, token: root.token }));
      expect(link.emailed).toBe(true);
      const mail = await smtp.waitFor(to(user.user.email));
      expect(linkIn(mail, '/reset-password')).toBe(link.url);
    });
  });

  describe('forgotten password', () => {
    it('answers 202 alike for a registered and an unregistered e-mail; only the registered one gets a mail', async () => {
      const user = await registerUser(t);
      const stranger = uniqueEmail('stranger');
      const unknown = await resetRequest(stranger);
      const known = await resetRequest(user.user.email.toUpperCase());
      expect(unknown.statusCode).toBe(202);
      expect(known.statusCode).toBe(202);
      expect(known.json()).toEqual({ success: true, data: { accepted: true } });
      expect(unknown.body).toBe(known.body);

      const mail = await smtp.waitFor(to(user.user.email));
      expect(mail.subject).toBe('Reset your password');
      expectFrom(mail);
      expect(mail.text).toContain(user.user.email);
      expect(linkIn(mail, '/reset-password')).toMatch(new RegExp(`^${PUBLIC_URL}/reset-password\\?token=[A-Za-z0-9_-]{43}$`));
      await sleep(300);
      expect(smtp.messages.some(to(stranger))).toBe(false);
    });

    it("the mailed link works once, sets the password, ends every session of the account and signs in", async () => {
      const user = await registerUser(t);
      const other = (await login(t, user.user.email, user.password)).json<AuthBody>().token;
      expect((await resetRequest(user.user.email)).statusCode).toBe(202);
      const token = tokenOf(linkIn(await smtp.waitFor(to(user.user.email)), '/reset-password'));

      const info = dataOf<{ email: string; purpose: string; expires_at: number }>(await linkInfo(token));
      expect(info).toEqual({ email: user.user.email, purpose: 'reset', expires_at: expect.any(Number) as number });
      const nowish = Math.floor(Date.now() / 1000);
      expect(info.expires_at).toBeGreaterThanOrEqual(nowish + 3600 - 10);
      expect(info.expires_at).toBeLessThanOrEqual(nowish + 3600 + 1);

      const res = await confirm(token, 'a whole new password');
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json<AuthBody>();
      expect(Object.keys(body).sort()).toEqual(['token', 'user', 'workspaces']);
      expect(body.user).toEqual(user.user);
      expect(body.workspaces).toEqual(user.workspaces);
      // Every earlier session ended; the new one works.
      for (const old of [user.token, other]) expectError(await me(t, old), 401, 'INVALID_TOKEN');
      expect((await me(t, body.token)).statusCode).toBe(200);
      expect((await login(t, user.user.email, 'a whole new password')).statusCode).toBe(200);
      expectError(await login(t, user.user.email, user.password), 401, 'INVALID_CREDENTIALS');
      // Once.
      expectError(await linkInfo(token), 410, 'LINK_INVALID');
      expectError(await confirm(token, 'yet another password'), 410, 'LINK_INVALID');
      expect((await login(t, user.user.email, 'yet another password')).statusCode).toBe(401);
    });

    it('the link expires after an hour', async () => {
      const user = await registerUser(t);
      expect((await resetRequest(user.user.email)).statusCode).toBe(202);
      const token = tokenOf(linkIn(await smtp.waitFor(to(user.user.email)), '/reset-password'));
      t.advanceClock(3600 - 30);
      try {
        expect((await linkInfo(token)).statusCode).toBe(200);
        t.advanceClock(31);
        expectError(await linkInfo(token), 410, 'LINK_INVALID');
        expectError(await confirm(token, 'too late password'), 410, 'LINK_INVALID');
      } finally {
        t.advanceClock(-(3600 + 1));
      }
      expect((await login(t, user.user.email, user.password)).statusCode).toBe(200);
    });

    it('a newer link retires the older one', async () => {
      const user = await registerUser(t);
      expect((await resetRequest(user.user.email)).statusCode).toBe(202);
      const first = await smtp.waitFor(to(user.user.email));
      expect((await resetRequest(user.user.email)).statusCode).toBe(202);
      const second = await smtp.waitFor((m) => to(user.user.email)(m) && m !== first);
      expectError(await linkInfo(tokenOf(linkIn(first, '/reset-password'))), 410, 'LINK_INVALID');
      expect((await linkInfo(tokenOf(linkIn(second, '/reset-password')))).statusCode).toBe(200);
    });

    it('sends nothing to a disabled account', async () => {
      const user = await registerUser(t);
      expect((await t.request({ method: 'PATCH', url: `/admin/users/${user.user.id}`, token: root.token, payload: { disabled: true } })).statusCode).toBe(200);
      expect((await resetRequest(user.user.email)).statusCode).toBe(202);
      const marker = uniqueEmail('marker');
      await invite(t, owner, owner.workspaceId, marker, 'viewer');
      await smtp.waitFor(to(marker));
      await sleep(200);
      expect(smtp.messages.some(to(user.user.email))).toBe(false);
    });
  });
  it('never writes a mailed token into the log', async () => {
    // The web page of a reset link, as a browser opens it from the mail.
    const user = await registerUser(t);
    expect((await resetRequest(user.user.email)).statusCode).toBe(202);
    const token = tokenOf(linkIn(await smtp.waitFor(to(user.user.email)), '/reset-password'));
    await t.request({ method: 'GET', url: `/reset-password?token=${token}`, headers: { accept: 'text/html' } });
    const tokens = smtp.messages.flatMap((m) => [...m.text.matchAll(/(?:\/invite\/|token=)([A-Za-z0-9_-]{43})/g)].map((match) => match[1]!));
    expect(tokens.length).toBeGreaterThan(10);
    const text = logs.join('\n');
    expect(text).toContain('token=%5Bredacted%5D');
    for (const secret of tokens) expect(text).not.toContain(secret);
  });
});

describe.each(dialects)('a failing SMTP server on %s', (dialect) => {
  const SMTP_USER = 'mailer@dam.example.test';
  const SMTP_PASS = 'smtp-s3cret-pass';
  let smtp: TestSmtp;
  let t: TestApp;
  let owner: Account;
  const logs: string[] = [];

  beforeAll(async () => {
    smtp = await startSmtp({ auth: { user: SMTP_USER, pass: SMTP_PASS }, reject: { code: 550, message: 'Mailbox unavailable' } });
    t = await startTestApp({
      dialect,
      config: { publicUrl: PUBLIC_URL, mail: { url: smtp.url, from: FROM }, logLevel: 'info' },
      logStream: { write: (line) => void logs.push(line) },
    });
    owner = await registerUser(t, { name: 'Olivia Owner' });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it('still makes the invitation (emailed: false, the admin copies the url) and logs the failure without the link or the SMTP password', async () => {
    const email = uniqueEmail('bounced');
    const data = dataOf<InviteResult>(await invite(t, owner, owner.workspaceId, email, 'viewer'), 201);
    expect(data).toMatchObject({ added: false, emailed: false, invitation: { email, status: 'pending' } });
    const token = tokenOf(data.url!);
    // The server was asked (logged in, then refused the message) and kept nothing.
    expect(smtp.logins).toContain(SMTP_USER);
    expect(smtp.messages).toHaveLength(0);
    expect((await preview(t, token)).statusCode).toBe(200);
    expect((await accept(t, token)).statusCode).toBe(201);

    const failures = logs.filter((line) => line.includes('e-mail not sent'));
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.join('\n')).toMatch(/550/);
    const text = logs.join('\n');
    for (const secret of [token, data.url!, SMTP_PASS, encodeURIComponent(SMTP_PASS), Buffer.from(SMTP_PASS).toString('base64')]) expect(text).not.toContain(secret);
  });

  it('answers the other mails with emailed: false too, and the password reset with 202', async () => {
    const existing = await registerUser(t);
    expect(dataOf<InviteResult>(await invite(t, owner, owner.workspaceId, existing.user.email, 'viewer'), 201)).toMatchObject({ added: true, emailed: false });
    const created = dataOf<{ url: string; emailed: boolean }>(await t.request({ method: 'POST', url: '/admin/users', token: owner.token, payload: { email: uniqueEmail('setup'), name: 'Set Up' } }), 201);
    expect(created.emailed).toBe(false);
    expect((await t.request({ method: 'GET', url: `/auth/password-reset?token=${tokenOf(created.url)}` })).statusCode).toBe(200);
    expect((await t.request({ method: 'POST', url: '/auth/password-reset', payload: { email: existing.user.email } })).statusCode).toBe(202);
    expect((await t.request({ method: 'POST', url: '/auth/password-reset', payload: { email: existing.user.email } })).json()).toEqual({ success: true, data: { accepted: true } });
    expect(smtp.messages).toHaveLength(0);
  });
});

describe('POST /auth/password-reset and the sign-in limits', () => {
  it('counts per e-mail whatever the address, and per address whatever the e-mail (429)', async () => {
    const smtp = await startSmtp();
    const t = await startTestApp({ config: { publicUrl: PUBLIC_URL, mail: { url: smtp.url, from: FROM }, loginRateLimit: 3 } });
    try {
      const user = await registerUser(t);
      const reset = (email: string, remoteAddress: string) => t.request({ method: 'POST', url: '/auth/password-reset', payload: { email }, remoteAddress });
      for (let i = 0; i < 3; i += 1) expect((await reset(user.user.email, `203.0.113.${10 + i}`)).statusCode).toBe(202);
      expectError(await reset(user.user.email.toUpperCase(), '203.0.113.50'), 429, 'RATE_LIMITED');
      // Another e-mail from a fresh address is not affected.
      expect((await reset(uniqueEmail('other'), '203.0.113.51')).statusCode).toBe(202);
      // Per address: three e-mails from one address, then the fourth is refused.
      for (let i = 0; i < 3; i += 1) expect((await reset(uniqueEmail('probe'), '198.51.100.9')).statusCode).toBe(202);
      expectError(await reset(uniqueEmail('probe'), '198.51.100.9'), 429, 'RATE_LIMITED');
      // Only the three accepted requests for the account were mailed.
      await smtp.waitFor((m) => smtp.messages.filter(to(user.user.email)).length === 3 && to(user.user.email)(m));
      await sleep(200);
      expect(smtp.messages.filter(to(user.user.email))).toHaveLength(3);
    } finally {
      await t.close();
      await smtp.close();
    }
  });
});
