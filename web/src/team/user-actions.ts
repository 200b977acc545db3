import type { AdminUser } from '../api/admin';

/** What an instance admin can do to another account from the users page (issue #27). */
export type UserAction = 'disable' | 'enable' | 'make-admin' | 'remove-admin' | 'password-link' | 'delete';

/** The actions offered for an account, as its menu lists them. */
export function actionsOf(u: AdminUser): { key: UserAction; label: string; danger?: boolean }[] {
  return [
    u.disabled ? { key: 'enable', label: 'Enable account' } : { key: 'disable', label: 'Disable account', danger: true },
    u.is_instance_admin ? { key: 'remove-admin', label: 'Remove instance admin' } : { key: 'make-admin', label: 'Make instance admin' },
    { key: 'password-link', label: 'New password link' },
    { key: 'delete', label: 'Delete account…', danger: true },
  ];
}
