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
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 600 },
  server: { proxy: Object.fromEntries(apiPrefixes.map((p) => [p, { target: api, changeOrigin: false }])) },
});
