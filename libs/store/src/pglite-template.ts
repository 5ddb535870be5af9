import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';

// no import of PGlite here: a process on a server database loads none of it (this file is in the library's index)

/** Beside the services' directories under DATA_DIR: a pristine cluster (initdb's output, nothing else) to copy. */
export const PGLITE_TEMPLATE = '.pglite-template';

/**
 * Creating a data directory runs initdb, a second WASM PostgreSQL that peaks near 800 MB and whose memory a
 * process never gives back, for about 4 s and 6 s of CPU. It runs in a short-lived child process, so the service
 * itself only ever holds the running instance, and once per DATA_DIR: the cluster it makes is kept as
 * `DATA_DIR/.pglite-template` and each service's directory is a copy of it (a cluster directory copied while no
 * instance runs on it is that cluster: the copies share only initdb's system identifier, which matters to
 * replication alone). Five services on one DATA_DIR ran initdb five times.
 */
export function initPgliteDataDir(dir: string): void {
  if (existsSync(join(dir, 'PG_VERSION'))) return;
  const template = join(dirname(dir), PGLITE_TEMPLATE);
  ensurePgliteTemplate(template);
  // copied beside it and renamed into place (over the empty directory): a copy cut short never looks like a cluster
  atomically(dir, (tmp) => cpSync(template, tmp, { recursive: true }));
}

/**
 * A pristine cluster in `template`, made by initdb when missing. Processes starting together may each make one:
 * each is made aside and renamed into place, the first rename wins and the others are dropped.
 */
export function ensurePgliteTemplate(template: string): void {
  if (existsSync(join(template, 'PG_VERSION'))) return;
  mkdirSync(dirname(template), { recursive: true });
  atomically(template, (tmp) => {
    const script = `require(${JSON.stringify(require.resolve('@electric-sql/pglite'))}).PGlite.create(process.argv[1]).then((pg) => pg.close()).catch((e) => { console.error(e); process.exit(1); })`;
    const r = spawnSync(process.execPath, ['-e', script, tmp], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 120_000 });
    if (r.status !== 0) throw new Error(`could not create the embedded database in ${tmp}: ${r.stderr?.toString().slice(0, 500) || r.error?.message}`);
  });
}

/** Fills a new directory beside `target` and renames it to `target` (an empty directory there is replaced). */
function atomically(target: string, fill: (tmp: string) => void): void {
  const tmp = `${target}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    fill(tmp);
    try {
      renameSync(tmp, target);
    } catch (e) {
      // another process put its copy there first: that one stands
      if (!existsSync(join(target, 'PG_VERSION'))) throw e;
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
