// Bundles one app (apps/<name>/src/main.ts) into dist/apps/<name>/main.js (or the file given second). Workspace code is bundled,
// node_modules stay external (PGlite ships wasm files next to its code).
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

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
