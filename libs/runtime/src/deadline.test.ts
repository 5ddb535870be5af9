import { deadline } from './deadline';

describe('deadline', () => {
  it('aborts with a TimeoutError once the time is up', async () => {
    const d = deadline(20);
    await new Promise<void>((r) => d.signal.addEventListener('abort', () => r()));
    expect(d.signal.aborted).toBe(true);
    expect((d.signal.reason as DOMException).name).toBe('TimeoutError');
  });

  it('never aborts once cleared, and leaves no timer behind', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((t) => t === 'Timeout').length;
    const before = timers();
    const d = deadline(20);
    expect(timers()).toBe(before + 1);
    d.clear();
    expect(timers()).toBe(before);
    await new Promise((r) => setTimeout(r, 60));
    expect(d.signal.aborted).toBe(false);
  });
});
