import type { LatencyPoint, LoadResult } from './load';

/**
 * A pipeline and its ceiling measured in alternating slices of the same run. This machine's speed moves by 20–30 %
 * from one minute to the next (README, "Run of 2026-11-30, seventh"); measured one after the other, a minute apart,
 * a pipeline and its ceiling met two different machines and their multiple moved by up to 2× between runs of one
 * build. In slices taken in turn (ABBA: pipeline first in even pairs, ceiling first in odd ones, so a steady drift
 * weighs on both alike) each sees the same machine.
 */

/** One slice: the load's numbers, the operations counted, and the CPU seconds each process took meanwhile. */
export interface Slice {
  load: LoadResult;
  ops: number;
  /** The load's own duration (a slice's CPU may include draining after it). */
  seconds: number;
  cpu: Map<string, number>;
}

export type Measure = () => Promise<Slice>;

/** `pairs` slices of each, in ABBA order; the slices of each side in the order they ran. */
export async function interleaved(pairs: number, pipeline: Measure, ceiling: Measure): Promise<{ pipeline: Slice[]; ceiling: Slice[] }> {
  const out = { pipeline: [] as Slice[], ceiling: [] as Slice[] };
  for (let i = 0; i < pairs; i++) {
    if (i % 2 === 0) {
      out.pipeline.push(await pipeline());
      out.ceiling.push(await ceiling());
    } else {
      out.ceiling.push(await ceiling());
      out.pipeline.push(await pipeline());
    }
  }
  return out;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : 0;
};

/** The share of a run's requests that took at most `ms`, interpolated between the percentiles it reported. */
export function shareAtMost(points: LatencyPoint[], ms: number): number {
  for (let i = points.length - 1; i >= 0; i--) {
    if (points[i].ms > ms) continue;
    const next = points[i + 1];
    return next ? points[i].fraction + ((next.fraction - points[i].fraction) * (ms - points[i].ms)) / (next.ms - points[i].ms) : 1;
  }
  return 0;
}

/**
 * The `q` quantile of the slices' requests together: the latency under which that share of all of them finished,
 * each slice's distribution weighted by its requests (a slice slowed by a stall weighs in its tail as it would in
 * one long run). Whole milliseconds, as autocannon reports them.
 */
export function mergedQuantile(slices: Slice[], q: number): number {
  const runs = slices.filter((s) => s.load.percentiles?.length && s.load.total > 0);
  if (!runs.length) return median(slices.map((s) => (q >= 0.99 ? s.load.p99Ms : s.load.p50Ms)));
  const all = runs.reduce((n, s) => n + s.load.total, 0);
  const share = (ms: number) => runs.reduce((n, s) => n + s.load.total * shareAtMost(s.load.percentiles!, ms), 0) / all;
  let lo = Math.min(...runs.map((s) => s.load.percentiles![0].ms));
  let hi = Math.max(...runs.map((s) => s.load.percentiles!.at(-1)!.ms));
  while (hi - lo > 0.01) {
    const mid = (lo + hi) / 2;
    if (share(mid) >= q) hi = mid;
    else lo = mid;
  }
  return Math.round(hi);
}

/**
 * The slices of one side as one load: counts summed, the rate over the loads' time together, and the p50 and p99
 * of all their requests together (`mergedQuantile`).
 */
export function merged(slices: Slice[]): { load: LoadResult; ops: number; cpu: Map<string, number> } {
  const sum = (f: (l: LoadResult) => number) => slices.reduce((n, s) => n + f(s.load), 0);
  const seconds = slices.reduce((n, s) => n + s.seconds, 0);
  const cpu = new Map<string, number>();
  for (const s of slices) for (const [k, v] of s.cpu) cpu.set(k, (cpu.get(k) ?? 0) + v);
  return {
    load: {
      requestsPerSec: seconds > 0 ? sum((l) => l.total) / seconds : 0,
      p99Ms: mergedQuantile(slices, 0.99),
      p50Ms: mergedQuantile(slices, 0.5),
      total: sum((l) => l.total),
      ok2xx: sum((l) => l.ok2xx),
      non2xx: sum((l) => l.non2xx),
      errors: sum((l) => l.errors),
      timeouts: sum((l) => l.timeouts),
    },
    ops: slices.reduce((n, s) => n + s.ops, 0),
    cpu,
  };
}

/** CPU seconds per operation, every process's summed. */
export const cpuPerOp = (cpu: Map<string, number>, ops: number) => [...cpu.values()].reduce((a, b) => a + b, 0) / ops;
const perOp = (s: Slice) => cpuPerOp(s.cpu, s.ops);

/** Each pair's CPU per operation of the pipeline as a multiple of its ceiling's: how far the slices agree. */
export function pairMultiples(pipeline: Slice[], ceiling: Slice[]): number[] {
  return pipeline.flatMap((p, i) => (p.ops && ceiling[i]?.ops ? [perOp(p) / perOp(ceiling[i])] : []));
}
