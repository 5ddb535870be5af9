/**
 * Small servers the bench runs as separate processes (one mode per process):
 *   grpc <port>                  a gRPC server with only grpc.health.v1 (the cheapest unary call)
 *   koa-grpc <port> <grpcAddr>   a minimal Koa server doing one unary gRPC call per request (send-path ceiling)
 *   koa-noop <port>              a minimal Koa server that reads the body and answers 200 (ingest ceiling)
 *   receiver <port>              a webhook receiver answering 200, counting distinct X-Event-Id (GET /stats)
 *   otlp-sink <port>             an OTLP/HTTP trace receiver that accepts every export and counts them (GET /stats)
 *   floor-edge <port> <businessAddr> <messagingAddr>, floor-business <port>,
 *   floor-messaging <port> <providerBaseUrl> <accessToken> <phoneNumberId>
 *                                the send path's floor: its processes and calls without the gateway's work (send-floor.ts)
 *   floor-inbound <port> <natsUrl>, floor-router <port> <natsUrl>, floor-dispatcher <port> <natsUrl> <receiverUrl>
 *                                the ingest path's floor: its processes and hops without the gateway's work (ingest-floor.ts)
 */
import { createServer } from 'node:http';
import Koa from 'koa';
import { health } from '@gateway/contracts';
import { createLogger } from '@gateway/logger';
import { createServiceClient, startGrpcServer } from '@gateway/rpc';
import { floorBusiness, floorEdge, floorMessaging } from './send-floor';
import { floorDispatcher, floorInbound, floorRouter } from './ingest-floor';
import { readBody } from './read-body';

const [mode, portArg, extra] = process.argv.slice(2);
const port = Number(portArg);

async function main() {
  switch (mode) {
    case 'grpc': {
      await startGrpcServer({ host: '127.0.0.1', port, logger: createLogger({ name: 'ceiling-grpc', level: 'silent' }), services: [] });
      break;
    }
    case 'koa-grpc': {
      const client = createServiceClient(health.Health, extra);
      const app = new Koa();
      app.use(async (ctx) => {
        await readBody(ctx.req);
        await client.check({ service: '' });
        ctx.status = 200;
        ctx.type = 'application/json';
        ctx.body = 'null';
      });
      app.listen(port, '127.0.0.1');
      break;
    }
    case 'koa-noop': {
      const app = new Koa();
      app.use(async (ctx) => {
        await readBody(ctx.req);
        ctx.status = 200;
        ctx.body = 'ok';
      });
      app.listen(port, '127.0.0.1');
      break;
    }
    case 'receiver': {
      const seen = new Set<string>();
      let received = 0;
      let firstAt = 0;
      let lastAt = 0;
      createServer((req, res) => {
        if (req.method === 'GET' && req.url === '/stats') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ received, distinct: seen.size, firstAt, lastAt }));
          return;
        }
        if (req.method === 'DELETE' && req.url === '/stats') {
          seen.clear();
          received = 0;
          firstAt = 0;
          lastAt = 0;
          res.writeHead(204);
          res.end();
          return;
        }
        req.resume();
        req.on('end', () => {
          // the ceiling's POSTs carry no type; the gateway's other events (the client's signup_completed) are not counted
          const type = req.headers['x-event-type'];
          if (type === undefined || type === 'test') {
            received += 1;
            lastAt = Date.now();
            firstAt ||= lastAt;
            const id = req.headers['x-event-id'];
            if (typeof id === 'string') seen.add(id);
          }
          res.writeHead(200);
          res.end();
        });
      }).listen(port, '127.0.0.1');
      break;
    }
    case 'otlp-sink': {
      let exports = 0;
      let bytes = 0;
      createServer((req, res) => {
        if (req.method === 'GET' && req.url === '/stats') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ exports, bytes }));
          return;
        }
        req.on('data', (c: Buffer) => (bytes += c.length));
        req.on('end', () => {
          exports += 1;
          // an empty ExportTraceServiceResponse: no body in protobuf, {} in JSON
          const json = String(req.headers['content-type'] ?? '').includes('json');
          res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
          res.end(json ? '{}' : undefined);
        });
      }).listen(port, '127.0.0.1');
      break;
    }
    case 'floor-edge':
      floorEdge(port, extra, process.argv[5]);
      break;
    case 'floor-business':
      await floorBusiness(port);
      break;
    case 'floor-messaging':
      await floorMessaging(port, extra, process.argv[5], process.argv[6]);
      break;
    case 'floor-inbound':
      await floorInbound(port, extra);
      break;
    case 'floor-router':
      await floorRouter(port, extra);
      break;
    case 'floor-dispatcher':
      await floorDispatcher(port, extra, process.argv[5]);
      break;
    default:
      throw new Error(`unknown mode ${mode}`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
