import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { connect } from 'nats';
import { startNatsServer } from './nats-server';
import { freePort, waitFor } from './ports';

describe('private nats-server for tests', () => {
  it('serves JetStream on its own port and keeps streams across stop and start', async () => {
    const a = await startNatsServer();
    const b = await startNatsServer();
    try {
      expect(a.port).not.toBe(b.port);
      const nc = await connect({ servers: a.url, reconnectTimeWait: 100, maxReconnectAttempts: -1 });
      const jsm = await nc.jetstreamManager();
      await jsm.streams.add({ name: 'KEEP', subjects: ['keep.>'] });
      await nc.jetstream().publish('keep.1', new TextEncoder().encode('x'));
      await a.stop();
      await a.start();
      await waitFor(async () => (await jsm.streams.info('KEEP')).state.messages === 1, { timeoutMs: 10_000, what: 'stream back after restart' });
      await nc.close();
      const other = await connect({ servers: b.url });
      await expect((await other.jetstreamManager()).streams.info('KEEP')).rejects.toThrow(/stream not found/);
      await other.close();
    } finally {
      await a.dispose();
      await b.dispose();
    }
  });
});

describe('waitFor', () => {
  it('returns the first truthy value and names what it waited for on timeout', async () => {
    let n = 0;
    await expect(waitFor(() => (++n >= 3 ? n : undefined), { intervalMs: 1 })).resolves.toBe(3);
    await expect(waitFor(() => false, { timeoutMs: 30, what: 'the moon' })).rejects.toThrow('timed out waiting for the moon');
  });

  it('freePort gives a port nothing listens on', async () => {
    const p = await freePort();
    expect(p).toBeGreaterThan(1024);
    const srv = createServer();
    await new Promise<void>((resolve, reject) => srv.once('error', reject).listen(p, '127.0.0.1', () => resolve()));
    await new Promise((r) => srv.close(r));
  });

  it('freePort picks below the ephemeral range, where no port-0 server or outgoing connection can take it meanwhile', async () => {
    const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    expect(new Set(ports).size).toBe(20);
    for (const p of ports) expect([p >= 10_000, p < ephemeralLow]).toEqual([true, true]);
  });
});
