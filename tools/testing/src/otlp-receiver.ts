import { createServer, type Server } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { listenLocal } from './local-server';

/** One span as exported over OTLP/HTTP JSON, flattened with its process's `service.name`. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** Empty for a trace's root span. */
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  startTimeUnixNano: string;
}

export interface OtlpReceiver {
  /** The value for OTEL_EXPORTER_OTLP_ENDPOINT (the exporter appends /v1/traces). */
  endpoint: string;
  spans: ReceivedSpan[];
  /** Export requests received, and those in protobuf (counted, not decoded: use OTEL_EXPORTER_OTLP_PROTOCOL=http/json to see spans). */
  requests: number;
  protobufRequests: number;
  byTrace(traceId: string): ReceivedSpan[];
  close(): Promise<void>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
type KeyValue = { key: string; value?: AnyValue };
type ExportRequest = {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind?: number;
        attributes?: KeyValue[];
        status?: { code?: number };
        startTimeUnixNano: string;
      }>;
    }>;
  }>;
};

function attributes(list: KeyValue[] = []): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of list) {
    if (!value) continue;
    if (value.stringValue !== undefined) out[key] = value.stringValue;
    else if (value.intValue !== undefined) out[key] = Number(value.intValue);
    else if (value.doubleValue !== undefined) out[key] = value.doubleValue;
    else if (value.boolValue !== undefined) out[key] = value.boolValue;
  }
  return out;
}

/**
 * An OTLP/HTTP trace receiver (a collector's `/v1/traces`) in the test process: services started with
 * OTEL_EXPORTER_OTLP_ENDPOINT = `endpoint` and OTEL_EXPORTER_OTLP_PROTOCOL=http/json export their spans here.
 * Answers every export with success; protobuf exports are accepted and counted only (the bench's sink).
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const receiver = { spans, requests: 0, protobufRequests: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url?.split('?')[0] !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      receiver.requests++;
      let raw = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw);
      if (!String(req.headers['content-type'] ?? '').includes('json')) {
        receiver.protobufRequests++;
        // an empty ExportTraceServiceResponse is zero bytes
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
        return;
      }
      let body: ExportRequest;
      try {
        body = JSON.parse(raw.toString('utf8')) as ExportRequest;
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"code":3,"message":"invalid JSON"}');
        return;
      }
      for (const rs of body.resourceSpans ?? []) {
        const service = String(attributes(rs.resource?.attributes)['service.name'] ?? '');
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              service,
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId ?? '',
              name: s.name,
              kind: s.kind ?? 0,
              attributes: attributes(s.attributes),
              statusCode: s.status?.code ?? 0,
              startTimeUnixNano: s.startTimeUnixNano,
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  // the exporters close their idle sockets: a receiver closing one itself races an export reusing it (lost spans)
  const port = await listenLocal(server);
  return Object.assign(receiver, {
    endpoint: `http://127.0.0.1:${port}`,
    byTrace: (traceId: string) => spans.filter((s) => s.traceId === traceId),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}
