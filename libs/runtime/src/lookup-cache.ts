export interface LookupCacheOptions<V> {
  /** How long a value is served as fresh; may depend on the value (e.g. shorter for an empty answer). */
  ttlMs: number | ((value: V) => number);
  /**
   * Past its TTL, a value is still served for up to this long (from when it was fetched) while one background
   * call refreshes it, so busy keys never all wait for the source at once. 0: an expired value is refetched.
   */
  staleMs?: number;
  /** Entries kept at most; the oldest go first. */
  maxEntries?: number;
}

interface Entry<V> {
  at: number;
  value: Promise<V>;
  /** set once `value` has resolved (its TTL may depend on the result) */
  result?: { v: V };
  refreshing?: boolean;
}

/**
 * A small read-through cache for lookups in another service: concurrent misses of a key share one call,
 * failures are never cached (the next caller tries again), values expire after their TTL, and optionally an
 * expired value keeps being served while one background call refreshes it.
 */
export class LookupCache<K, V> {
  private readonly entries = new Map<K, Entry<V>>();
  /** keys this process is changing at their source now (how many changes each): read afresh meanwhile */
  private readonly changing = new Map<K, number>();

  constructor(private readonly opts: LookupCacheOptions<V>) {}

  get(key: K, load: () => Promise<V>): Promise<V> {
    if (this.changing.has(key)) return load();
    const hit = this.entries.get(key);
    if (hit && !hit.result) return hit.value; // still loading: share the call
    if (hit?.result) {
      const age = Date.now() - hit.at;
      if (age < this.ttl(hit.result.v)) return hit.value;
      if (age < (this.opts.staleMs ?? 0)) {
        if (!hit.refreshing) {
          hit.refreshing = true;
          const next = load();
          next.then(
            // a value dropped meanwhile (a change notice) stays dropped: this answer may predate the change
            (v) => this.entries.get(key) === hit && this.store(key, { at: Date.now(), value: next, result: { v } }),
            () => (hit.refreshing = false),
          );
        }
        return hit.value;
      }
    }
    const entry: Entry<V> = { at: Date.now(), value: load() };
    this.store(key, entry);
    entry.value.then(
      (v) => (entry.result = { v }),
      () => this.entries.get(key) === entry && this.entries.delete(key),
    );
    return entry.value;
  }

  /**
   * A change this process makes at the source of `key` (e.g. asks the tenant directory to change a client): from
   * its start until it is answered, gets of the key load afresh and share nothing (a load started before the
   * change commits must not answer a caller that comes after), and the entry is dropped before and after. The
   * change is visible elsewhere from its commit, before its change notice reaches the caches; so the next request
   * this process serves after seeing it anywhere reads the new value. Other processes follow the notice.
   */
  async whileChanging<T>(key: K, change: () => Promise<T>): Promise<T> {
    this.changing.set(key, (this.changing.get(key) ?? 0) + 1);
    this.entries.delete(key);
    try {
      return await change();
    } finally {
      this.entries.delete(key);
      const n = (this.changing.get(key) ?? 1) - 1;
      if (n > 0) this.changing.set(key, n);
      else this.changing.delete(key);
    }
  }

  /** Drops one key: the next get loads it again (a change notice said the value changed). */
  delete(key: K): void {
    this.entries.delete(key);
  }

  /**
   * Drops every entry whose key or value matches, and every entry still loading (its value is not known yet,
   * and it may have been read before the change).
   */
  deleteWhere(match: (key: K, value: V) => boolean): number {
    let n = 0;
    for (const [key, entry] of this.entries) {
      if (!entry.result || match(key, entry.result.v)) {
        this.entries.delete(key);
        n += 1;
      }
    }
    return n;
  }

  /** Drops everything (after a gap in the change notices, e.g. a reconnect). */
  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  private ttl(v: V): number {
    return typeof this.opts.ttlMs === 'function' ? this.opts.ttlMs(v) : this.opts.ttlMs;
  }

  private store(key: K, entry: Entry<V>): void {
    this.entries.delete(key);
    if (this.entries.size >= (this.opts.maxEntries ?? 10_000)) this.entries.delete(this.entries.keys().next().value as K);
    this.entries.set(key, entry);
  }
}
