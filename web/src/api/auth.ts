import { request, requestData } from './http';
import type { BodyOf, DataOf, ResponseOf } from './schema';
import type { SocialConfig } from './types';

/** Login, registration, the social callback and /auth/me answer without the {success, data} envelope (seed 2.4). */
export type Account = ResponseOf<'/auth/me', 'get'>;
export type RegisterRequest = BodyOf<'/auth/register', 'post'>;
/** Only the fields given change; phone in E.164, null removes it. */
export type AccountChanges = BodyOf<'/auth/me', 'patch'>;

/** GET /auth/options (issue #27, public): who may create an account, and whether a forgotten password can be reset by e-mail. */
export type AuthOptions = DataOf<'/auth/options', 'get'>;

export const authApi = {
  login: (email: string, password: string) =>
    request<ResponseOf<'/auth/login', 'post'>>('POST', '/auth/login', { body: { email, password } satisfies BodyOf<'/auth/login', 'post'>, auth: false }),
  register: (input: RegisterRequest) => request<ResponseOf<'/auth/register', 'post'>>('POST', '/auth/register', { body: input, auth: false }),
  logout: () => requestData<DataOf<'/auth/logout', 'post'>>('POST', '/auth/logout'),
  me: () => request<Account>('GET', '/auth/me'),
  updateMe: (changes: AccountChanges) => request<ResponseOf<'/auth/me', 'patch'>>('PATCH', '/auth/me', { body: changes }),
  options: () => requestData<AuthOptions>('GET', '/auth/options', { auth: false }),
  socialConfig: () => requestData<SocialConfig>('GET', '/auth/social/config', { auth: false }),
  /** seed 4.4 */
  socialCallback: (accessToken: string, provider: BodyOf<'/auth/social/callback', 'post'>['provider'] = 'google') =>
    request<ResponseOf<'/auth/social/callback', 'post'>>('POST', '/auth/social/callback', {
      body: { access_token: accessToken, provider },
      auth: false,
    }),
};
