import { deadline, DEADLINE_SLOT_MS } from './deadline';

const timers = () => process.getActiveResourcesInfo().filter((t) => t === 'Timeout').length;
const aborted = (signal: AbortSignal) => new Promise<void>((r) => (signal.aborted ? r() : signal.addEventListener('abort', () => r())));

describe('deadline', () => {
  it('aborts with a TimeoutError once the time is up, never before it', async () => {
    const started = performance.now();
    const d = deadline(20);
    await aborted(d.signal);
    const took = performance.now() - started;
    expect((d.signal.reason as DOMException).name).toBe('TimeoutError');
    // a timer may fire up to a millisecond early by the event loop's clock
    expect(took).toBeGreaterThanOrEqual(19);
  });

  it('never aborts once cleared, and leaves no timer behind', async () => {
    const before = timers();
    const d = deadline(20);
    expect(timers()).toBe(before + 1);
    d.clear();
    expect(timers()).toBe(before);
    await new Promise((r) => setTimeout(r, 20 + 2 * DEADLINE_SLOT_MS));
    expect(d.signal.aborted).toBe(false);
  });

  it('shares one timer among deadlines started together, and drops it once all are cleared', () => {
    const before = timers();
    const many = Array.from({ length: 100 }, () => deadline(5_000));
    // one slot, or two when the calls straddled a slot's end
    expect(timers() - before).toBeLessThanOrEqual(2);
    for (const d of many) d.clear();
    expect(timers()).toBe(before);
  });

  it('aborts the deadlines still open when the time is up, whoever cleared theirs', async () => {
    const a = deadline(30);
    const b = deadline(30);
    a.clear();
    await aborted(b.signal);
    expect((b.signal.reason as DOMException).name).toBe('TimeoutError');
    // a later deadline gets a signal of its own, not the aborted one
    const c = deadline(30);
    expect(c.signal.aborted).toBe(false);
    c.clear();
  });
});
