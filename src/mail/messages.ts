import type { MailMessage } from './types.js';

/**
 * The four e-mails the service sends (docs/features/teams.md, "E-mail"), as pure functions of their
 * data. Names and workspace names are user-provided: HTML-escaped in the HTML part, kept on
 * one line and shortened in subjects. Times are Unix seconds; `now` (default: the clock)
 * only serves to say how long a link stays valid.
 */

export interface InvitationMailInput {
  readonly to: string;
  readonly workspaceName: string;
  /** Who invited; null when unknown (the inviter's account is gone). */
  readonly inviterName: string | null;
  /** `viewer`, `manager` or `admin` (any other word is shown as is). */
  readonly role: string;
  /** `$DAM_PUBLIC_URL/invite/<token>`. */
  readonly url: string;
  readonly expiresAt: number;
  readonly now?: number;
}

export interface AddedToWorkspaceMailInput {
  readonly to: string;
  readonly workspaceName: string;
  readonly inviterName: string | null;
  readonly role: string;
  /** Where the workspace's library opens, e.g. `$DAM_PUBLIC_URL/`. */
  readonly libraryUrl: string;
}

export interface PasswordResetMailInput {
  readonly to: string;
  /** `$DAM_PUBLIC_URL/reset-password?token=…`. */
  readonly url: string;
  readonly expiresAt: number;
  readonly now?: number;
}

export interface AccountSetupMailInput {
  readonly to: string;
  /** The new account's name. */
  readonly name: string;
  /** `$DAM_PUBLIC_URL/reset-password?token=…`. */
  readonly url: string;
  readonly expiresAt: number;
  /** The instance admin who made the account; null when unknown. */
  readonly invitedBy: string | null;
  readonly now?: number;
}

export function invitationMail(input: InvitationMailInput): MailMessage {
  const workspace = oneLine(input.workspaceName);
  const inviter = input.inviterName ? oneLine(input.inviterName) : null;
  const valid = validity(input.expiresAt, input.now);
  const who = inviter ? `${inviter} invited you` : 'You have been invited';
  const lead = `${who} to join the workspace "${workspace}" as ${withArticle(input.role)} (${roleMeaning(input.role)}).`;
  const action = 'Open this link to accept the invitation and create your account, or join with the account you already have:';
  const text = [
    'Hello,',
    '',
    lead,
    '',
    action,
    input.url,
    '',
    `The link is valid for ${valid.duration} (until ${valid.until}) and can be used once.`,
    '',
    'If you did not expect this invitation, you can ignore this e-mail.',
  ].join('\n');
  const html = page([
    paragraph('Hello,'),
    paragraph(
      `${inviter ? `<strong>${escapeHtml(inviter)}</strong> invited you` : 'You have been invited'} to join the workspace ` +
        `<strong>${escapeHtml(workspace)}</strong> as ${escapeHtml(withArticle(input.role))} (${escapeHtml(roleMeaning(input.role))}).`,
    ),
    paragraph(escapeHtml(action)),
    button(input.url, 'Accept the invitation'),
    paragraph(`The link is valid for ${escapeHtml(valid.duration)} (until ${escapeHtml(valid.until)}) and can be used once.`),
    paragraph('If you did not expect this invitation, you can ignore this e-mail.', true),
  ]);
  return { to: input.to, subject: `Invitation to join "${forSubject(workspace)}"`, text, html };
}

export function addedToWorkspaceMail(input: AddedToWorkspaceMailInput): MailMessage {
  const workspace = oneLine(input.workspaceName);
  const inviter = input.inviterName ? oneLine(input.inviterName) : null;
  const who = inviter ? `${inviter} added you` : 'You were added';
  const text = [
    'Hello,',
    '',
    `${who} to the workspace "${workspace}" as ${withArticle(input.role)} (${roleMeaning(input.role)}).`,
    '',
    'Sign in to open it:',
    input.libraryUrl,
  ].join('\n');
  const html = page([
    paragraph('Hello,'),
    paragraph(
      `${inviter ? `<strong>${escapeHtml(inviter)}</strong> added you` : 'You were added'} to the workspace ` +
        `<strong>${escapeHtml(workspace)}</strong> as ${escapeHtml(withArticle(input.role))} (${escapeHtml(roleMeaning(input.role))}).`,
    ),
    paragraph('Sign in to open it:'),
    button(input.libraryUrl, 'Open the library'),
  ]);
  return { to: input.to, subject: `You were added to "${forSubject(workspace)}"`, text, html };
}

