import { LookupCache } from './lookup-cache';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('lookup cache', () => {
  it('shares one call between concurrent misses and serves the value until its TTL', async () => {
    let calls = 0;
    const cache = new LookupCache<string, number>({ ttlMs: 50 });
    const load = async () => {
      calls += 1;
      await tick(5);
      return calls;
    };
    expect(await Promise.all([cache.get('k', load), cache.get('k', load)])).toEqual([1, 1]);
    expect(await cache.get('k', load)).toBe(1);
    await tick(60);
    expect(await cache.get('k', load)).toBe(2);
  });

  it('never keeps a failure', async () => {
    const cache = new LookupCache<string, string>({ ttlMs: 10_000 });
    await expect(cache.get('k', async () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    await expect(cache.get('k', async () => 'up')).resolves.toBe('up');
  });

  it('gives a value its own TTL', async () => {
    let n = 0;
    const cache = new LookupCache<string, string[]>({ ttlMs: (v) => (v.length ? 10_000 : 20) });
    const empty = async () => (++n, []);
    await cache.get('k', empty);
    await cache.get('k', empty);
    expect(n).toBe(1);
    await tick(30);
    await cache.get('k', empty);
    expect(n).toBe(2);
  });

  it('serves an expired value while one background call refreshes it, within the stale window', async () => {
    let calls = 0;
    const cache = new LookupCache<string, number>({ ttlMs: 20, staleMs: 10_000 });
    const load = async () => {
      calls += 1;
      await tick(20);
      return calls;
    };
    await cache.get('k', load);
    await tick(30);
    expect(await Promise.all([cache.get('k', load), cache.get('k', load)])).toEqual([1, 1]);
    expect(calls).toBe(2);
    await tick(30);
    expect(await cache.get('k', load)).toBe(2);
  });
});
