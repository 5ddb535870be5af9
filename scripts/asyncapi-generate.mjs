// `npm run asyncapi:generate`: renders the bus's AsyncAPI document (tools/asyncapi/src/document.ts) into asyncapi.yaml.
// The TypeScript is bundled with esbuild (workspace code bundled, node_modules external) into a temporary file and run.
import { build } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';

const root = resolve(import.meta.dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'asyncapi-'));
try {
  const outfile = join(dir, 'generate.cjs');
  await build({
    entryPoints: [resolve(root, 'tools/asyncapi/src/generate.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    packages: 'external',
    tsconfig: resolve(root, 'tsconfig.base.json'),
    logLevel: 'warning',
  });
  execFileSync(process.execPath, [outfile, root], { stdio: 'inherit', cwd: root, env: { ...process.env, NODE_PATH: join(root, 'node_modules') } });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
