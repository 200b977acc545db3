import type { AdminUser } from '../api/admin';
import { translate } from '../i18n';

/** What an instance admin can do to another account from the users page (issue #27). */
export type UserAction = 'disable' | 'enable' | 'make-admin' | 'remove-admin' | 'password-link' | 'delete';

/** The actions offered for an account, as its menu lists them. */
export function actionsOf(u: AdminUser): { key: UserAction; label: string; danger?: boolean }[] {
  return [
    u.disabled ? { key: 'enable', label: translate('team.userActions.enable') } : { key: 'disable', label: translate('team.userActions.disable'), danger: true },
    u.is_instance_admin
      ? { key: 'remove-admin', label: translate('team.userActions.removeAdmin') }
      : { key: 'make-admin', label: translate('team.userActions.makeAdmin') },
    { key: 'password-link', label: translate('team.userActions.passwordLink') },
    { key: 'delete', label: translate('team.userActions.delete'), danger: true },
  ];
}
