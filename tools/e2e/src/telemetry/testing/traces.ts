import { startStack, type Stack } from '@gateway/test-stack';
import { startOtlpReceiver, waitFor, type OtlpReceiver, type ReceivedSpan, type ReceivedWebhook } from '@gateway/testing';

/*
 * What the trace tests share: a stack whose services run as OS processes (their bundled main.ts, as deployed),
 * each exporting OTLP/HTTP JSON to a receiver in the test, and the checks that a trace is one tree.
 */

/** OTLP span kinds. */
export const SERVER = 2;
export const CLIENT = 3;
export const PRODUCER = 4;
export const CONSUMER = 5;

export interface TracedStack {
  stack: Stack;
  otlp: OtlpReceiver;
  /** The JSON log lines a service process wrote so far. */
  logLines(service: string): Array<Record<string, unknown>>;
  stop(): Promise<void>;
}

/** `services`, all as OS processes with tracing on (a short batch delay), and their receiver. */
export async function startTracedStack(services: string[], env: Record<string, string> = {}): Promise<TracedStack> {
  const otlp = await startOtlpReceiver();
  let stack: Stack;
  try {
    stack = await startStack({
      services,
      processes: services,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '100', LOG_LEVEL: 'info', ...env },
    });
  } catch (e) {
    await otlp.close();
    throw e;
  }
  return {
    stack,
    otlp,
    logLines: (service) => jsonLines(stack, service),
    async stop() {
      await stack.stop();
      await otlp.close();
    },
  };
}

/** The JSON log lines of one of the stack's service processes. */
export function jsonLines(stack: Stack, service: string): Array<Record<string, unknown>> {
  return stack.processes.get(service)!.output.flatMap((l) => {
    try {
      return [JSON.parse(l) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}

/** `00-<trace id>-<parent span id>-<flags>` of a delivery request. */
export function traceparentOf(r: ReceivedWebhook): { traceId: string; spanId: string } {
  const m = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(String(r.headers.traceparent ?? ''));
  if (!m) throw new Error(`delivery without a sampled W3C traceparent: ${String(r.headers.traceparent)}`);
  return { traceId: m[1], spanId: m[2] };
}

export function show(spans: ReceivedSpan[]): string {
  return spans.map((s) => `${s.spanId} <- ${s.parentSpanId || 'root'} [${s.service}] kind=${s.kind} ${s.name}`).join('\n');
}

/** The trace's spans once every span named by `want` is in and every parent has arrived (a whole tree). */
export async function wholeTrace(otlp: OtlpReceiver, traceId: string, want: Array<(s: ReceivedSpan) => boolean>): Promise<ReceivedSpan[]> {
  return waitFor(
    () => {
      const spans = otlp.byTrace(traceId);
      const ids = new Set(spans.map((s) => s.spanId));
      const complete = want.every((w) => spans.some(w)) && spans.every((s) => !s.parentSpanId || ids.has(s.parentSpanId));
      return complete ? spans : undefined;
    },
    { timeoutMs: 20_000, what: `the spans of trace ${traceId}: ${show(otlp.byTrace(traceId))}` },
  );
}

/** One root, every other span's parent in the trace, no span twice: one connected tree. */
export function expectOneTree(spans: ReceivedSpan[]): ReceivedSpan {
  const ids = spans.map((s) => s.spanId);
  expect(new Set(ids).size).toBe(ids.length);
  const roots = spans.filter((s) => !s.parentSpanId);
  expect(roots.map((r) => `${r.service} ${r.name}`)).toHaveLength(1);
  for (const s of spans) if (s.parentSpanId) expect(ids).toContain(s.parentSpanId);
  return roots[0];
}

/** The one span of the trace matching `pred` (fails with the trace printed when there is none or several). */
export function one(spans: ReceivedSpan[], what: string, pred: (s: ReceivedSpan) => boolean): ReceivedSpan {
  const found = spans.filter(pred);
  if (found.length !== 1) throw new Error(`expected one span "${what}", found ${found.length} in\n${show(spans)}`);
  return found[0];
}

/** Each span descends from the one before it (through any spans between). */
export function expectPath(spans: ReceivedSpan[], path: ReceivedSpan[]): void {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const isAncestor = (a: ReceivedSpan, s: ReceivedSpan) => {
    for (let p = byId.get(s.parentSpanId); p; p = byId.get(p.parentSpanId)) if (p.spanId === a.spanId) return true;
    return false;
  };
  for (let i = 1; i < path.length; i++) {
    if (!isAncestor(path[i - 1], path[i]))
      throw new Error(`${path[i].service} "${path[i].name}" does not descend from ${path[i - 1].service} "${path[i - 1].name}" in\n${show(spans)}`);
  }
}
