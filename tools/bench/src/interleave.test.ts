import { interleaved, merged, mergedQuantile, pairMultiples, shareAtMost, type Slice } from './interleave';
import type { LatencyPoint, LoadResult } from './load';

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

  it('merges the slices of a side: counts and CPU summed, the rate over their time, percentiles (none reported) the median', () => {
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

  describe('latency percentiles of the slices together', () => {
    const points = (min: number, p50: number, p90: number, p99: number, max: number): LatencyPoint[] => [
      { fraction: 0, ms: min },
      { fraction: 0.5, ms: p50 },
      { fraction: 0.9, ms: p90 },
      { fraction: 0.99, ms: p99 },
      { fraction: 1, ms: max },
    ];
    const timed = (total: number, pts: LatencyPoint[]): Slice => {
      const s = slice(total, { x: 1 });
      return { ...s, load: { ...s.load, percentiles: pts } };
    };

    it('reads the share of requests under a latency between the reported percentiles, plateaus included', () => {
      const pts = points(1, 10, 10, 20, 30);
      expect(shareAtMost(pts, 0.5)).toBe(0);
      expect(shareAtMost(pts, 10)).toBeCloseTo(0.9);
      expect(shareAtMost(pts, 15)).toBeCloseTo(0.945);
      expect(shareAtMost(pts, 30)).toBe(1);
      expect(shareAtMost(pts, 99)).toBe(1);
    });

    it("gives one slice's own percentiles back", () => {
      const one = [timed(1000, points(1, 12, 40, 75, 90))];
      expect(mergedQuantile(one, 0.99)).toBe(75);
      expect(mergedQuantile(one, 0.5)).toBe(12);
    });

    it("puts the p99 of a fast and a slow slice in the slow one's tail, where one long run would have it", () => {
      const both = [timed(1000, points(1, 5, 8, 10, 10)), timed(1000, points(20, 50, 80, 100, 120))];
      // the fast half all under 10 ms; the other 49 % of the 99 % from the slow half: its 98th percentile
      expect(mergedQuantile(both, 0.99)).toBe(98);
      expect(mergedQuantile(both, 0.5)).toBe(10);
      expect(merged(both).load.p99Ms).toBe(98);
    });

    it('weighs each slice by its requests', () => {
      const uneven = [timed(9000, points(1, 5, 8, 10, 10)), timed(1000, points(20, 50, 80, 100, 120))];
      // 90 % under 10 ms; the slow tenth supplies the next 9 %: its 90th percentile
      expect(mergedQuantile(uneven, 0.99)).toBe(80);
    });
  });
});
