import type { Server } from 'node:http';

/** How often a closing server closes the keep-alive sockets that have become idle since (ms). */
const IDLE_SWEEP_MS = 50;

/**
 * A graceful close of the edge's HTTP server: it stops accepting, lets the requests in flight finish, closes each
 * keep-alive socket once its request has, and cuts off whatever is still running after `cutOffMs`. Node's
 * `closeIdleConnections` closes only the sockets idle at the instant it is called: a keep-alive socket busy then (a
 * request still answering, a live stream's last bytes) was held open until the cut-off, 10 s of every shutdown that
 * had one. So it is called again every `IDLE_SWEEP_MS` until the server has closed (a timer of the shutdown only,
 * nothing per request).
 */
export function gracefulClose(server: Server, cutOffMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    const cutOff = setTimeout(() => server.closeAllConnections(), cutOffMs);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(cutOff);
      resolve();
    });
    server.closeIdleConnections();
  });
}
