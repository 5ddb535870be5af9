import { LookupCache } from './lookup-cache';

// the cache's clock is Date.now: fake timers move it exactly, so a TTL of 50 ms is never outlived by a busy machine
const tick = (ms: number) => jest.advanceTimersByTimeAsync(ms);

describe('lookup cache', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('shares one call between concurrent misses and serves the value until its TTL', async () => {
    let calls = 0;
    const cache = new LookupCache<string, number>({ ttlMs: 50 });
    const load = async () => {
      calls += 1;
      await Promise.resolve(); // the second miss comes while the first call is still running
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
      await Promise.resolve();
      return calls;
    };
    await cache.get('k', load);
    await tick(30);
    expect(await Promise.all([cache.get('k', load), cache.get('k', load)])).toEqual([1, 1]);
    expect(calls).toBe(2);
    await tick(30);
    expect(await cache.get('k', load)).toBe(2);
  });

  it('a dropped key is loaded again at once, however long its TTL', async () => {
    let calls = 0;
    const cache = new LookupCache<string, number>({ ttlMs: 60_000 });
    const load = async () => ++calls;
    await cache.get('k', load);
    cache.delete('k');
    expect(await cache.get('k', load)).toBe(2);
  });

  it('drops entries by value, and entries still loading whatever their value will be', async () => {
    const cache = new LookupCache<string, string>({ ttlMs: 60_000 });
    await cache.get('a', async () => 'tenant-1');
    await cache.get('b', async () => 'tenant-2');
    let release!: (v: string) => void;
    const loading = cache.get('c', () => new Promise<string>((r) => (release = r)));
    expect(cache.deleteWhere((_k, v) => v === 'tenant-1')).toBe(2);
    release('tenant-3');
    expect(await loading).toBe('tenant-3');
    expect(await cache.get('a', async () => 'reloaded')).toBe('reloaded');
    expect(await cache.get('b', async () => 'reloaded')).toBe('tenant-2');
    expect(await cache.get('c', async () => 'reloaded')).toBe('reloaded');
  });

  /** A cache whose key 'k' holds a stale 'v1' and whose background refresh of it is running until `release`. */
  const refreshing = async () => {
    const cache = new LookupCache<string, string>({ ttlMs: 10, staleMs: 60_000 });
    await cache.get('k', async () => 'v1');
    await tick(20);
    let release!: (v: string) => void;
    expect(await cache.get('k', () => new Promise<string>((r) => (release = r)))).toBe('v1'); // stale, refresh starts
    return { cache, release };
  };

  it('a background refresh that was running when its key was dropped does not bring the old value back', async () => {
    const { cache, release } = await refreshing();
    cache.delete('k');
    release('read-before-the-change');
    await tick(5);
    expect(await cache.get('k', async () => 'v2')).toBe('v2');
  });

  it('while this process changes a key at its source, every get reads afresh, and after it the old value is gone', async () => {
    const source = { v: 'old' };
    let loads = 0;
    const load = async () => (++loads, source.v);
    const cache = new LookupCache<string, string>({ ttlMs: 60_000 });
    expect(await cache.get('k', load)).toBe('old');
    let seen: string[] = [];
    await cache.whileChanging('k', async () => {
      seen.push(await cache.get('k', load)); // before the change commits
      source.v = 'new'; // committed: seen by anyone who looks; the answer is on its way
      seen.push(await cache.get('k', load));
    });
    expect(seen).toEqual(['old', 'new']);
    expect(await cache.get('k', load)).toBe('new');
    // cached again once the change is answered
    const n = loads;
    seen = [await cache.get('k', load), await cache.get('k', load)];
    expect([seen, loads]).toEqual([['new', 'new'], n]);
  });

  it('a load started before a change, or a stale value refreshing, does not answer or come back after it', async () => {
    const { cache, release } = await refreshing();
    await cache.whileChanging('k', async () => {
      // during the change nothing is shared with the refresh still running
      expect(await cache.get('k', async () => 'during')).toBe('during');
    });
    release('read-before-the-change');
    await tick(5);
    expect(await cache.get('k', async () => 'v2')).toBe('v2');
  });

  it('reads afresh until the last of overlapping changes is answered, a failed one included', async () => {
    const cache = new LookupCache<string, number>({ ttlMs: 60_000 });
    let n = 0;
    const load = async () => ++n;
    let finish!: () => void;
    const first = cache.whileChanging('k', () => new Promise<void>((r) => (finish = r)));
    await expect(cache.whileChanging('k', async () => Promise.reject(new Error('unavailable')))).rejects.toThrow('unavailable');
    expect([await cache.get('k', load), await cache.get('k', load)]).toEqual([1, 2]);
    finish();
    await first;
    expect([await cache.get('k', load), await cache.get('k', load)]).toEqual([3, 3]);
  });
});
