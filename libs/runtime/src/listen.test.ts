import { createServer } from 'node:net';
import { listen } from './listen';

describe('listen', () => {
  it('rejects with EADDRINUSE when the port is taken, instead of never resolving', async () => {
    const holder = createServer();
    await listen(holder, 0, '127.0.0.1');
    const port = (holder.address() as { port: number }).port;
    try {
      const second = createServer();
      await expect(listen(second, port, '127.0.0.1')).rejects.toMatchObject({ code: 'EADDRINUSE' });
      expect(second.listening).toBe(false);
    } finally {
      await new Promise((r) => holder.close(r));
    }
  });

  it('resolves once listening, and leaves no error listener behind', async () => {
    const srv = createServer();
    await listen(srv, 0, '127.0.0.1');
    expect([srv.listening, srv.listenerCount('error')]).toEqual([true, 0]);
    await new Promise((r) => srv.close(r));
  });
});
