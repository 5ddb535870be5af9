export { startTelemetry, stopTelemetry, tracingEnabled } from './start';
export type { TelemetryEnv } from './start';
export {
  TRACEPARENT,
  TRACESTATE,
  injectTraceContext,
  traceHeaders,
  extractTraceContext,
  currentTraceIds,
  setHttpRoute,
  inSpan,
  withContext,
  SpanKind,
  SpanStatusCode,
} from './tracing';
export type { SpanOptions, Span, Context } from './tracing';
