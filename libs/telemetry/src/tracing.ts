import { getRPCMetadata, RPCType } from '@opentelemetry/core';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';

/**
 * What the services need of OpenTelemetry besides the SDK: W3C trace context carried by hand where no
 * instrumentation does it (NATS headers, the outbox's stored headers) and spans around bus publishes and
 * consumer handlers. Everything here goes through `@opentelemetry/api` only: when the SDK is not started
 * (no OTEL_EXPORTER_OTLP_ENDPOINT), the API is a no-op and none of this costs more than a function call.
 */

/** The W3C Trace Context header names (lower case, as `traceparent` is written on HTTP and gRPC too). */
export const TRACEPARENT = 'traceparent';
export const TRACESTATE = 'tracestate';

// a proxy: it finds the SDK's tracer once one is registered, and is a no-op until then
const tracer = trace.getTracer('@gateway/telemetry');

/** Writes `traceparent` (and `tracestate`) of the active context, or of `ctx`, through `set`. Nothing when no span is active. */
export function injectTraceContext(set: (name: string, value: string) => void, ctx: Context = context.active()): void {
  propagation.inject(ctx, undefined, { set: (_c, k, v) => set(k, v) });
}

/** The same into a plain record (headers stored in a table, e.g. the outbox). */
export function traceHeaders(ctx: Context = context.active()): Record<string, string> {
  const out: Record<string, string> = {};
  propagation.inject(ctx, out);
  return out;
}

/** The context a message's `traceparent` names, read through `get` (a span started in it continues that trace). */
export function extractTraceContext(get: (name: string) => string | undefined, base: Context = ROOT_CONTEXT): Context {
  return propagation.extract(base, undefined, {
    get: (_c, k) => get(k),
    keys: () => [TRACEPARENT, TRACESTATE],
  });
}

/** The trace and span id of the active span, for log lines; undefined when no span is recording or tracing is off. */
export function currentTraceIds(): { trace_id: string; span_id: string } | undefined {
  const span = trace.getSpan(context.active());
  if (!span) return undefined;
  const sc = span.spanContext();
  if (!trace.isSpanContextValid(sc)) return undefined;
  return { trace_id: sc.traceId, span_id: sc.spanId };
}

/**
 * Names the HTTP server span of the active request by its route template (`POST /api/clients/:id`), as the http
 * instrumentation does when the Koa instrumentation sees the router; for routers mounted under a composed
 * middleware it cannot see. Templates only, never paths with ids.
 */
export function setHttpRoute(route: string): void {
  const meta = getRPCMetadata(context.active());
  if (meta?.type === RPCType.HTTP) meta.route = route;
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** Parent context (default: the active one). */
  parent?: Context;
}

/**
 * Runs `fn` inside a new active span: it ends when `fn` settles, with status ERROR (and the exception recorded)
 * when it throws. `fn` may set attributes or the status on the span it is given.
 */
export async function inSpan<T>(name: string, opts: SpanOptions, fn: (span: Span) => Promise<T>): Promise<T> {
  const parent = opts.parent ?? context.active();
  const span = tracer.startSpan(name, { kind: opts.kind ?? SpanKind.INTERNAL, attributes: opts.attributes }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (e) {
    span.recordException(e as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: e instanceof Error ? e.message : String(e) });
    throw e;
  } finally {
    span.end();
  }
}

/** Runs `fn` with `ctx` as the active context (e.g. one extracted from stored headers). */
export function withContext<T>(ctx: Context, fn: () => T): T {
  return context.with(ctx, fn);
}

export { SpanKind, SpanStatusCode };
export type { Span, Context };
