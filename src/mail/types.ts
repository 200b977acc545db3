/** One e-mail: a single recipient, a subject, a plain-text body and optionally an HTML one. */
export interface MailMessage {
  /** One bare address (`someone@example.com`): no display name, no list. */
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html?: string;
}

/** Sends e-mail. `enabled` is false when no SMTP server is configured; send then rejects. */
export interface Mailer {
  readonly enabled: boolean;
  /** Resolves once the SMTP server accepted the message; rejects with a MailSendError otherwise. */
  send(message: MailMessage): Promise<void>;
}

/** DAM_SMTP_URL and DAM_SMTP_FROM (src/config.ts); null there when DAM_SMTP_URL is unset. */
export interface MailConfig {
  /** `smtp://user:pass@host:port` or `smtps://…`, nodemailer's URL form (query options such as `?requireTLS=true` pass through). Never logged. */
  readonly url: string;
  /** The From header, e.g. `DAM <no-reply@dam.example.com>`. */
  readonly from: string;
}

/**
 * Why a send failed. The message says what the SMTP server or the connection answered
 * (`SMTP send failed: EAUTH 535 …`), never the SMTP URL or its password.
 */
export class MailSendError extends Error {
  override readonly name = 'MailSendError';
  constructor(
    message: string,
    /** nodemailer's error code (`EAUTH`, `ECONNECTION`, `ETIMEDOUT`, `EENVELOPE`, `EMESSAGE`, `EABORT`, …), or `EDISABLED`/`EADDRESS` of our own. */
    readonly code: string,
    /** The SMTP reply code when the server answered one (e.g. 550). */
    readonly responseCode?: number,
  ) {
    super(message);
  }
}
