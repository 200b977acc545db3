import type { Role } from '../api/types';

/** The roles of a workspace, weakest first, with what each may do (seed 5.5). */
export const ROLES: { value: Role; label: string; hint: string }[] = [
  { value: 'viewer', label: 'Viewer', hint: 'Sees and downloads assets' },
  { value: 'manager', label: 'Manager', hint: 'Also uploads, edits, organises, restores versions' },
  { value: 'admin', label: 'Admin', hint: 'Also manages members and the workspace' },
];

export const roleLabel = (role: Role): string => ROLES.find((r) => r.value === role)?.label ?? role;

/** "a viewer", "an admin". */
export const withArticle = (role: Role): string => `${/^[aeiou]/i.test(role) ? 'an' : 'a'} ${roleLabel(role).toLowerCase()}`;
