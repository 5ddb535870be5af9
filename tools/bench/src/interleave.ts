import type { LoadResult } from './load';

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

/**
 * The slices of one side as one load: counts summed, the rate over the loads' time together, and each latency
 * percentile the median of the slices' (percentiles of separate runs cannot be merged exactly; the median keeps one
 * slice caught by a stall of the machine from standing for the whole).
 */
export function merged(slices: Slice[]): { load: LoadResult; ops: number; cpu: Map<string, number> } {
  const sum = (f: (l: LoadResult) => number) => slices.reduce((n, s) => n + f(s.load), 0);
  const seconds = slices.reduce((n, s) => n + s.seconds, 0);
  const cpu = new Map<string, number>();
  for (const s of slices) for (const [k, v] of s.cpu) cpu.set(k, (cpu.get(k) ?? 0) + v);
  return {
    load: {
      requestsPerSec: seconds > 0 ? sum((l) => l.total) / seconds : 0,
      p99Ms: median(slices.map((s) => s.load.p99Ms)),
      p50Ms: median(slices.map((s) => s.load.p50Ms)),
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

const perOp = (s: Slice) => [...s.cpu.values()].reduce((a, b) => a + b, 0) / s.ops;

/** Each pair's CPU per operation of the pipeline as a multiple of its ceiling's: how far the slices agree. */
export function pairMultiples(pipeline: Slice[], ceiling: Slice[]): number[] {
  return pipeline.flatMap((p, i) => (p.ops && ceiling[i]?.ops ? [perOp(p) / perOp(ceiling[i])] : []));
}
