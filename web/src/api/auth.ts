import { request, requestData } from './http';
import type { AccountUser, AuthResult, SocialConfig, WorkspaceItem } from './types';

export const authApi = {
  login: (email: string, password: string) => request<AuthResult>('POST', '/auth/login', { body: { email, password }, auth: false }),
  register: (input: { email: string; password: string; name: string }) =>
    request<AuthResult>('POST', '/auth/register', { body: input, auth: false }),
  logout: () => requestData<{ logged_out: true }>('POST', '/auth/logout'),
  me: () => request<{ user: AccountUser; workspaces: WorkspaceItem[] }>('GET', '/auth/me'),
  /** Only the fields given change; phone in E.164, null removes it. */
  updateMe: (changes: { name?: string; phone?: string | null }) =>
    request<{ user: AccountUser; workspaces: WorkspaceItem[] }>('PATCH', '/auth/me', { body: changes }),
  socialConfig: () => requestData<SocialConfig>('GET', '/auth/social/config', { auth: false }),
  /** seed 4.4 */
  socialCallback: (accessToken: string, provider: 'google' = 'google') =>
    request<AuthResult>('POST', '/auth/social/callback', { body: { access_token: accessToken, provider }, auth: false }),
};
