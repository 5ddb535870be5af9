// `npm run sdk:generate`: writes the SDK's generated types (libs/sdk/src/generated/openapi.ts) from the edge's OpenAPI document.
// `--check`: exits 1 when the committed file differs from a fresh one (the edge's tests run it).
// The TypeScript is bundled with esbuild (workspace code bundled, node_modules external) into a temporary file and run.
import { build } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';

const root = resolve(import.meta.dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'sdk-'));
try {
  const outfile = join(dir, 'generate.cjs');
  await build({
    entryPoints: [resolve(root, 'apps/edge/src/openapi/generate-main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    packages: 'external',
    tsconfig: resolve(root, 'tsconfig.base.json'),
    logLevel: 'warning',
  });
  execFileSync(process.execPath, [outfile, root, ...process.argv.slice(2)], { stdio: 'inherit', cwd: root, env: { ...process.env, NODE_PATH: join(root, 'node_modules') } });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
