import { createRouter, createWebHistory, type RouteLocationNormalized, type Router } from 'vue-router';
import { safeRedirect } from './auth/redirect';
import { session, sessionExpired } from './stores/session';
import { translate } from './i18n';
import type en from './i18n/messages/en';

type TitleKey = keyof typeof en.shell.titles;

declare module 'vue-router' {
  interface RouteMeta {
    /** Only for signed-in users. */
    auth?: boolean;
    /** Only for signed-out users (seed 4.4: /social-login is guest-only). */
    guest?: boolean;
    /** For anyone, signed in or not (a shared link's page, an invitation). */
    public?: boolean;
    /** A key of shell.titles (web/src/i18n/messages/en/shell.ts): the page's name in the tab. */
    title?: TitleKey;
  }
}

/** Where a password that must be changed is changed. */
export const ACCOUNT = '/settings/account';

// Client paths never start with an API prefix (auth, dam, storage, workspaces, ...):
// the server serves index.html only for paths outside those (src/routes/web-client.ts).
export function buildRouter(): Router {
  const router = createRouter({
    history: createWebHistory(),
    routes: [
      { path: '/', redirect: '/library' },
      { path: '/login', component: () => import('./views/LoginView.vue'), meta: { guest: true, title: 'signIn' } },
      { path: '/register', component: () => import('./views/RegisterView.vue'), meta: { guest: true, title: 'register' } },
      { path: '/social-login', component: () => import('./views/SocialLoginView.vue'), meta: { guest: true, title: 'signingIn' } },
      // Issue #27: a forgotten password, and the links that set one (?token=; also an admin's account-setup links).
      { path: '/forgot-password', component: () => import('./views/ForgotPasswordView.vue'), meta: { guest: true, title: 'forgotPassword' } },
      { path: '/reset-password', component: () => import('./views/ResetPasswordView.vue'), meta: { guest: true, title: 'setPassword' } },
      // An invitation to a workspace (issue #27): create an account, or join with the one signed in.
      { path: '/invite/:token([A-Za-z0-9_-]+)', component: () => import('./views/InviteView.vue'), meta: { public: true, title: 'invitation' } },
      { path: '/library', component: () => import('./views/LibraryView.vue'), meta: { auth: true, title: 'library' } },
      // The trash keeps the library's sidebar: the same page, the trash in place of the grid.
      { path: '/library/trash', component: () => import('./views/LibraryView.vue'), meta: { auth: true, title: 'trash' } },
      // The same search by month taken, or on a map (issue #27; library/views.ts): the library's page, another view in place of the grid.
      { path: '/library/timeline', component: () => import('./views/LibraryView.vue'), meta: { auth: true, title: 'timeline' } },
      { path: '/library/map', component: () => import('./views/LibraryView.vue'), meta: { auth: true, title: 'map' } },
      // External drives (issue #16). Not /drives: that is the API's; the OAuth callback comes back here.
      { path: '/library/drives', component: () => import('./views/DrivesView.vue'), meta: { auth: true, title: 'drives' } },
      { path: '/asset/:id(\\d+)', component: () => import('./views/AssetView.vue'), meta: { auth: true, title: 'asset' } },
      { path: '/settings/account', component: () => import('./views/AccountSettingsView.vue'), meta: { auth: true, title: 'accountSettings' } },
      // The instance's users and registration (issue #27), for instance admins. Not /admin/users: that is the API's.
      { path: '/settings/users', component: () => import('./views/AdminUsersView.vue'), meta: { auth: true, title: 'users' } },
      // Held-back deletions (issue #37): housekeeping sweeps waiting for an instance admin's confirmation.
      { path: '/settings/housekeeping', component: () => import('./views/HousekeepingView.vue'), meta: { auth: true, title: 'housekeeping' } },
      { path: '/settings/:workspaceId(\\d+)?', component: () => import('./views/WorkspaceSettingsView.vue'), meta: { auth: true, title: 'workspaceSettings' } },
      { path: '/settings/:workspaceId(\\d+)/shares', component: () => import('./views/SharedLinksView.vue'), meta: { auth: true, title: 'sharedLinks' } },
      // Plan and billing (issue #17); Stripe Checkout and the billing portal return here (?checkout=success|canceled).
      { path: '/settings/:workspaceId(\\d+)/billing', component: () => import('./views/BillingView.vue'), meta: { auth: true, title: 'billing' } },
      // A shared link's public page (issue #14): no account, and the signed-in session is neither needed nor touched.
      { path: '/s/:key([A-Za-z0-9_-]+)', component: () => import('./views/PublicShareView.vue'), meta: { public: true, title: 'sharedFiles' } },
      { path: '/:pathMatch(.*)*', component: () => import('./views/NotFoundView.vue'), meta: { title: 'notFound' } },
    ],
    scrollBehavior: (_to, _from, saved) => saved ?? { top: 0 },
  });

  router.beforeEach((to: RouteLocationNormalized) => {
    if (to.meta.auth && !session.token) return { path: '/login', query: { redirect: to.fullPath, ...(sessionExpired() ? { expired: '1' } : {}) } };
    // Issue #27: after an admin set a temporary password, nothing else until it is changed.
    if (to.meta.auth && session.user?.must_change_password && to.path !== ACCOUNT) return ACCOUNT;
    if (to.meta.guest && session.token) return safeRedirect(to.query.redirect);
    return true;
  });
  router.afterEach((to) => {
    document.title = to.meta.title ? `${translate(`shell.titles.${to.meta.title}`)} · DAM` : 'DAM';
  });
  return router;
}
