import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The repository root, found upwards from here (this file runs from its source under jest, bundled under dist/). */
export function repoRoot(from = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'scripts', 'build-app.mjs'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no repository root above ${from}`);
  }
}

/** Bundles an app's main.ts with the repository's build script into dist/.chaos (node_modules resolve from the root). */
export async function bundleApp(name: string): Promise<string> {
  const root = repoRoot();
  const outfile = resolve(root, 'dist', '.chaos', `${name}-${process.pid}`, 'main.js');
  mkdirSync(dirname(outfile), { recursive: true });
  await new Promise<void>((ok, fail) => {
    const build = spawn(process.execPath, [join(root, 'scripts', 'build-app.mjs'), name, outfile], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    build.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    build.once('exit', (code) => (code === 0 ? ok() : fail(new Error(`bundling ${name} failed: ${err}`))));
  });
  return outfile;
}
