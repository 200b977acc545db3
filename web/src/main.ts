import { createApp } from 'vue';
import App from './App.vue';
import { configureHttp } from './api/http';
import { buildRouter } from './router';
import { endSession, refreshSession, session } from './stores/session';
import { applySavedTheme } from './stores/theme';
import './styles/main.css';

applySavedTheme();

const router = buildRouter();

configureHttp({
  token: () => session.token,
  // The session ended (expired, revoked): back to sign-in, then here again.
  onUnauthorized: () => {
    endSession();
    const here = router.currentRoute.value;
    if (here.meta.auth) void router.replace({ path: '/login', query: { redirect: here.fullPath, expired: '1' } });
  },
});

// Workspaces and roles may have changed since the session was stored. Not on a shared link's
// public page (/s/:key, issue #14), which neither needs nor touches the session.
if (session.token && !window.location.pathname.startsWith('/s/')) void refreshSession().catch(() => undefined);

createApp(App).use(router).mount('#app');
