import { createApp } from 'vue';
import App from './App.vue';
import { configureHttp } from './api/http';
import { ACCOUNT, buildRouter } from './router';
import { endSession, refreshSession, session, setMustChangePassword } from './stores/session';
import { applySavedTheme } from './stores/theme';
import { applyUserLocale, i18n } from './i18n';
import './styles/main.css';

applySavedTheme();
// Issue #29: the signed-in user's language as last stored (GET /auth/me confirms it below), else the browser's.
applyUserLocale(session.user?.locale);

const router = buildRouter();

configureHttp({
  token: () => session.token,
  // The session ended (expired, signed out elsewhere, password changed elsewhere, account disabled): back to
  // sign-in with a word on why, then here again. Several calls may fail at once: the first one does it. Before the
  // first navigation is done there is no page yet: the router's guard sends an auth page to sign-in by itself.
  onUnauthorized: () => {
    if (!session.token) return;
    endSession(true);
    void router.isReady().then(() => {
      const here = router.currentRoute.value;
      if (here.meta.auth) void router.replace({ path: '/login', query: { redirect: here.fullPath, expired: '1' } });
    });
  },
  // Issue #27: an admin set a temporary password; every page but the account's is refused until it is changed.
  onPasswordChangeRequired: () => {
    setMustChangePassword(true);
    if (router.currentRoute.value.path !== ACCOUNT) void router.replace(ACCOUNT);
  },
});

// Workspaces and roles may have changed since the session was stored. Not on a shared link's
// public page (/s/:key, issue #14), which neither needs nor touches the session.
if (session.token && !window.location.pathname.startsWith('/s/')) void refreshSession().catch(() => undefined);

createApp(App).use(i18n).use(router).mount('#app');
