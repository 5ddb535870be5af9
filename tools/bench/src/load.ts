import autocannon from 'autocannon';

export interface LoadResult {
  requestsPerSec: number;
  p99Ms: number;
  p50Ms: number;
  total: number;
  ok2xx: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /**
   * The latency distribution as autocannon reports it (ms at each percentile, whole milliseconds), for merging runs
   * into one distribution (`interleave.ts`).
   */
  percentiles?: LatencyPoint[];
  /** The warm-up run's numbers (its requests count for correctness checks). */
  warmup?: LoadResult;
}

/** A point of a latency distribution: `fraction` of the requests took at most `ms`. */
export interface LatencyPoint {
  fraction: number;
  ms: number;
}

/** autocannon's latency keys (`p97_5` is the 97.5th percentile), with the minimum and maximum as 0 and 1. */
function pointsOf(latency: Record<string, number>): LatencyPoint[] {
  const points: LatencyPoint[] = [{ fraction: 0, ms: latency.min }];
  for (const [k, v] of Object.entries(latency)) {
    const m = /^p(\d+)(?:_(\d+))?$/.exec(k);
    if (m) points.push({ fraction: Number(`${m[1]}.${m[2] ?? 0}`) / 100, ms: v });
  }
  points.push({ fraction: 1, ms: latency.max });
  return points.sort((a, b) => a.fraction - b.fraction);
}

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST' | 'PUT';
  headers?: Record<string, string>;
  body?: string;
  /** Builds each request (varying bodies/signatures); overrides body/headers. */
  setupRequest?: (req: { body?: string; headers?: Record<string, string> }) => { body?: string; headers?: Record<string, string> };
  connections: number;
  durationSec: number;
  warmupSec?: number;
  /**
   * Called between the warm-up and the measured run (its requests are no longer in flight): where a caller starts
   * counting CPU, so that only the measured run's requests and CPU make its CPU per operation.
   */
  afterWarmup?: () => void | Promise<void>;
}

function run(opts: LoadOptions, durationSec: number): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const requests = opts.setupRequest
      ? [{ method: opts.method ?? 'POST', setupRequest: (req: Record<string, unknown>) => ({ ...req, ...opts.setupRequest!(req as never) }) }]
      : undefined;
    autocannon(
      {
        url: opts.url,
        method: opts.method ?? 'POST',
        headers: opts.headers,
        body: opts.body,
        requests: requests as never,
        connections: opts.connections,
        duration: durationSec,
        timeout: 10,
      },
      (err, r) => {
        if (err) return reject(err);
        resolve({
          requestsPerSec: r.requests.average,
          p99Ms: r.latency.p99,
          p50Ms: r.latency.p50,
          total: r.requests.total,
          ok2xx: r['2xx'],
          non2xx: r.non2xx,
          errors: r.errors,
          timeouts: r.timeouts,
          percentiles: pointsOf(r.latency as unknown as Record<string, number>),
        });
      },
    );
  });
}

/** autocannon with a warm-up run whose numbers are thrown away. */
export async function load(opts: LoadOptions): Promise<LoadResult> {
  const warmup = opts.warmupSec ? await run(opts, opts.warmupSec) : undefined;
  await opts.afterWarmup?.();
  return { ...(await run(opts, opts.durationSec)), warmup };
}
