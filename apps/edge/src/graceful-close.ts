import type { Server } from 'node:http';

/**
 * A graceful close of the edge's HTTP server: it stops accepting, lets the requests in flight finish, then closes
 * every socket, and cuts off whatever is still running after `cutOffMs`. Node's `closeIdleConnections` closes the
 * sockets idle at the instant it is called; a keep-alive socket busy then (a request still answering, a live
 * stream's last bytes) was held open until the cut-off, 10 s of every shutdown that had one. The requests in flight
 * are counted here instead, and the sockets closed when the count reaches zero.
 */
export function gracefulClose(server: Server): (cutOffMs: number) => Promise<void> {
  let inFlight = 0;
  let closing = false;
  const settled = () => {
    inFlight--;
    if (closing && inFlight === 0) server.closeAllConnections();
  };
  server.on('request', (_req, res) => {
    inFlight++;
    // 'close' follows the end of the answer, or a connection gone before it
    res.once('close', settled);
  });
  return (cutOffMs) =>
    new Promise<void>((resolve) => {
      closing = true;
      const cutOff = setTimeout(() => server.closeAllConnections(), cutOffMs);
      server.close(() => {
        clearTimeout(cutOff);
        resolve();
      });
      if (inFlight === 0) server.closeAllConnections();
      else server.closeIdleConnections();
    });
}
