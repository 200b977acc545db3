import { createDisabledMailer } from './disabled.js';
import { createSmtpMailer, type SmtpMailerOptions } from './smtp.js';
import type { MailConfig, Mailer } from './types.js';

export type { MailConfig, MailMessage, Mailer } from './types.js';
export { MailSendError } from './types.js';
export type { SmtpMailerOptions as MailerOptions } from './smtp.js';
export { accountSetupMail, addedToWorkspaceMail, invitationMail, passwordResetMail } from './messages.js';
export type { AccountSetupMailInput, AddedToWorkspaceMailInput, InvitationMailInput, PasswordResetMailInput } from './messages.js';

/** The SMTP mailer of config (AppConfig.mail), or one that is off (`enabled: false`) when config is null. */
export function createMailer(config: MailConfig | null, options: SmtpMailerOptions = {}): Mailer {
  return config === null ? createDisabledMailer() : createSmtpMailer(config, options);
}
