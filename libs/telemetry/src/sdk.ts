import type { IncomingMessage } from 'node:http';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { KoaInstrumentation, KoaLayerType } from '@opentelemetry/instrumentation-koa';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { redactQuery, redactUrl } from './redact';

/** Incoming requests no one wants a trace of: scrapes and probes. */
const UNTRACED_PATHS = new Set(['/metrics', '/healthz', '/readyz']);

/**
 * The SDK of one process: the W3C Trace Context propagator (no baggage), an AsyncLocalStorage context manager, a batch span processor with
 * the exporter the standard OTEL_* variables choose (OTLP over HTTP, protobuf unless OTEL_EXPORTER_OTLP_PROTOCOL
 * says `http/json`, or `grpc`), the sampler of OTEL_TRACES_SAMPLER, and the instrumentations of the libraries the
 * services use. Only traces: metrics stay on the Prometheus endpoint, logs on stdout. URLs in span attributes
 * carry no query values and no credentials (`redact.ts`).
 */
export function createSdk(serviceName: string): NodeSDK {
  return new NodeSDK({
    serviceName,
    // trace context only: W3C baggage from callers on the internet is not carried onto the bus or to receivers
    textMapPropagator: new W3CTraceContextPropagator(),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req: IncomingMessage) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0]),
        // the provider's webhook verification sends the verify token in the query
        startIncomingSpanHook: (req: IncomingMessage) => {
          const q = (req.url ?? '').indexOf('?');
          return q < 0 ? {} : { 'url.query': redactQuery((req.url ?? '').slice(q + 1)) };
        },
        // outgoing calls of the http module outside any trace (none of ours: undici makes them) make no root spans
        requireParentforOutgoingSpans: true,
      }),
      // router layers only: a span per middleware would be a dozen spans per request saying little
      new KoaInstrumentation({ ignoreLayersType: [KoaLayerType.MIDDLEWARE] }),
      new GrpcInstrumentation(),
      new UndiciInstrumentation({
        requireParentforSpans: true,
        // the token exchange's query holds the app secret and a one-time code; a webhook URL's, the tenant's token
        startSpanHook: (request) => {
          const url = new URL(request.path, request.origin);
          return { 'url.full': redactUrl(url), 'url.query': redactQuery(url.search) };
        },
      }),
      // statements inside a trace only (not the outbox poll or group commits of no request); never parameter values
      new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false }),
    ],
  });
}
