import { createServer } from 'node:net';

const handedOut = new Set<number>();

/**
 * A port nothing listens on right now: bound on 127.0.0.1 by the kernel's choice, then released. Never the same
 * port twice in one process: the kernel readily hands a just-released port out again, and a test that picks
 * several ports before starting their servers would otherwise start two of them on one port.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await kernelPort();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

function kernelPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** A `host:port` where nothing listens: for an address a test expects to be unreachable. */
export async function closedAddress(): Promise<string> {
  return `127.0.0.1:${await freePort()}`;
}

export async function waitFor<T>(fn: () => Promise<T | undefined | false> | T | undefined | false, opts: { timeoutMs?: number; intervalMs?: number; what?: string } = {}): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  let lastError: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v as T;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${opts.what ?? 'condition'}${lastError ? `: ${(lastError as Error).message}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 50));
  }
}
