import { freePort } from '@gateway/testing';
import { startListening, type Proc } from './processes';

/** Starts tools/bench/src/helpers-server.ts (bundled beside this file) in a mode; see that file. */
export async function startHelper(bundle: string, mode: string, extra: string[] = []): Promise<{ port: number; proc: Proc }> {
  const port = await freePort();
  const proc = await startListening(
    `helper-${mode}`,
    process.execPath,
    [bundle, mode, String(port), ...extra],
    { PATH: process.env.PATH, NODE_ENV: 'production' },
    port,
  );
  return { port, proc };
}
