import { afterEach, describe, expect, it } from 'vitest';
import {
  accountSetupMail,
  addedToWorkspaceMail,
  createMailer,
  invitationMail,
  MailSendError,
  passwordResetMail,
  type MailConfig,
} from '../src/mail/index.js';
import { startSilentServer, startSmtp } from './helpers/smtp.js';

const FROM = 'DAM <no-reply@dam.example>';
const NOW = 1_800_000_000; // 2027-01-15 08:00 UTC
const USER = 'mailer@dam.example';
const PASSWORD = 'Sup3r s3cret/p@ss:word';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()?.();
});

async function smtp(options: Parameters<typeof startSmtp>[0] = {}) {
  const server = await startSmtp(options);
  closers.push(() => server.close());
  return server;
}

/** The rejection of a send, checked to be a MailSendError. */
async function sendFailure(promise: Promise<void>): Promise<MailSendError> {
  const err = await promise.then(
    () => {
      throw new Error('the send succeeded');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(MailSendError);
  return err as MailSendError;
}

function expectNoSecret(err: MailSendError, url: string): void {
  const all = `${err.message} ${err.stack ?? ''} ${JSON.stringify(err)}`;
  for (const secret of [PASSWORD, encodeURIComponent(PASSWORD), Buffer.from(PASSWORD).toString('base64'), url]) {
    expect(all).not.toContain(secret);
  }
}

const invitation = {
  to: 'new.person@example.com',
  workspaceName: 'Marketing',
  inviterName: 'Ada Lovelace',
  role: 'manager',
  url: 'https://dam.example/invite/tok_abc123',
  expiresAt: NOW + 7 * 24 * 3600,
  now: NOW,
};

describe('createMailer', () => {
  it('is off without a configuration and refuses to send', async () => {
    const mailer = createMailer(null);
    expect(mailer.enabled).toBe(false);
    const err = await sendFailure(mailer.send({ to: 'a@example.com', subject: 's', text: 't' }));
    expect(err.code).toBe('EDISABLED');
  });

  it('delivers a message with its From, To, subject, text and HTML', async () => {
    const server = await smtp();
    const config: MailConfig = { url: server.url, from: FROM };
    const mailer = createMailer(config);
    expect(mailer.enabled).toBe(true);

    await mailer.send(invitationMail(invitation));

    const received = await server.waitFor((m) => m.to.includes('new.person@example.com'));
    expect(received.from).toBe('"DAM" <no-reply@dam.example>'); // mailparser quotes the display name
    expect(received.to).toBe('new.person@example.com');
    expect(received.envelope).toEqual({ from: 'no-reply@dam.example', to: ['new.person@example.com'] });
    expect(received.subject).toBe('Invitation to join "Marketing"');
    expect(received.text).toContain('Ada Lovelace invited you to join the workspace "Marketing" as a manager');
    expect(received.text).toContain('https://dam.example/invite/tok_abc123');
    expect(received.text).toContain('valid for 7 days (until 2027-01-22 08:00 UTC)');
    expect(received.html).toContain('href="https://dam.example/invite/tok_abc123"');
    expect(received.user).toBeNull();
  });

  it('escapes user-provided names in the HTML part and keeps subjects on one line', async () => {
    const server = await smtp();
    const mailer = createMailer({ url: server.url, from: FROM });
    await mailer.send(
      invitationMail({
        ...invitation,
        workspaceName: '<script>alert("ws")</script> & Co\r\nBcc: victim@example.com',
        inviterName: '<img src=x onerror=alert(1)>',
      }),
    );

    const received = await server.waitFor();
    expect(received.html).not.toContain('<script');
    expect(received.html).not.toContain('<img');
    expect(received.html).toContain('&lt;script&gt;alert(&quot;ws&quot;)&lt;/script&gt; &amp; Co Bcc: victim@example.com');
    expect(received.html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    // The plain text shows the names as they are; the subject got no extra header.
    expect(received.text).toContain('<img src=x onerror=alert(1)> invited you');
    expect(received.subject).toBe('Invitation to join "<script>alert("ws")</script> & Co Bcc: victim@example.com"');
    expect(received.envelope.to).toEqual(['new.person@example.com']);
  });

  it('logs in with the user and password of the URL', async () => {
    const server = await smtp({ auth: { user: USER, pass: PASSWORD } });
    expect(server.url).toContain('%40'); // the credentials are percent-encoded in the URL
    const mailer = createMailer({ url: server.url, from: FROM });

    await mailer.send({ to: 'someone@example.com', subject: 'Hello', text: 'Plain only' });

    const received = await server.waitFor();
    expect(received.user).toBe(USER);
    expect(received.subject).toBe('Hello');
    expect(received.text.trim()).toBe('Plain only');
    expect(received.html).toBeNull();
    expect(server.logins).toEqual([USER]);
  });

  it('rejects a wrong password with EAUTH, without the password in the error', async () => {
    const server = await smtp({ auth: { user: USER, pass: 'the-right-one' } });
    const url = `smtp://${encodeURIComponent(USER)}:${encodeURIComponent(PASSWORD)}@127.0.0.1:${server.port}`;
    const err = await sendFailure(createMailer({ url, from: FROM }).send({ to: 'someone@example.com', subject: 's', text: 't' }));

    expect(err.code).toBe('EAUTH');
    expect(err.responseCode).toBe(535);
    expect(err.message).toMatch(/^SMTP send failed: EAUTH /);
    expectNoSecret(err, url);
    expect(server.messages).toHaveLength(0);
  });

  it('rejects when the server refuses the message, with its answer and without the password', async () => {
    const server = await smtp({ auth: { user: USER, pass: PASSWORD }, reject: { code: 550, message: 'Mailbox unavailable' } });
    const err = await sendFailure(createMailer({ url: server.url, from: FROM }).send(invitationMail(invitation)));

    expect(err.code).toBe('EMESSAGE');
    expect(err.responseCode).toBe(550);
    expect(err.message).toContain('550');
    expect(err.message).toContain('Mailbox unavailable');
    expect(err.message).not.toContain('tok_abc123');
    expectNoSecret(err, server.url);
  });

  it('cuts the password out of a server answer that repeats it', async () => {
    const server = await smtp({
      auth: { user: USER, pass: PASSWORD },
      reject: { code: 554, message: `Refused for ${PASSWORD} (${Buffer.from(PASSWORD).toString('base64')})` },
    });
    const err = await sendFailure(createMailer({ url: server.url, from: FROM }).send({ to: 'someone@example.com', subject: 's', text: 't' }));

    expect(err.message).toContain('Refused for [redacted] ([redacted])');
    expectNoSecret(err, server.url);
  });

  it('gives up on a server that never greets within the timeout', async () => {
    const silent = await startSilentServer();
    closers.push(() => silent.close());
    const mailer = createMailer({ url: silent.url, from: FROM }, { timeoutMs: 300 });

    const started = Date.now();
    const err = await sendFailure(mailer.send({ to: 'someone@example.com', subject: 's', text: 't' }));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(silent.connections()).toBe(1);
    expect(err.code).toBe('ETIMEDOUT');
    expect(err.message).toMatch(/^SMTP send failed: ETIMEDOUT /);
  });

  it('gives up on the whole send after sendTimeoutMs, whatever the step timeouts', async () => {
    const silent = await startSilentServer();
    closers.push(() => silent.close());
    const mailer = createMailer({ url: silent.url, from: FROM }, { timeoutMs: 60_000, sendTimeoutMs: 300 });

    const started = Date.now();
    const err = await sendFailure(mailer.send({ to: 'someone@example.com', subject: 's', text: 't' }));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(err.code).toBe('ETIMEDOUT');
    expect(err.message).toBe('SMTP send failed: ETIMEDOUT no answer within 300 ms');
  });

  it('fails at once when nothing listens', async () => {
    const silent = await startSilentServer();
    const port = silent.port;
    await silent.close();
    const started = Date.now();
    const err = await sendFailure(createMailer({ url: `smtp://127.0.0.1:${port}`, from: FROM }).send({ to: 'a@example.com', subject: 's', text: 't' }));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(err.code).toBe('ESOCKET');
    expect(err.message).toMatch(/^SMTP send failed: ESOCKET .*ECONNREFUSED/);
  });

  it.each(['a@example.com, b@example.com', 'Someone <a@example.com>', 'a@example.com\r\nBcc: b@example.com', 'not-an-address'])(
    'refuses the recipient %j, which is not one bare address',
    async (to) => {
      const server = await smtp();
      const err = await sendFailure(createMailer({ url: server.url, from: FROM }).send({ to, subject: 's', text: 't' }));
      expect(err.code).toBe('EADDRESS');
      expect(server.messages).toHaveLength(0);
    },
  );
});

describe('messages', () => {
  it('invitation: who, where, which role, the link and how long it is valid', () => {
    const mail = invitationMail({ ...invitation, inviterName: null, role: 'admin' });
    expect(mail.to).toBe('new.person@example.com');
    expect(mail.text).toContain('You have been invited to join the workspace "Marketing" as an admin');
    expect(mail.text).toContain('valid for 7 days');
    expect(mail.html).toContain('Accept the invitation');
  });

  it('added to a workspace: names the workspace, the role and links the library', () => {
    const mail = addedToWorkspaceMail({
      to: 'member@example.com',
      workspaceName: 'R&D <team>',
      inviterName: 'Grace',
      role: 'viewer',
      libraryUrl: 'https://dam.example/',
    });
    expect(mail.subject).toBe('You were added to "R&D <team>"');
    expect(mail.text).toContain('Grace added you to the workspace "R&D <team>" as a viewer');
    expect(mail.text).toContain('https://dam.example/');
    expect(mail.html).toContain('<strong>R&amp;D &lt;team&gt;</strong>');
    expect(mail.html).not.toContain('<team>');
  });

  it('password reset: valid one hour, and ignore it if you did not ask', () => {
    const mail = passwordResetMail({
      to: 'user@example.com',
      url: 'https://dam.example/reset-password?token=abc',
      expiresAt: NOW + 3600 - 2,
      now: NOW,
    });
    expect(mail.subject).toBe('Reset your password');
    expect(mail.text).toContain('https://dam.example/reset-password?token=abc');
    expect(mail.text).toContain('valid for 1 hour');
    expect(mail.text).toContain('If you did not ask for this, ignore this e-mail');
    expect(mail.html).toContain('href="https://dam.example/reset-password?token=abc"');
  });

  it('account setup: greets by name, says who made it, valid DAM_INVITE_TTL', () => {
    const mail = accountSetupMail({
      to: 'new@example.com',
      name: 'Linus <b>',
      url: 'https://dam.example/reset-password?token=xyz',
      expiresAt: NOW + 2 * 24 * 3600,
      invitedBy: 'Admin',
      now: NOW,
    });
    expect(mail.subject).toBe('Set up your account');
    expect(mail.text.startsWith('Hello Linus <b>,')).toBe(true);
    expect(mail.text).toContain('Admin created an account for you (new@example.com)');
    expect(mail.text).toContain('valid for 2 days');
    expect(mail.html).toContain('Hello Linus &lt;b&gt;,');
  });

  it('says short validities in minutes and hours', () => {
    const at = (seconds: number) => passwordResetMail({ to: 'a@example.com', url: 'https://x.example/', expiresAt: NOW + seconds, now: NOW }).text;
    expect(at(30 * 60)).toContain('valid for 30 minutes');
    expect(at(20)).toContain('valid for 1 minute');
    expect(at(24 * 3600)).toContain('valid for 24 hours');
  });
});
