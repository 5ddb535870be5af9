import { createServer, type Server } from 'node:http';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { providerApiVersionInfo } from '@gateway/config';
import type { Logger } from '@gateway/logger';
import type { CallObserver } from '@gateway/rpc';
import { listen } from './listen';

/** One finished provider call (after its retries), as @gateway/provider-client reports it. */
export interface ProviderCallReport {
  /** `METHOD /path` with ids replaced, e.g. `POST /{id}/messages`. */
  operation: string;
  /** `ok`, or the AppError kind (`provider_rejected`, `rate_limited`, `timeout`, `unavailable`...). */
  outcome: string;
  /** The provider's error code when it gave one, else ours (`provider_timeout`...); '' when ok. */
  errorCode: string;
  durationMs: number;
}

/** A durable consumer's backlog, as @gateway/bus runConsumer reads it from the consumer info. */
export interface ConsumerLagReport {
  /** Messages in the stream the consumer has not been delivered yet (`num_pending`). */
  pending: number;
  /** Delivered but not yet acknowledged (`num_ack_pending`). */
  ackPending: number;
}

const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** One registry per process, with default Node metrics and the gRPC server metrics every service shares. */
export class Metrics {
  readonly registry = new Registry();
  private readonly rpcRequests: Counter<'method' | 'code'>;
  private readonly rpcLatency: Histogram<'method'>;
  private providerCalls?: { total: Counter<'operation' | 'outcome' | 'error_code'>; latency: Histogram<'operation' | 'outcome'> };
  private consumerGauges?: { pending: Gauge<'stream' | 'consumer'>; ackPending: Gauge<'stream' | 'consumer'> };
  private deadLetters?: Counter<'stream' | 'consumer'>;

  constructor(service: string) {
    this.registry.setDefaultLabels({ service });
    collectDefaultMetrics({ register: this.registry });
    this.rpcRequests = new Counter({
      name: 'grpc_server_requests_total',
      help: 'gRPC calls handled',
      labelNames: ['method', 'code'],
      registers: [this.registry],
    });
    this.rpcLatency = new Histogram({
      name: 'grpc_server_request_duration_seconds',
      help: 'gRPC call latency',
      labelNames: ['method'],
      buckets: LATENCY_BUCKETS,
      registers: [this.registry],
    });
  }

  /**
   * Observer for `new ProviderClient({..., observer: metrics.providerCall})`: provider_calls_total by operation,
   * outcome and error code, and their latency. The families appear once the service calls the provider.
   */
  readonly providerCall = (call: ProviderCallReport): void => {
    this.providerCalls ??= {
      total: this.counter('provider_calls_total', 'Provider API calls by operation, outcome and provider error code', ['operation', 'outcome', 'error_code']),
      latency: this.histogram('provider_call_duration_seconds', 'Provider API call latency, retries included', ['operation', 'outcome'], LATENCY_BUCKETS),
    };
    this.providerCalls.total.inc({ operation: call.operation, outcome: call.outcome, error_code: call.errorCode });
    this.providerCalls.latency.observe({ operation: call.operation, outcome: call.outcome }, call.durationMs / 1000);
  };

  /** Observer for `runConsumer({..., lag: metrics.consumerLag})`: the consumer's backlog as gauges. */
  readonly consumerLag = (stream: string, consumer: string, lag: ConsumerLagReport): void => {
    this.consumerGauges ??= {
      pending: new Gauge({
        name: 'jetstream_consumer_pending',
        help: 'Messages of the stream not yet delivered to the durable consumer',
        labelNames: ['stream', 'consumer'],
        registers: [this.registry],
      }),
      ackPending: new Gauge({
        name: 'jetstream_consumer_ack_pending',
        help: 'Messages delivered to the durable consumer and not yet acknowledged',
        labelNames: ['stream', 'consumer'],
        registers: [this.registry],
      }),
    };
    this.consumerGauges.pending.set({ stream, consumer }, lag.pending);
    this.consumerGauges.ackPending.set({ stream, consumer }, lag.ackPending);
  };

  /** Observer for `runConsumer({..., deadLettered: metrics.deadLettered})`: messages moved to DEAD_LETTER. */
  readonly deadLettered = (stream: string, consumer: string): void => {
    this.deadLetters ??= this.counter('jetstream_dead_letters_total', 'Messages a durable consumer moved to DEAD_LETTER after its last failed delivery', [
      'stream',
      'consumer',
    ]);
    this.deadLetters.inc({ stream, consumer });
  };

  /**
   * The provider API version this process calls (PROVIDER_API_VERSION), logged at start with its expiry, and
   * `provider_api_version_expiry_days{version}`: the days left until the provider stops serving it, computed at
   * each scrape (the alert rules fire under 60). A version without an announced expiry exports no sample.
   */
  providerApiVersion(version: string, logger?: Logger): void {
    const info = providerApiVersionInfo(version);
    if (info.daysLeft !== null && info.daysLeft < 60)
      logger?.warn({ version, expires: info.expires, days_left: info.daysLeft }, 'provider API version expires soon');
    else logger?.info({ version, expires: info.expires, days_left: info.daysLeft }, 'provider API version');
    new Gauge({
      name: 'provider_api_version_expiry_days',
      help: 'Days until the provider stops serving the configured API version (PROVIDER_API_VERSION)',
      labelNames: ['version'],
      registers: [this.registry],
      collect() {
        const days = providerApiVersionInfo(version).daysLeft;
        if (days !== null) this.set({ version }, days);
      },
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
  await listen(server, port, host);
  const addr = server.address();
  return {
    port: typeof addr === 'object' && addr ? addr.port : port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
