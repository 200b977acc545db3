import { MailSendError, type Mailer } from './types.js';

/** The mailer without DAM_SMTP_URL: says it is off, and refuses to send. */
export function createDisabledMailer(): Mailer {
  return {
    enabled: false,
    send(): Promise<void> {
      return Promise.reject(new MailSendError('E-mail is not configured (DAM_SMTP_URL is unset)', 'EDISABLED'));
    },
  };
}