export function passwordResetMail(input: PasswordResetMailInput): MailMessage {
  const valid = validity(input.expiresAt, input.now);
  const text = [
    'Hello,',
    '',
    `Someone asked to reset the password of the account ${input.to}.`,
    'Open this link to choose a new password:',
    input.url,
    '',
    `The link is valid for ${valid.duration} (until ${valid.until}) and can be used once. Setting a new password signs you out everywhere.`,
    '',
    'If you did not ask for this, ignore this e-mail: your password stays as it is.',
  ].join('\n');
  const html = page([
    paragraph('Hello,'),
    paragraph(`Someone asked to reset the password of the account <strong>${escapeHtml(input.to)}</strong>. Open this link to choose a new password:`),
    button(input.url, 'Choose a new password'),
    paragraph(
      `The link is valid for ${escapeHtml(valid.duration)} (until ${escapeHtml(valid.until)}) and can be used once. ` +
        'Setting a new password signs you out everywhere.',
    ),
    paragraph('If you did not ask for this, ignore this e-mail: your password stays as it is.', true),
  ]);
  return { to: input.to, subject: 'Reset your password', text, html };
}

export function accountSetupMail(input: AccountSetupMailInput): MailMessage {
  const name = oneLine(input.name);
  const by = input.invitedBy ? oneLine(input.invitedBy) : null;
  const valid = validity(input.expiresAt, input.now);
  const greeting = name ? `Hello ${name},` : 'Hello,';
  const made = `${by ? `${by} created an account for you` : 'An account was created for you'} (${input.to}).`;
  const text = [
    greeting,
    '',
    made,
    'Open this link to choose your password and sign in:',
    input.url,
    '',
    `The link is valid for ${valid.duration} (until ${valid.until}) and can be used once.`,
    '',
    'If you did not expect this, you can ignore this e-mail.',
  ].join('\n');
  const html = page([
    paragraph(escapeHtml(greeting)),
    paragraph(
      `${by ? `<strong>${escapeHtml(by)}</strong> created an account for you` : 'An account was created for you'} (${escapeHtml(input.to)}). ` +
        'Open this link to choose your password and sign in:',
    ),
    button(input.url, 'Set up your account'),
    paragraph(`The link is valid for ${escapeHtml(valid.duration)} (until ${escapeHtml(valid.until)}) and can be used once.`),
    paragraph('If you did not expect this, you can ignore this e-mail.', true),
  ]);
  return { to: input.to, subject: 'Set up your account', text, html };
}

/** `&`, `<`, `>`, `"` and `'` as entities: safe in element content and in quoted attributes. */
const HTML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ENTITIES[c] ?? c);
}

/** Control characters (line breaks included) as spaces, runs of whitespace as one. */
function oneLine(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ').replace(/\s+/g, ' ').trim();
}

/** A name as a subject shows it: at most 60 characters. */
function forSubject(value: string): string {
  const chars = [...value];
  return chars.length > 60 ? `${chars.slice(0, 59).join('')}…` : value;
}

const ROLE_MEANINGS: Record<string, string> = {
  viewer: 'can view and download assets',
  manager: 'can upload, edit and organise assets',
  admin: 'can also manage members and settings',
};

function roleMeaning(role: string): string {
  return ROLE_MEANINGS[role] ?? 'see the workspace for what this role may do';
}

function withArticle(role: string): string {
  const word = oneLine(role) || 'member';
  return `${/^[aeiou]/i.test(word) ? 'an' : 'a'} ${word}`;
}

/** How long a link is valid, rounded as a person would say it, and until when (UTC). */
function validity(expiresAt: number, now: number = Math.floor(Date.now() / 1000)): { duration: string; until: string } {
  return { duration: humanDuration(expiresAt - now), until: utcTime(expiresAt) };
}

function humanDuration(seconds: number): string {
  const minutes = Math.max(1, Math.round(seconds / 60));
  if (minutes < 60) return plural(minutes, 'minute');
  const hours = Math.round(seconds / 3600);
  if (hours < 48) return plural(hours, 'hour');
  return plural(Math.round(seconds / 86_400), 'day');
}

function plural(count: number, unit: string): string {
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}

/** `2026-11-27 14:00 UTC`. */
function utcTime(unixSeconds: number): string {
  return `${new Date(unixSeconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function paragraph(html: string, muted = false): string {
  return `<p style="margin:0 0 16px;${muted ? 'color:#666;font-size:13px;' : ''}">${html}</p>`;
}

function button(url: string, label: string): string {
  const href = escapeHtml(url);
  return (
    `<p style="margin:0 0 16px;"><a href="${href}" style="display:inline-block;padding:10px 18px;background:#2563eb;color:#ffffff;` +
    `text-decoration:none;border-radius:6px;">${escapeHtml(label)}</a></p>` +
    `<p style="margin:0 0 16px;font-size:13px;color:#666;">Or copy this link into your browser:<br>` +
    `<a href="${href}" style="color:#2563eb;word-break:break-all;">${href}</a></p>`
  );
}

function page(parts: string[]): string {
  return (
    '<!DOCTYPE html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"></head>' +
    '<body style="margin:0;padding:24px;font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;font-size:15px;line-height:1.5;color:#111;">' +
    `<div style="max-width:560px;margin:0 auto;">${parts.join('')}</div></body></html>`
  );
}
