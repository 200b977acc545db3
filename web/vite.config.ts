import { fileURLToPath } from 'node:url';
import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));
// `npm run dev:web` proxies the API to a server started with `npm start` (PORT 8080 unless DAM_API_URL says otherwise).
const api = process.env.DAM_API_URL ?? 'http://localhost:8080';
const apiPrefixes = ['/auth', '/workspaces', '/dam', '/storage', '/search-engine', '/api', '/docs', '/openapi.json', '/admin', '/shared', '/zip', '/drives', '/drive-ext-1', '/drive-ext-2', '/drive-ext-3'];

export default defineConfig({
  root,
  plugins: [vue()],
  // vue-i18n's feature flags (issue #29): composition API only, no devtools in production.
  define: { __VUE_I18N_FULL_INSTALL__: true, __VUE_I18N_LEGACY_API__: false, __INTLIFY_PROD_DEVTOOLS__: false },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    chunkSizeWarningLimit: 600,
    // The SDK's upload helper loads these only to open a file *path* (Node); the page passes Files, so they stay out
    // of the bundle (mime-types alone would be a 150 kB chunk) instead of becoming browser stubs.
    rollupOptions: { external: ['node:fs', 'node:path', 'mime-types'] },
  },
  server: { proxy: Object.fromEntries(apiPrefixes.map((p) => [p, { target: api, changeOrigin: false }])) },
});
