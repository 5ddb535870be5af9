import { createServer, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { connectBus, STREAMS, type Bus } from '@gateway/bus';
import { followDirectoryChanges } from '@gateway/directory-changes';
import type { Logger } from '@gateway/logger';
import { connectProvider } from '@gateway/provider-client';
import { listen, Metrics, startMetricsServer, type RunningProcess } from '@gateway/runtime';
import { createEdgeApp, routesOf, type RouteInfo } from './app';
import { ApiKeyCache } from './auth';
import type { EdgeConfig } from './config';
import { publicRoutes } from './routes/public';
import { LiveStreams } from './routes/stream';
import { closeServices, connectServices } from './services';
import { gracefulClose } from './graceful-close';

export interface RunningEdge extends RunningProcess {
  port: number;
  url: string;
  metricsPort: number;
  /** Every route served, from the routers. */
  routes: RouteInfo[];
}

/**
 * Requests Node's HTTP parser refuses before Koa sees them (a URL or headers over 16 KB, malformed framing)
 * still get an answer in the error form, not an empty 400/431.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, text, body] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', { detail: 'The request line or headers are too large', code: 'headers_too_large' }]
      : [400, 'Bad Request', { detail: 'Malformed HTTP request', code: 'bad_request' }];
  const json = JSON.stringify(body);
  // a HEAD answer has no body (the parser may have failed after reading the method)
  const head = (err as { rawPacket?: Buffer }).rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${head ? '' : json}`,
  );
}

export async function startEdge(config: EdgeConfig, logger: Logger): Promise<RunningEdge> {
  const services = connectServices(config, logger);
  const bus: Bus = await connectBus({
    url: config.natsUrl,
    name: 'edge',
    logger,
    streams: [STREAMS.providerInbound, STREAMS.deadLetter, STREAMS.directoryChanges, STREAMS.conversations],
    replicas: config.jetstreamReplicas,
  });
  const metrics = new Metrics('edge');
  const requests = metrics.counter('http_requests_total', 'HTTP requests handled', ['route', 'method', 'status']);
  const latency = metrics.histogram(
    'http_request_duration_seconds',
    'HTTP request latency',
    ['route', 'method', 'status'],
    [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  );
  const keys = new ApiKeyCache(services, config.authCacheTtlMs);
  const media = connectProvider(config, metrics.providerCall, logger);
  metrics.providerApiVersion(config.providerApiVersion, logger);
  const changes = await followDirectoryChanges({
    bus,
    logger,
    onChange: (c) => c.kind === 'api_key' && keys.dropTenant(c.tenantId),
    onGap: () => keys.clear(),
  });
  const streams = new LiveStreams();
  const app = createEdgeApp({
    config,
    streams,
    services,
    logger,
    keys,
    media,
    bus,
    publicRoutes,
    observe: (route, method, status, ms) => {
      requests.inc({ route, method, status: String(status) });
      latency.observe({ route, method, status: String(status) }, ms / 1000);
    },
  });
  const server: Server = createServer(app.callback());
  server.on('clientError', answerClientError);
  server.keepAliveTimeout = 65_000;
  // the whole request may take as long as a media upload (MEDIA_UPLOAD_TIMEOUT_MS); every other body has its own
  // BODY_TIMEOUT_MS (middleware/body.ts), and headers must arrive within 60 s whatever the route
  server.requestTimeout = Math.max(config.mediaUploadTimeoutMs, config.bodyTimeoutMs);
  server.headersTimeout = 60_000;
  await listen(server, config.port, config.host);
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  const metricsServer = await startMetricsServer(metrics, config.metricsPort);
  logger.info({ port, metricsPort: metricsServer.port }, 'edge listening');

  return {
    port,
    url: `http://127.0.0.1:${port}`,
    metricsPort: metricsServer.port,
    routes: routesOf(app),
    async stop() {
      // stop accepting, end the live streams, let in-flight requests finish (10 s at most), then close every socket
      streams.closeAll();
      await gracefulClose(server, 10_000);
      await metricsServer.close();
      await changes.stop();
      await bus.close();
      closeServices(services);
      await media.close();
    },
  };
}
