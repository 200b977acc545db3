import type { AppContext } from '../context.js';
import type { DB } from '../db/database.js';
import { getSetting, putSetting } from '../repositories/instance-settings.js';

/**
 * Who may create an account (issue #27, docs/features/teams.md "Registration modes"). Kept in the settings
 * table so that every process reads the same; read on each decision (sign-ups are rare).
 */
export type RegistrationMode = 'open' | 'domains' | 'invite' | 'closed';
export const REGISTRATION_MODES: readonly RegistrationMode[] = ['open', 'domains', 'invite', 'closed'];

export interface RegistrationPolicy {
  mode: RegistrationMode;
  /** Lower-case host names (`example.com`); used in `domains` mode. */
  domains: string[];
}

const MODE_KEY = 'registration_mode';
const DOMAINS_KEY = 'registration_domains';

export async function readRegistrationPolicy(ctx: AppContext, db: DB = ctx.db): Promise<RegistrationPolicy> {
  const [mode, domains] = await Promise.all([getSetting(db, MODE_KEY), getSetting(db, DOMAINS_KEY)]);
  return {
    mode: REGISTRATION_MODES.includes(mode as RegistrationMode) ? (mode as RegistrationMode) : ctx.config.allowRegistration ? 'open' : 'invite',
    domains: domains ? (JSON.parse(domains) as string[]) : [],
  };
}

export async function writeRegistrationPolicy(db: DB, policy: RegistrationPolicy): Promise<void> {
  await putSetting(db, MODE_KEY, policy.mode);
  await putSetting(db, DOMAINS_KEY, JSON.stringify(policy.domains));
}

/** The domain of an e-mail address, lower-cased. */
export function emailDomain(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase();
}

/** Whether anyone with this e-mail may sign up by themselves (no invitation). */
export function selfRegistrationAllowed(policy: RegistrationPolicy, email: string): boolean {
  if (policy.mode === 'open') return true;
  if (policy.mode === 'domains') return policy.domains.includes(emailDomain(email));
  return false;
}
