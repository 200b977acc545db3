import { requestData } from './http';
import type { BodyOf, DataOf, ItemOf } from './schema';

/**
 * Instance administration (issue #27, docs/features/teams.md): accounts and the registration mode, for instance admins only
 * (others get 403). Shapes read from the API's schemas (./schema.ts).
 */
type Users = '/admin/users';
type User = '/admin/users/{userId}';

/**
 * GET /admin/users: a page as the other lists answer it ({items, page, per_page, total}), where docs/features/teams.md says
 * `{data: AdminUser[], meta}`; the server's schema is followed.
 */
export type AdminUserPage = DataOf<Users, 'get'>;
export type AdminUser = ItemOf<AdminUserPage['items']>;
export type CreatedUser = DataOf<Users, 'post'>;
/** A link to hand on (account setup, new password): url null when a temporary password was set instead. */
export type AdminLink = Pick<CreatedUser, 'url' | 'emailed'>;
export type AdminSettings = DataOf<'/admin/settings', 'get'>;
export type RegistrationMode = AdminSettings['registration_mode'];
export type DeletedUser = DataOf<User, 'delete'>;
/** A housekeeping sweep refused for deleting too much of a workspace (issue #37, docs/operations.md "Faults"). */
export type SweepRefusal = ItemOf<DataOf<'/admin/sweeps', 'get'>>;
export type SweepName = SweepRefusal['sweep'];

export const adminApi = {
  /** By e-mail; `q` matches a part of the e-mail or the name. */
  users: (q: string, page: number, perPage: number) =>
    requestData<AdminUserPage>('GET', '/admin/users', { query: { q: q || undefined, page, per_page: perPage } }),
  /** With `password`, a temporary one to change at first sign-in; without, an account-setup link. 409 EMAIL_TAKEN. */
  createUser: (input: BodyOf<Users, 'post'>) => requestData<CreatedUser>('POST', '/admin/users', { body: input }),
  /** Disabling ends every session of the user at once. Answers the user. */
  updateUser: (id: number, changes: BodyOf<User, 'patch'>) => requestData<DataOf<User, 'patch'>>('PATCH', `/admin/users/${id}`, { body: changes }),
  passwordLink: (id: number) => requestData<DataOf<'/admin/users/{userId}/password-link', 'post'>>('POST', `/admin/users/${id}/password-link`),
  /** Workspaces the user alone administers go to `transferTo`; without one, those with other members refuse (409). */
  deleteUser: (id: number, transferTo: number | null) =>
    requestData<DeletedUser>('DELETE', `/admin/users/${id}`, { query: { transfer_to: transferTo ?? undefined } }),
  /** Refused sweeps, newest first; confirmed ones stay listed a day after they are done. */
  sweeps: () => requestData<SweepRefusal[]>('GET', '/admin/sweeps'),
  /** Lets the sweep delete what it listed (no more). 404 when no refusal of it waits for that workspace. */
  confirmSweep: (sweep: SweepName, workspaceId: number) =>
    requestData<SweepRefusal>('POST', `/admin/sweeps/${sweep}/confirm`, { body: { workspaceId } }),
  settings: () => requestData<AdminSettings>('GET', '/admin/settings'),
  updateSettings: (changes: BodyOf<'/admin/settings', 'patch'>) => requestData<DataOf<'/admin/settings', 'patch'>>('PATCH', '/admin/settings', { body: changes }),
};
