import { GroupCommit } from './group-commit';

describe('group commit', () => {
  it('writes items that arrive together in one call, and settles each caller after its batch', async () => {
    const writes: number[][] = [];
    const gc = new GroupCommit<number>(
      async (items) => {
        writes.push(items);
      },
      { maxDelayMs: 5 },
    );
    await Promise.all([1, 2, 3, 4].map((n) => gc.add(n)));
    expect(writes).toEqual([[1, 2, 3, 4]]);
  });

  it('cuts batches at maxBatch and keeps their order', async () => {
    const writes: number[][] = [];
    const gc = new GroupCommit<number>(
      async (items) => {
        await new Promise((r) => setTimeout(r, 5));
        writes.push(items);
      },
      { maxBatch: 2, maxDelayMs: 50 },
    );
    await Promise.all([1, 2, 3, 4, 5].map((n) => gc.add(n)));
    expect(writes).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('fails every caller of a failed batch, reports it once, and goes on with the next', async () => {
    const errors: number[] = [];
    let fail = true;
    const gc = new GroupCommit<string>(
      async () => {
        if (fail) throw new Error('disk full');
      },
      { onError: (_e, size) => errors.push(size) },
    );
    const results = await Promise.allSettled([gc.add('a'), gc.add('b')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(errors).toEqual([2]);
    fail = false;
    await expect(gc.add('c')).resolves.toBeUndefined();
  });

  it('flush writes what waits without the delay', async () => {
    const writes: string[][] = [];
    const gc = new GroupCommit<string>(
      async (items) => {
        writes.push(items);
      },
      { maxDelayMs: 60_000 },
    );
    const pending = gc.add('x');
    await gc.flush();
    await pending;
    expect(writes).toEqual([['x']]);
  });

  it('holds what arrives while every lane writes, and writes it as one batch when a lane frees', async () => {
    const writes: number[][] = [];
    let release: () => void = () => undefined;
    const gc = new GroupCommit<number>(
      async (items) => {
        writes.push(items);
        if (items[0] === 1) await new Promise<void>((r) => (release = r));
      },
      { maxDelayMs: 1 },
    );
    const first = gc.add(1);
    await new Promise((r) => setTimeout(r, 20));
    const rest = [2, 3, 4].map((n, i) => new Promise((r) => setTimeout(r, 5 * i)).then(() => gc.add(n)));
    await new Promise((r) => setTimeout(r, 40));
    expect(writes).toEqual([[1]]);
    release();
    await Promise.all([first, ...rest]);
    expect(writes).toEqual([[1], [2, 3, 4]]);
  });

  it('with lanes, writes the next batch while another waits for its commit', async () => {
    const writes: string[][] = [];
    let release: () => void = () => undefined;
    const gc = new GroupCommit<string>(
      async (items) => {
        writes.push(items);
        if (items[0] === 'slow') await new Promise<void>((r) => (release = r));
      },
      { maxDelayMs: 1, lanes: 2 },
    );
    const slow = gc.add('slow');
    await new Promise((r) => setTimeout(r, 20));
    await gc.add('fast');
    expect(writes).toEqual([['slow'], ['fast']]);
    release();
    await slow;
  });
});
