import { createServer, type Server } from 'node:http';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { CallObserver } from '@gateway/rpc';

/** One registry per process, with default Node metrics and the gRPC server metrics every service shares. */
export class Metrics {
  readonly registry = new Registry();
  private readonly rpcRequests: Counter<'method' | 'code'>;
  private readonly rpcLatency: Histogram<'method'>;

  constructor(service: string) {
    this.registry.setDefaultLabels({ service });
    collectDefaultMetrics({ register: this.registry });
    this.rpcRequests = new Counter({ name: 'grpc_server_requests_total', help: 'gRPC calls handled', labelNames: ['method', 'code'], registers: [this.registry] });
    this.rpcLatency = new Histogram({
      name: 'grpc_server_request_duration_seconds',
      help: 'gRPC call latency',
      labelNames: ['method'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
  }

  readonly grpcObserver: CallObserver = (method, code, durationMs) => {
    this.rpcRequests.inc({ method, code: String(code) });
    this.rpcLatency.observe({ method }, durationMs / 1000);
  };

  counter<L extends string>(name: string, help: string, labelNames: L[]): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  histogram<L extends string>(name: string, help: string, labelNames: L[], buckets?: number[]): Histogram<L> {
    return new Histogram({ name, help, labelNames, buckets, registers: [this.registry] });
  }
}

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/** Serves GET /metrics in the Prometheus text format on a port of its own. */
export async function startMetricsServer(metrics: Metrics, port: number, host = '0.0.0.0'): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET' && req.url?.split('?')[0] === '/metrics') {
      metrics.registry.metrics().then(
        (text) => {
          res.writeHead(200, { 'Content-Type': metrics.registry.contentType });
          res.end(text);
        },
        () => {
          res.writeHead(500);
          res.end();
        },
      );
      return;
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const addr = server.address();
  return {
    port: typeof addr === 'object' && addr ? addr.port : port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
