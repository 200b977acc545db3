import type { RegistrationMode } from '../api/admin';
import { currentLocale, translate } from '../i18n';

/** The instance's registration modes (issue #27); each one's name and who may create an account are `team.registration.modes` / `modeHints`. */
export const REGISTRATION_MODES: readonly RegistrationMode[] = ['open', 'domains', 'invite', 'closed'];

/** What the registration page tells a visitor who may not simply register, or null when anyone may. */
export function registrationNotice(mode: RegistrationMode, domains: readonly string[]): string | null {
  switch (mode) {
    case 'open':
      return null;
    case 'domains':
      return translate('auth.register.notice.domains', { domains: listDomains(domains) });
    case 'invite':
      return translate('auth.register.notice.invite');
    case 'closed':
      return translate('auth.register.notice.closed');
  }
}

function listDomains(domains: readonly string[]): string {
  const named = domains.map((d) => `@${d}`);
  if (named.length === 0) return translate('auth.register.anyDomain');
  return new Intl.ListFormat(currentLocale(), { type: 'disjunction' }).format(named);
}

/** Host names typed one a line, or separated by commas or spaces: lower-cased, without a leading @, without repeats. */
export function parseDomains(text: string): string[] {
  const all = text
    .split(/[\s,;]+/)
    .map((d) => d.trim().replace(/^@/, '').toLowerCase())
    .filter(Boolean);
  return [...new Set(all)];
}
