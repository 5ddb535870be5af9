/**
 * Page opens per client address and minute (fixed windows, per edge replica): the signup page is public and
 * each open may store a session, so one address cannot open it without bound. Addresses are held for one
 * window; at most `maxAddresses` at once (the oldest are forgotten first).
 */
export class OpenLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly perMinute: number,
    private readonly maxAddresses = 50_000,
  ) {}

  /** 0 when this open is allowed, else the seconds until the address may open again. */
  take(address: string, now = Date.now()): number {
    const w = this.windows.get(address);
    if (!w || now - w.start >= 60_000) {
      this.windows.delete(address);
      if (this.windows.size >= this.maxAddresses) this.windows.delete(this.windows.keys().next().value as string);
      this.windows.set(address, { start: now, count: 1 });
      return 0;
    }
    if (w.count >= this.perMinute) return Math.max(1, Math.ceil((w.start + 60_000 - now) / 1000));
    w.count++;
    return 0;
  }
}
