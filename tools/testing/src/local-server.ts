import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Starts a test's HTTP server on a free port of 127.0.0.1 and answers the port. Idle keep-alive sockets are closed by
 * the clients, never by the server: a server that closes one (Node's default, 5 s after its last answer) races a
 * client reusing it at that moment, whose request then fails with ECONNRESET (nodejs/undici#3141). A loaded machine
 * stalls a test's process long enough between two requests to hit that window (the provider client's contract test
 * in CI, 2026-12-01). The provider simulator does the same; the webhook and OTLP receivers here use this.
 */
export async function listenLocal(server: Server): Promise<number> {
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}
