import { createServer, type Server } from 'node:http';
import { connectBus, STREAMS, type Bus } from '@gateway/bus';
import type { Logger } from '@gateway/logger';
import { Metrics, startMetricsServer, type RunningProcess } from '@gateway/runtime';
import { createEdgeApp } from './app';
import { ApiKeyCache } from './auth';
import type { EdgeConfig } from './config';
import { publicRoutes } from './routes/public';
import { closeServices, connectServices } from './services';

export interface RunningEdge extends RunningProcess {
  port: number;
  url: string;
  metricsPort: number;
}

export async function startEdge(config: EdgeConfig, logger: Logger): Promise<RunningEdge> {
  const services = connectServices(config);
  const bus: Bus = await connectBus({ url: config.natsUrl, name: 'edge', logger, streams: [STREAMS.providerInbound], replicas: config.jetstreamReplicas });
  const metrics = new Metrics('edge');
  const requests = metrics.counter('http_requests_total', 'HTTP requests handled', ['route', 'method', 'status']);
  const latency = metrics.histogram('http_request_duration_seconds', 'HTTP request latency', ['route', 'method', 'status'], [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);
  const keys = new ApiKeyCache(services, config.authCacheTtlMs);
  const app = createEdgeApp({
    config,
    services,
    logger,
    keys,
    bus,
    publicRoutes,
    observe: (route, method, status, ms) => {
      requests.inc({ route, method, status: String(status) });
      latency.observe({ route, method, status: String(status) }, ms / 1000);
    },
  });
  const server: Server = createServer(app.callback());
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  const metricsServer = await startMetricsServer(metrics, config.metricsPort);
  logger.info({ port, metricsPort: metricsServer.port }, 'edge listening');

  return {
    port,
    url: `http://127.0.0.1:${port}`,
    metricsPort: metricsServer.port,
    async stop() {
      // stop accepting, let in-flight requests finish, then close idle keep-alive sockets
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 10_000).unref();
      });
      await metricsServer.close();
      await bus.close();
      closeServices(services);
    },
  };
}
