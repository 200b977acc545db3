import type { Mailer, MailMessage } from '../mail/types.js';

/** Where a failed send is reported (the app's logger, set by buildApp). */
export interface OutboxLog {
  warn(fields: object, message: string): void;
}

/**
 * The services' way to send e-mail (issue #27). A send never fails the request that caused it: a failure is
 * logged (without the message, whose links are secrets, and without the SMTP URL) and answered as `false`,
 * so the admin copies the link instead.
 */
export class Outbox {
  log: OutboxLog | undefined;

  constructor(private readonly mailer: Mailer) {}

  get enabled(): boolean {
    return this.mailer.enabled;
  }

  /** true when the message was handed to the SMTP server; false when e-mail is off or the send failed. */
  async send(kind: string, message: MailMessage): Promise<boolean> {
    if (!this.mailer.enabled) return false;
    try {
      await this.mailer.send(message);
      return true;
    } catch (err) {
      this.log?.warn({ mail: kind, error: err instanceof Error ? err.message : String(err) }, 'e-mail not sent');
      return false;
    }
  }
}
