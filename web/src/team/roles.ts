import type { Role } from '../api/types';
import { translate } from '../i18n';

/** The roles of a workspace, weakest first (seed 5.5); what each may do is `team.roleHints` in the catalogues. */
export const ROLES: readonly Role[] = ['viewer', 'manager', 'admin'];

/** "Viewer", "Manager": a role as a label (a select, a badge). */
export const roleLabel = (role: Role): string => (ROLES.includes(role) ? translate(`team.roles.${role}`) : role);

/** What the role may do: "Sees and downloads assets". */
export const roleHint = (role: Role): string => translate(`team.roleHints.${role}`);

/** "as a viewer", "as an admin": the role after a verb ("was added as a manager"). */
export const asRole = (role: Role): string => (ROLES.includes(role) ? translate(`team.asRole.${role}`) : role);

/** "viewer", "manager": a role as a word in running text. */
export const roleWord = (role: Role): string => (ROLES.includes(role) ? translate(`team.roleWords.${role}`) : role);
