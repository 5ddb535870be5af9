// Builds the dashboard (ui/) into dist/apps/dashboard, served by the edge at /dashboard with a strict CSP:
// no inline script or style, every asset a hashed file of this build (nothing from a CDN).
import { resolve } from 'node:path';
import { defineConfig } from 'vite';

export default defineConfig({
  root: resolve(import.meta.dirname, 'ui'),
  base: '/dashboard/',
  logLevel: 'warn',
  // the gateway's SDK (libs/sdk) without its Node-only webhook verifier: the request layer and the record
  // types generated from the OpenAPI document
  resolve: { alias: { '@gateway/sdk/client': resolve(import.meta.dirname, '../../libs/sdk/src/client.ts') } },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: resolve(import.meta.dirname, '../../dist/apps/dashboard'),
    emptyOutDir: true,
    // the preload polyfill would be an inline script; every supported browser has modulepreload
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    target: 'es2022',
  },
});
