import { request, requestData } from './http';
import type { AuthResult, SocialConfig, User, WorkspaceItem } from './types';

export const authApi = {
  login: (email: string, password: string) => request<AuthResult>('POST', '/auth/login', { body: { email, password }, auth: false }),
  register: (input: { email: string; password: string; name: string }) =>
    request<AuthResult>('POST', '/auth/register', { body: input, auth: false }),
  logout: () => requestData<{ logged_out: true }>('POST', '/auth/logout'),
  me: () => request<{ user: User; workspaces: WorkspaceItem[] }>('GET', '/auth/me'),
  socialConfig: () => requestData<SocialConfig>('GET', '/auth/social/config', { auth: false }),
  /** seed 4.4 */
  socialCallback: (accessToken: string, provider: 'google' = 'google') =>
    request<AuthResult>('POST', '/auth/social/callback', { body: { access_token: accessToken, provider }, auth: false }),
};
