import { cpSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ensurePgliteTemplate, PGLITE_TEMPLATE } from '../pglite-template';

/**
 * PGlite opened on a new DATA_DIR copies its cluster from DATA_DIR's template (pglite-template.ts), made by initdb
 * once per DATA_DIR (about 4 s and 6 s of CPU, 16 s on a slow machine: most of a PGlite stack's or store suite's
 * start). For tests, the template is made once per machine and PGlite version instead (under the temp dir) and
 * copied into each new DATA_DIR (0.2 s).
 */
export function seedPgliteTemplate(dataDir: string): void {
  const machine = join(tmpdir(), `gw-pglite-template-${pgliteVersion()}`);
  ensurePgliteTemplate(machine);
  cpSync(machine, join(dataDir, PGLITE_TEMPLATE), { recursive: true });
}

/** The installed PGlite's version (its package.json is not among the package's exports: found from its entry). */
function pgliteVersion(): string {
  for (let dir = dirname(require.resolve('@electric-sql/pglite')); dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === '@electric-sql/pglite' && pkg.version) return pkg.version;
  }
  throw new Error('cannot find the installed @electric-sql/pglite package.json');
}
