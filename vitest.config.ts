import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Each file builds its own app on its own database; files run in parallel workers.
    pool: 'forks',
    projects: [
      // The API through its HTTP interface, on SQLite (and PostgreSQL when configured).
      {
        extends: true,
        test: { name: 'server', include: ['test/**/*.test.ts'], exclude: ['test/browser/**', 'test/cluster/**', 'test/security/**', 'test/faults/**'], globalSetup: ['test/helpers/pg-global-setup.ts'] },
      },
      // The web client's components and modules, in a simulated DOM.
      {
        plugins: [vue()],
        // vue-i18n's feature flags as in web/vite.config.ts; web/test/setup.ts installs i18n (English) for every mount.
        define: { __VUE_I18N_FULL_INSTALL__: true, __VUE_I18N_LEGACY_API__: false, __INTLIFY_PROD_DEVTOOLS__: false },
        test: { name: 'web', include: ['web/test/**/*.test.ts'], environment: 'happy-dom', setupFiles: ['web/test/setup.ts'] },
      },
      // The built web client in Debian's chromium against the real server (test/browser/harness.ts).
      {
        extends: true,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          globalSetup: ['test/browser/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
