import nodemailer from 'nodemailer';
import { MailSendError, type MailConfig, type MailMessage, type Mailer } from './types.js';

export interface SmtpMailerOptions {
  /**
   * Milliseconds each step may take: the TCP (and TLS) connection, the server's greeting,
   * and any silence of the server once connected. Default 10 000.
   */
  readonly timeoutMs?: number;
  /** Milliseconds one whole send may take, however the server trickles its answers. Default three times timeoutMs. */
  readonly sendTimeoutMs?: number;
}

export const DEFAULT_SMTP_TIMEOUT_MS = 10_000;

/** One bare address: no display name, no list, no whitespace, no header syntax. */
const BARE_ADDRESS = /^[^\s@,;:<>()[\]"\\]+@[^\s@,;:<>()[\]"\\]+$/;

/** How long an error message may be (an SMTP reply can be long, several lines). */
const MAX_DETAIL = 300;

/**
 * A mailer that hands each message to the SMTP server of `config.url` on a connection of its
 * own (no pool: these mails are few, and nothing is left open between them).
 */
export function createSmtpMailer(config: MailConfig, options: SmtpMailerOptions = {}): Mailer {
  const timeoutMs = options.timeoutMs ?? DEFAULT_SMTP_TIMEOUT_MS;
  const sendTimeoutMs = options.sendTimeoutMs ?? 3 * timeoutMs;
  const secrets = urlSecrets(config.url);
  const transport = nodemailer.createTransport(
    {
      url: config.url,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      dnsTimeout: timeoutMs,
      // Our messages are strings; never let a message read a file or fetch a URL.
      disableFileAccess: true,
      disableUrlAccess: true,
      logger: false,
      debug: false,
    },
    { from: config.from },
  );

  return {
    enabled: true,
    async send(message: MailMessage): Promise<void> {
      if (!BARE_ADDRESS.test(message.to)) {
        throw new MailSendError('SMTP send failed: the recipient is not a single e-mail address', 'EADDRESS');
      }
      try {
        await transport.sendMail({
          to: message.to,
          subject: message.subject,
          text: message.text,
          ...(message.html === undefined ? {} : { html: message.html }),
          signal: AbortSignal.timeout(sendTimeoutMs),
        });
      } catch (err) {
        throw sendError(err, secrets, sendTimeoutMs);
      }
    },
  };
}

/** The parts of the SMTP URL that must never reach an error message: the password as written, decoded, and in the AUTH encodings. */
function urlSecrets(url: string): string[] {
  let user = '';
  let rawPass = '';
  try {
    const parsed = new URL(url);
    user = safeDecode(parsed.username);
    rawPass = parsed.password;
  } catch {
    return [];
  }
  if (rawPass === '') return [];
  const pass = safeDecode(rawPass);
  const base64 = (value: string) => Buffer.from(value, 'utf8').toString('base64');
  const forms = [rawPass, pass, base64(pass), base64(`\0${user}\0${pass}`), base64(`${user}\0${user}\0${pass}`)];
  // Longest first, so that a form containing another is cut whole.
  return [...new Set(forms.filter((form) => form !== ''))].sort((a, b) => b.length - a.length);
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join('[redacted]');
  return out;
}

interface NodemailerErrorLike {
  code?: unknown;
  responseCode?: unknown;
  response?: unknown;
  message?: unknown;
}

/** nodemailer's error as a MailSendError with the code and the server's answer, without the URL's password. */
function sendError(err: unknown, secrets: readonly string[], sendTimeoutMs: number): MailSendError {
  const e: NodemailerErrorLike = typeof err === 'object' && err !== null ? err : {};
  const given = typeof e.code === 'string' && /^[A-Z0-9_]{1,32}$/.test(e.code) ? e.code : 'ESEND';
  // Our own deadline (the signal) aborted the send: say it as the timeout it is.
  const code = given === 'EABORT' ? 'ETIMEDOUT' : given;
  const responseCode = typeof e.responseCode === 'number' ? e.responseCode : undefined;
  let detail: string;
  if (given === 'EABORT') detail = `no answer within ${sendTimeoutMs} ms`;
  else if (typeof e.response === 'string' && e.response !== '') detail = e.response;
  else if (typeof e.message === 'string') detail = e.message;
  else detail = String(err);
  detail = redact(detail.replace(/\s+/g, ' ').trim(), secrets);
  if (detail.length > MAX_DETAIL) detail = `${detail.slice(0, MAX_DETAIL)}…`;
  const message = `SMTP send failed: ${code}${detail ? ` ${detail}` : ''}`;
  return new MailSendError(message, code, responseCode);
}
