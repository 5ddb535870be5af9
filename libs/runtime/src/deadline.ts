/**
 * A hard deadline for one outgoing request: its signal aborts with a `TimeoutError` (as `AbortSignal.timeout`
 * does) after `ms`, and `clear()` drops the timer once the request has settled. `AbortSignal.timeout` keeps
 * its timer until it fires, whatever became of the request: at thousands of requests a second with a 10 s
 * timeout, tens of thousands of pending timers and signals (bench profiles of the dispatcher and messaging).
 */
export function deadline(ms: number): { signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException(`The operation was aborted due to timeout (${ms} ms)`, 'TimeoutError')), ms);
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}
