import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { listenLocal } from './local-server';

export interface ReceivedWebhook {
  at: number;
  headers: IncomingHttpHeaders;
  /** The exact bytes received. */
  raw: Buffer;
  body: unknown;
}

/** What the receiver answers: a status (with headers, e.g. Retry-After), or `hang` (never answer; the sender must time out). */
export type ReceiverReply = number | { status: number; headers: Record<string, string> } | 'hang';

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Replies for the next requests in order; once used up, `fallback` (default 200) answers. */
  replies: ReceiverReply[];
  fallback: ReceiverReply;
  /** Requests whose JSON body has this event type or X-Event-Id. */
  byType(type: string): ReceivedWebhook[];
  byEventId(id: string): ReceivedWebhook[];
  close(): Promise<void>;
}

/** A local HTTP receiver for webhook deliveries that records every request and answers as scripted. */
export async function startWebhookReceiver(opts: { replies?: ReceiverReply[]; fallback?: ReceiverReply } = {}): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const hanging = new Set<import('node:http').ServerResponse>();
  const receiver: Partial<WebhookReceiver> = { received, replies: [...(opts.replies ?? [])], fallback: opts.fallback ?? 200 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        body = undefined;
      }
      received.push({ at: Date.now(), headers: req.headers, raw, body });
      const reply = receiver.replies!.length ? receiver.replies!.shift()! : receiver.fallback!;
      if (reply === 'hang') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      const [status, headers] = typeof reply === 'number' ? [reply, {}] : [reply.status, reply.headers];
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end('{}');
    });
  });
  // the dispatcher closes its idle sockets: a receiver closing one itself races a delivery reusing it (a reset attempt)
  const port = await listenLocal(server);
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/hook`,
    byType: (type: string) => received.filter((r) => (r.body as { type?: string } | undefined)?.type === type),
    byEventId: (id: string) => received.filter((r) => r.headers['x-event-id'] === id),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  }) as WebhookReceiver;
}
