// Runs a TypeScript entry point of the workspace: bundled by esbuild (workspace code bundled, node_modules
// external) into a temporary file, then run by this Node with the repository root and `args`.
import { build } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';

export const root = resolve(import.meta.dirname, '..');

/** @param {string} entry a path from the repository root @param {string[]} [args] */
export async function runBundled(entry, args = []) {
  const dir = mkdtempSync(join(tmpdir(), 'run-'));
  try {
    const outfile = join(dir, 'entry.cjs');
    await build({
      entryPoints: [resolve(root, entry)],
      outfile,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      packages: 'external',
      tsconfig: resolve(root, 'tsconfig.base.json'),
      logLevel: 'warning',
    });
    execFileSync(process.execPath, [outfile, root, ...args], { stdio: 'inherit', cwd: root, env: { ...process.env, NODE_PATH: join(root, 'node_modules') } });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
