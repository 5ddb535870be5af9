import { buildSync } from 'esbuild';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { repoRoot } from './bundle';

/** One request the receiver got, as the run counts it. */
export interface ReceivedDelivery {
  /** When the request's body had arrived (before it was answered). */
  at: number;
  eventId: string;
  /** X-Delivery-Attempt: which attempt of its series the dispatcher said it was. */
  attempt: number;
  /** This run's inbound wamids found in the body (a chat event carries the raw provider body). */
  wamids: string[];
}

export interface ReceiverWorkerData {
  /** A RegExp source matching this run's wamids. */
  wamidPattern: string;
}

/** How busy a thread's event loop was: the share of time it ran, and how late its timers fired (p99, max). */
export interface ThreadStats {
  busy: number;
  delayP99Ms: number;
  delayMaxMs: number;
}

export type ReceiverMessage =
  { type: 'listening'; port: number } | { type: 'batch'; deliveries: ReceivedDelivery[] } | { type: 'synced'; stats: ThreadStats } | { type: 'closed' };

/**
 * The webhook receiver of the fault run, answering in a worker thread (receiver-worker.ts) and handing what it
 * got to this thread in batches (every 100 ms, and on `sync()`). Run C of 2026-11-25 had the receiver on the
 * event loop that also ran the load generator, the simulator and three services: deliveries to it waited
 * seconds for an answer, timed out, and were repeated or given up; the run measured its own receiver.
 */
export class ChaosReceiver {
  readonly received: ReceivedDelivery[] = [];
  /** The worker's event loop since it started, as of the last `sync()`. */
  stats: ThreadStats = { busy: 0, delayP99Ms: 0, delayMaxMs: 0 };
  private waiting: Array<{ type: ReceiverMessage['type']; resolve: () => void }> = [];

  private constructor(
    private readonly worker: Worker,
    readonly url: string,
  ) {}

  static async start(data: ReceiverWorkerData): Promise<ChaosReceiver> {
    // the worker's source is bundled here (jest runs this file from its TypeScript, `npm run chaos` from dist/)
    const code = buildSync({
      entryPoints: [join(repoRoot(), 'tools', 'chaos', 'src', 'receiver-worker.ts')],
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      write: false,
      logLevel: 'warning',
    }).outputFiles[0].text;
    const worker = new Worker(code, { eval: true, workerData: data });
    const port = await new Promise<number>((resolve, reject) => {
      worker.once('error', reject);
      worker.once('message', (m: ReceiverMessage) => (m.type === 'listening' ? resolve(m.port) : reject(new Error(`receiver worker said ${m.type}`))));
    });
    const receiver = new ChaosReceiver(worker, `http://127.0.0.1:${port}/hook`);
    worker.on('message', (m: ReceiverMessage) => receiver.onMessage(m));
    return receiver;
  }

  /** Resolves once every request the worker had got when called is in `received`. */
  sync(): Promise<void> {
    return this.request('sync', 'synced');
  }

  async close(): Promise<void> {
    await this.request('close', 'closed');
    await this.worker.terminate();
  }

  private request(what: 'sync' | 'close', answer: ReceiverMessage['type']): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push({ type: answer, resolve });
      this.worker.postMessage(what);
    });
  }

  private onMessage(m: ReceiverMessage): void {
    if (m.type === 'batch') {
      for (const d of m.deliveries) this.received.push(d);
      return;
    }
    if (m.type === 'synced') this.stats = m.stats;
    const i = this.waiting.findIndex((w) => w.type === m.type);
    if (i >= 0) this.waiting.splice(i, 1)[0].resolve();
  }
}
