import { flushPromises, mount } from '@vue/test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMemoryHistory, createRouter, type Router } from 'vue-router';
import { safeRedirect } from '../src/auth/redirect';
import { readSocialParams, startSocialSignIn } from '../src/auth/social';
import { session, endSession } from '../src/stores/session';
import SocialLoginView from '../src/views/SocialLoginView.vue';

const AUTH = { user: { id: 1, email: 'pat@example.test', name: 'Pat' }, token: 'jwt-token', workspaces: [{ id: 5, name: "Pat's workspace", role: 'admin' }] };
const Stub = { template: '<p>page</p>' };

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

async function visit(url: string): Promise<{ router: Router; wrapper: ReturnType<typeof mount> }> {
  const router = createRouter({
    history: createMemoryHistory(),
    routes: [
      { path: '/social-login', component: SocialLoginView },
      { path: '/login', component: Stub },
      { path: '/library', component: Stub },
      { path: '/settings/:id', component: Stub },
    ],
  });
  await router.push(url);
  const wrapper = mount({ template: '<RouterView />' }, { global: { plugins: [router] } });
  await flushPromises();
  return { router, wrapper };
}

describe('/social-login (seed 4.4)', () => {
  const fetchMock = vi.fn<typeof fetch>();
  beforeEach(() => {
    vi.stubGlobal('fetch', fetchMock);
    sessionStorage.clear();
    localStorage.clear();
    endSession();
  });
  afterEach(() => {
    fetchMock.mockReset();
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it('posts the token, stores the session and goes to the page the user wanted', async () => {
    fetchMock.mockResolvedValue(json(200, AUTH));
    startSocialSignIn('https://accounts.example/auth?client_id=c', '/settings/5', () => undefined);
    const state = (JSON.parse(sessionStorage.getItem('dam.social.pending')!) as { state: string }).state;
    const { router } = await visit(`/social-login?access_token=ya29.good&state=${state}`);
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe('/auth/social/callback');
    expect(JSON.parse(init!.body as string)).toEqual({ access_token: 'ya29.good', provider: 'google' });
    expect(session.token).toBe('jwt-token');
    expect(router.currentRoute.value.fullPath).toBe('/settings/5');
  });

  it('goes to the dashboard when no page was asked for', async () => {
    fetchMock.mockResolvedValue(json(200, AUTH));
    const { router } = await visit('/social-login?access_token=ya29.good');
    expect(router.currentRoute.value.path).toBe('/library');
  });

  it.each([
    ['an invalid or replayed token', json(401, { error: 'This sign-in token was already used', code: 'SOCIAL_TOKEN_INVALID' }), /invalid, has expired or was already used/],
    ['a server error', json(500, { error: 'Internal server error' }), /server had a problem/],
    ['an unreachable provider', json(502, { error: 'x', code: 'PROVIDER_ERROR' }), /Google could not be reached/],
  ])('shows a message for %s, then redirects to /login', async (_what, answer, message) => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    fetchMock.mockResolvedValue(answer);
    const { router, wrapper } = await visit('/social-login?access_token=ya29.bad');
    expect(wrapper.get('[role=alert]').text()).toMatch(message);
    expect(session.token).toBeNull();
    expect(router.currentRoute.value.path).toBe('/social-login');
    await vi.advanceTimersByTimeAsync(4000);
    await flushPromises();
    expect(router.currentRoute.value.path).toBe('/login');
    // The message goes to the sign-in page through this tab's storage, never the URL.
    expect(router.currentRoute.value.query).toEqual({});
    expect(sessionStorage.getItem('dam.signin.message')).toMatch(message);
  });

  it('shows the provider error (error, error_description) without calling the server', async () => {
    const { wrapper } = await visit('/social-login?error=access_denied&error_description=The%20user%20denied%20access');
    expect(wrapper.get('[role=alert]').text()).toContain('The user denied access');
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('shows a message for a missing token, and for a sign-in started elsewhere', async () => {
    const missing = await visit('/social-login');
    expect(missing.wrapper.get('[role=alert]').text()).toContain('No sign-in token');
    const forged = await visit('/social-login?access_token=ya29.x&state=not-ours');
    expect(forged.wrapper.get('[role=alert]').text()).toContain('not started from this browser');
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('offers Retry after a network error, and Retry finishes the sign-in', async () => {
    fetchMock.mockRejectedValueOnce(new TypeError('Failed to fetch')).mockResolvedValueOnce(json(200, AUTH));
    const { router, wrapper } = await visit('/social-login?access_token=ya29.good');
    expect(wrapper.get('[role=alert]').text()).toContain('could not reach the server');
    expect(router.currentRoute.value.path).toBe('/social-login');
    await wrapper.get('button.btn-primary').trigger('click');
    await flushPromises();
    // The callback twice (after the sign-in the session also reads the account's flags from GET /auth/me, issue #27).
    const callbacks = fetchMock.mock.calls.filter(([url]) => url === '/auth/social/callback');
    expect(callbacks).toHaveLength(2);
    expect(JSON.parse(callbacks[1]![1]!.body as string)).toMatchObject({ access_token: 'ya29.good' });
    expect(router.currentRoute.value.path).toBe('/library');
  });
});

describe('social sign-in helpers', () => {
  it('reads the token from the query (seed 2.4) or from the fragment (Google implicit flow)', () => {
    expect(readSocialParams({ access_token: 'q' }, '')).toMatchObject({ accessToken: 'q', error: null });
    expect(readSocialParams({}, '#access_token=f&token_type=Bearer&state=s')).toMatchObject({ accessToken: 'f', state: 's' });
    expect(readSocialParams({}, '#error=access_denied&error_description=No')).toMatchObject({ accessToken: null, error: 'access_denied', errorDescription: 'No' });
  });

  it('leaves for the provider with a state, keeping the page to come back to', () => {
    let went = '';
    startSocialSignIn('https://accounts.example/auth?client_id=c&scope=openid', '/asset/3', (u) => (went = u));
    const url = new URL(went);
    const pending = JSON.parse(sessionStorage.getItem('dam.social.pending')!) as { state: string; redirect: string };
    expect(url.searchParams.get('state')).toBe(pending.state);
    expect(url.searchParams.get('client_id')).toBe('c');
    expect(pending.redirect).toBe('/asset/3');
  });

  it('redirects only to pages of this app', () => {
    expect(safeRedirect('/asset/3?x=1')).toBe('/asset/3?x=1');
    expect(safeRedirect('/logins')).toBe('/logins');
    for (const bad of ['https://evil.example', '//evil.example', '/\\evil', '/\t/evil.example', 'javascript:alert(1)', undefined, '/login?x', '/social-login']) {
      expect(safeRedirect(bad)).toBe('/library');
    }
  });
});
