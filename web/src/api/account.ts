import { request, requestData } from './http';
import type { BodyOf, DataOf, ItemOf, ResponseOf } from './schema';

/**
 * The signed-in user's own sign-in (issue #27, docs/features/teams.md): password, sessions, and the forgotten-password
 * links (also the account-setup links an instance admin hands out). Shapes read from the API's schemas (./schema.ts).
 */
export type SignInSession = ItemOf<DataOf<'/auth/sessions', 'get'>>;
/** A password link: its account's e-mail, and `purpose` 'setup' for an account an admin created (its first password). */
export type PasswordLinkInfo = DataOf<'/auth/password-reset', 'get'>;

export const accountApi = {
  /** current_password is required when the account has one. Ends every other session. */
  changePassword: (newPassword: string, currentPassword?: string) =>
    requestData<DataOf<'/auth/password', 'post'>>('POST', '/auth/password', {
      body: { new_password: newPassword, ...(currentPassword ? { current_password: currentPassword } : {}) } satisfies BodyOf<'/auth/password', 'post'>,
    }),
  sessions: () => requestData<SignInSession[]>('GET', '/auth/sessions'),
  /** Ending the current one is a logout. */
  endSession: (id: SignInSession['id']) =>
    requestData<DataOf<'/auth/sessions/{sessionId}', 'delete'>>('DELETE', `/auth/sessions/${encodeURIComponent(id)}`),
  endOtherSessions: () => requestData<DataOf<'/auth/sessions/end-others', 'post'>>('POST', '/auth/sessions/end-others'),

  // Forgotten password: only with e-mail on the server (else 404 PASSWORD_RESET_UNAVAILABLE); setup links work without.
  /** Always accepted, whether or not the e-mail has an account. */
  requestReset: (email: string) =>
    requestData<DataOf<'/auth/password-reset', 'post'>>('POST', '/auth/password-reset', {
      body: { email } satisfies BodyOf<'/auth/password-reset', 'post'>,
      auth: false,
    }),
  /** 410 LINK_INVALID when unknown, used or expired. */
  checkReset: (token: string) => requestData<PasswordLinkInfo>('GET', '/auth/password-reset', { query: { token }, auth: false }),
  /** Sets the password, ends every session of the account and signs in (the sign-in answer, without the envelope). */
  confirmReset: (token: string, password: string) =>
    request<ResponseOf<'/auth/password-reset/confirm', 'post'>>('POST', '/auth/password-reset/confirm', {
      body: { token, password } satisfies BodyOf<'/auth/password-reset/confirm', 'post'>,
      auth: false,
    }),
};
