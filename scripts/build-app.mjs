// Bundles one app (apps/<name>/src/main.ts) into dist/apps/<name>/main.js (or the file given second). Workspace code is bundled,
// node_modules stay external (PGlite ships wasm files next to its code).
import { build } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';

const name = process.argv[2];
const root = resolve(import.meta.dirname, '..');
const entry = resolve(root, 'apps', name ?? '', 'src', 'main.ts');
if (!name || !existsSync(entry)) {
  console.error(`usage: node scripts/build-app.mjs <app>  (no ${entry})`);
  process.exit(2);
}
const outfile = process.argv[3] ? resolve(process.argv[3]) : resolve(root, 'dist', 'apps', name, 'main.js');
await build({
  entryPoints: [entry],
  outfile,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  packages: 'external',
  tsconfig: resolve(root, 'tsconfig.base.json'),
  sourcemap: true,
  logLevel: 'warning',
});
console.log(outfile);

if (name === 'edge') {
  // GET /docs serves Scalar's standalone bundle; the image's node_modules has production packages only, so the
  // bundle goes beside main.js (apps/edge/src/routes/reference.ts looks there first)
  const standalone = resolve(dirname(createRequire(import.meta.url).resolve('@scalar/api-reference')), 'browser', 'standalone.js');
  mkdirSync(resolve(dirname(outfile), 'api-reference'), { recursive: true });
  copyFileSync(standalone, resolve(dirname(outfile), 'api-reference', 'standalone.js'));
}
