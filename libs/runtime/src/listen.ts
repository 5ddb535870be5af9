import type { Server } from 'node:net';

/**
 * `server.listen` as a promise that also fails: a port already in use (EADDRINUSE) or not ours to bind
 * (EACCES) rejects, so a process stops with the reason at start instead of waiting for a 'listening' that
 * never comes.
 */
export function listen(server: Server, port: number, host?: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const failed = (e: Error) => reject(e);
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
}
