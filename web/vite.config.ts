import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The dashboard: built into dist/web, served by the API server at `/` (same origin: the session cookie
// and the /v1 API need nothing else). `npm run dev:web` proxies the API to a running server.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  build: { outDir: fileURLToPath(new URL('../dist/web', import.meta.url)), emptyOutDir: true, sourcemap: false },
  server: {
    proxy: Object.fromEntries(
      ['/v1', '/auth', '/dev-idp'].map((path) => [path, { target: process.env.SIGHTLINE_URL ?? 'http://localhost:8080', changeOrigin: false }]),
    ),
  },
});
