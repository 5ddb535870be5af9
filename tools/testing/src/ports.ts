import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const handedOut = new Set<number>();

/**
 * A port nothing listens on right now, for a server a test starts a moment later. It is picked below the
 * kernel's ephemeral range (ip_local_port_range), where the kernel never puts outgoing connections or servers
 * bound to port 0: another process's client socket or gRPC server cannot take it in between, as happened under
 * load with ports the kernel had chosen. Checked by binding it on 127.0.0.1, and never handed out twice in one
 * process. Falls back to the kernel's choice where that range is unknown or too small.
 */
export async function freePort(): Promise<number> {
  const [low, high] = quietRange();
  for (let tries = 0; high - low > 1000 && tries < 200; tries++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (!handedOut.has(port) && (await bindable(port))) {
      handedOut.add(port);
      return port;
    }
  }
  for (;;) {
    const port = await kernelPort();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

/** Ports below the ephemeral range and above the well-known services' usual ones. */
function quietRange(): [number, number] {
  try {
    const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(ephemeralLow) && ephemeralLow > 12_000 ? [10_000, ephemeralLow] : [0, 0];
  } catch {
    return [0, 0];
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
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

export async function waitFor<T>(
  fn: () => Promise<T | undefined | false> | T | undefined | false,
  opts: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
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
