import { interleaved, merged, pairMultiples, type Slice } from './interleave';
import type { LoadResult } from './load';

const loadOf = (total: number, p99Ms: number): LoadResult => ({
  requestsPerSec: total,
  p99Ms,
  p50Ms: p99Ms / 4,
  total,
  ok2xx: total - 1,
  non2xx: 1,
  errors: 0,
  timeouts: 0,
});
const slice = (ops: number, cpu: Record<string, number>, p99Ms = 10, seconds = 5): Slice => ({
  load: loadOf(ops, p99Ms),
  ops,
  seconds,
  cpu: new Map(Object.entries(cpu)),
});

describe('a pipeline and its ceiling in slices taken in turn', () => {
  it('runs the pairs in ABBA order, each side its slices in the order they ran', async () => {
    const order: string[] = [];
    const measure = (side: string) => async () => {
      order.push(side);
      return slice(order.length, { x: 1 });
    };
    const out = await interleaved(4, measure('P'), measure('C'));
    expect(order).toEqual(['P', 'C', 'C', 'P', 'P', 'C', 'C', 'P']);
    expect(out.pipeline.map((s) => s.ops)).toEqual([1, 4, 5, 8]);
    expect(out.ceiling.map((s) => s.ops)).toEqual([2, 3, 6, 7]);
  });

  it('merges the slices of a side: counts and CPU summed, the rate over their time, percentiles the median', () => {
    const m = merged([slice(100, { edge: 0.2, pg: 0.1 }, 30, 5), slice(300, { edge: 0.5 }, 90, 5), slice(200, { pg: 0.3 }, 50, 10)]);
    expect(m.ops).toBe(600);
    expect(m.load.total).toBe(600);
    expect(m.load.ok2xx).toBe(597);
    expect(m.load.non2xx).toBe(3);
    expect(m.load.requestsPerSec).toBe(30);
    expect(m.load.p99Ms).toBe(50);
    expect(m.cpu.get('edge')).toBeCloseTo(0.7);
    expect(m.cpu.get('pg')).toBeCloseTo(0.4);
  });

  it("gives each pair's CPU per operation as a multiple of its ceiling's, skipping a slice that counted nothing", () => {
    const pipeline = [slice(100, { a: 0.4, b: 0.1 }), slice(0, { a: 0.1 }), slice(200, { a: 0.6 })];
    const ceiling = [slice(500, { k: 0.5 }), slice(400, { k: 0.4 }), slice(300, { k: 0.6 })];
    const m = pairMultiples(pipeline, ceiling);
    expect(m).toHaveLength(2);
    expect(m[0]).toBeCloseTo(5);
    expect(m[1]).toBeCloseTo(1.5);
  });
});
