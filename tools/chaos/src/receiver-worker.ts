/**
 * The fault run's webhook receiver, in a worker thread of its own (receiver.ts starts it): its own event loop
 * and heap, so the load generator and the run's bookkeeping in the main thread never hold up its answers, and
 * the main thread's collections never pause it. Every request is answered 200 at once; what the run needs of it
 * (when, X-Event-Id, X-Delivery-Attempt, the run's wamids in the body) goes to the main thread in batches.
 */
import { createServer } from 'node:http';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import type { ReceivedDelivery, ReceiverMessage, ReceiverWorkerData, ThreadStats } from './receiver';

const { wamidPattern } = workerData as ReceiverWorkerData;
const port = parentPort!;
const pattern = new RegExp(wamidPattern, 'g');
let batch: ReceivedDelivery[] = [];
const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
const startedAt = performance.eventLoopUtilization();
const stats = (): ThreadStats => ({
  busy: performance.eventLoopUtilization(startedAt).utilization,
  delayP99Ms: delay.percentile(99) / 1e6,
  delayMaxMs: delay.max / 1e6,
});

const flush = () => {
  if (!batch.length) return;
  port.postMessage({ type: 'batch', deliveries: batch } satisfies ReceiverMessage);
  batch = [];
};

const header = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? '';

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    batch.push({
      at: Date.now(),
      eventId: header(req.headers['x-event-id']),
      attempt: Number(header(req.headers['x-delivery-attempt'])) || 0,
      wamids: raw.match(pattern) ?? [],
    });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
});
server.keepAliveTimeout = 60_000;
const timer = setInterval(flush, 100);

port.on('message', (m: 'sync' | 'close') => {
  if (m === 'sync') {
    flush();
    port.postMessage({ type: 'synced', stats: stats() } satisfies ReceiverMessage);
  } else if (m === 'close') {
    clearInterval(timer);
    server.closeAllConnections();
    server.close(() => {
      flush();
      port.postMessage({ type: 'closed' } satisfies ReceiverMessage);
    });
  }
});

server.listen(0, '127.0.0.1', () => {
  port.postMessage({ type: 'listening', port: (server.address() as { port: number }).port } satisfies ReceiverMessage);
});
