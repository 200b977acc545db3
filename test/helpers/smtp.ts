import net from 'node:net';
import { simpleParser, type AddressObject } from 'mailparser';
import { SMTPServer, type SMTPServerError } from 'smtp-server';

/** One message the test SMTP server accepted, as mailparser read it. */
export interface Received {
  /** The From header as text (`DAM <no-reply@example.com>`). */
  from: string;
  /** The To header as text. */
  to: string;
  /** The SMTP envelope (MAIL FROM, RCPT TO). */
  envelope: { from: string; to: string[] };
  subject: string;
  text: string;
  /** The HTML part, or null when there is none. */
  html: string | null;
  /** The user name the client logged in with, or null without a login. */
  user: string | null;
}

export interface SmtpOptions {
  /** Require a login with these credentials (wrong ones are answered 535); without, logins are optional and any is taken. */
  auth?: { user: string; pass: string };
  /** Refuse every message after its DATA with this reply (default code 550). */
  reject?: { code?: number; message?: string };
}

export interface TestSmtp {
  /** `smtp://127.0.0.1:<port>`, with `options.auth`'s credentials (percent-encoded) when given. */
  url: string;
  port: number;
  /** Every accepted message, in arrival order. */
  messages: Received[];
  /** Every login attempt, successful or not: the user name given. */
  logins: string[];
  /** The first message (already arrived or arriving within timeoutMs, default 5 s) for which predicate is true. */
  waitFor(predicate?: (message: Received) => boolean, timeoutMs?: number): Promise<Received>;
  close(): Promise<void>;
}

function addressText(value: AddressObject | AddressObject[] | undefined): string {
  if (value === undefined) return '';
  return Array.isArray(value) ? value.map((item) => item.text).join(', ') : value.text;
}

/**
 * A real SMTP server (smtp-server) on 127.0.0.1 and a free port, in clear text: STARTTLS is
 * off and AUTH is allowed without TLS, so nodemailer logs in over the plain connection.
 */
export async function startSmtp(options: SmtpOptions = {}): Promise<TestSmtp> {
  const messages: Received[] = [];
  const logins: string[] = [];
  const waiters = new Set<{ predicate: (message: Received) => boolean; resolve: (message: Received) => void }>();

  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: options.auth === undefined,
    disableReverseLookup: true,
    logger: false,
    closeTimeout: 1000,
    onAuth(auth, _session, callback) {
      logins.push(auth.username ?? '');
      const expected = options.auth;
      if (expected && (auth.username !== expected.user || auth.password !== expected.pass)) {
        const err: SMTPServerError = new Error('Authentication credentials invalid');
        err.responseCode = 535;
        callback(err);
        return;
      }
      callback(null, { user: auth.username });
    },
    onData(stream, session, callback) {
      if (options.reject) {
        // Read the whole message before answering, as a real server does.
        stream.on('end', () => {
          const err: SMTPServerError = new Error(options.reject?.message ?? 'Message refused by the test server');
          err.responseCode = options.reject?.code ?? 550;
          callback(err);
        });
        stream.resume();
        return;
      }
      simpleParser(stream).then(
        (parsed) => {
          const received: Received = {
            from: addressText(parsed.from),
            to: addressText(parsed.to),
            envelope: {
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            },
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : null,
            user: typeof session.user === 'string' ? session.user : null,
          };
          messages.push(received);
          for (const waiter of waiters) {
            if (waiter.predicate(received)) {
              waiters.delete(waiter);
              waiter.resolve(received);
            }
          }
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });

  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.server.off('error', reject);
      resolve();
    });
  });
  const port = (server.server.address() as net.AddressInfo).port;
  const credentials = options.auth ? `${encodeURIComponent(options.auth.user)}:${encodeURIComponent(options.auth.pass)}@` : '';

  return {
    url: `smtp://${credentials}127.0.0.1:${port}`,
    port,
    messages,
    logins,
    waitFor(predicate = () => true, timeoutMs = 5000) {
      const found = messages.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise<Received>((resolve, reject) => {
        const waiter = {
          predicate,
          resolve: (message: Received) => {
            clearTimeout(timer);
            resolve(message);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`no matching e-mail within ${timeoutMs} ms (${messages.length} received)`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A TCP server on 127.0.0.1 that accepts connections and never says a word (no SMTP greeting): a hanging mail server. */
export async function startSilentServer(): Promise<{ url: string; port: number; connections: () => number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  const server = net.createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    connections: () => accepted,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
