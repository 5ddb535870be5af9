import { PassThrough } from 'node:stream';
import { DeliverPolicy } from 'nats';
import { conversationSubject, STREAMS } from '@gateway/bus';
import { AppError } from '@gateway/errors';
import { tenantOf } from '../auth';
import { operation } from '../openapi/operation';
import { Message } from '../presenters';
import { streamHeaders, streamQuery } from '../schemas/conversations';
import { validateParts } from '../validation';
import type { RegisterRoutes } from './context';

/** What the messaging service publishes on CONVERSATIONS (apps/messaging/src/live.ts). */
interface LiveNotice {
  type: 'message' | 'status';
  message_id: string;
  contact_id: string | null;
  direction: 'in' | 'out';
  status: string;
}

/** A comment line every so often keeps proxies and the browser from closing an idle stream. */
const KEEP_ALIVE_MS = 15_000;

/**
 * The open live streams of this edge replica: counted per tenant (STREAMS_PER_TENANT), and ended when the edge
 * stops (an open stream would otherwise hold its shutdown).
 */
export class LiveStreams {
  private readonly byTenant = new Map<string, number>();
  private readonly open = new Set<() => void>();

  /** Takes a place for the tenant, or a 429 when it holds as many as it may. */
  take(tenantId: string, max: number): () => void {
    const n = this.byTenant.get(tenantId) ?? 0;
    if (n >= max)
      throw new AppError('rate_limited', 'too_many_streams', `At most ${max} live streams per tenant may be open at once; close one first`, {
        retryAfterSeconds: 5,
      });
    this.byTenant.set(tenantId, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.byTenant.get(tenantId) ?? 1) - 1;
      if (left > 0) this.byTenant.set(tenantId, left);
      else this.byTenant.delete(tenantId);
    };
  }

  add(end: () => void): () => void {
    this.open.add(end);
    return () => this.open.delete(end);
  }

  closeAll(): void {
    for (const end of [...this.open]) end();
  }
}

/**
 * GET /api/stream?client_id= : Server-Sent Events of a client's new messages (`message`) and status changes
 * (`status`), each with the message record as GET /api/messages/{id} answers it. Fed from the bus
 * (CONVERSATIONS), so every edge replica streams every message whichever replica or service stored it; each
 * event's id is its stream position, and a reconnect with `Last-Event-ID` resumes after it (for a day).
 */
export const registerStreamRoutes: RegisterRoutes = (router, { services, config, bus, streams }) => {
  router.get(
    '/api/stream',
    operation({
      operationId: 'streamMessages',
      summary: "Live Server-Sent Events of a client's messages and status changes",
      description:
        'Events `message` (a message stored: inbound, a send, an echo) and `status` (a send moved to another status); `data` is ' +
        '`{"message": Message}` and `id` the position to resume from: reconnect with `Last-Event-ID` to receive what was missed (kept a ' +
        'day). At most STREAMS_PER_TENANT streams of a tenant per edge replica (`429 too_many_streams`). Comment lines keep it alive. ' +
        'The events are described in the AsyncAPI document (`asyncapi.yaml`, channel `conversations`).',
      tags: ['Conversations'],
      request: { query: streamQuery, headers: streamHeaders },
      responses: {
        200: {
          description: 'The event stream (`text/event-stream`), open until the client closes it.',
          contentType: 'text/event-stream',
          schema: { type: 'string' },
        },
      },
      errors: [404, 429],
      noStore: true,
    }),
    async (ctx) => {
      const { query, header } = validateParts<{ query: { client_id: string }; header: { 'last-event-id'?: string } }>({
        query: [streamQuery, ctx.query],
        header: [streamHeaders, ctx.headers],
      });
      const tenantId = tenantOf(ctx);
      await services.directory.getClient({ tenantId, clientId: query.client_id });
      if (!bus || !streams) throw new AppError('unavailable', 'bus_unavailable', 'The live stream is not available');
      const release = streams.take(tenantId, config.streamsPerTenant);
      let messages;
      try {
        const last = header['last-event-id'];
        const consumer = await bus.js.consumers.get(STREAMS.conversations.name, {
          // one subject (nats-server 2.9 takes no list of filters)
          filterSubjects: conversationSubject(tenantId, query.client_id),
          ...(last ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: Number(last) + 1 } : { deliver_policy: DeliverPolicy.New }),
        });
        messages = await consumer.consume();
      } catch (e) {
        release();
        throw e;
      }
      const body = new PassThrough();
      const keepAlive = setInterval(() => body.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        clearInterval(keepAlive);
        release();
        forget();
        void messages.close().catch(() => undefined);
        body.end();
      };
      const forget = streams.add(end);
      ctx.req.on('close', end);
      ctx.req.socket.setTimeout(0);
      ctx.req.socket.setNoDelay(true);
      ctx.status = 200;
      ctx.type = 'text/event-stream';
      ctx.set('Cache-Control', 'no-store');
      ctx.set('X-Accel-Buffering', 'no');
      ctx.body = body;
      body.write('retry: 2000\n\n');
      void (async () => {
        try {
          for await (const m of messages) {
            if (ended) break;
            const n = JSON.parse(m.string()) as LiveNotice;
            const res = await services.messaging
              .getMessage({ tenantId, clientId: query.client_id, messageId: n.message_id })
              .catch(() => undefined /* pruned, or gone meanwhile: nothing to show */);
            if (!res?.message || ended) continue;
            body.write(
              `id: ${m.seq}\nevent: ${n.type === 'status' ? 'status' : 'message'}\ndata: ${JSON.stringify({ message: Message.present(res.message) })}\n\n`,
            );
          }
        } catch {
          // the bus went away: the client reconnects with its Last-Event-ID
        }
        end();
      })();
    },
  );
};
