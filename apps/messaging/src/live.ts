import { conversationSubject, type Bus } from '@gateway/bus';
import type { Logger } from '@gateway/logger';

/**
 * A notice of the live stream (GET /api/stream): a client's message was stored (`message`) or moved to another
 * status (`status`). Only ids travel; each edge reads the record itself, so the stream answers what the API answers.
 */
export interface LiveNotice {
  type: 'message' | 'status';
  message_id: string;
  contact_id: string | null;
  direction: 'in' | 'out';
  status: string;
}

/** The JSON Schema of a LiveNotice (the AsyncAPI document's `conversations` channel). */
export const LIVE_NOTICE_SCHEMA = {
  type: 'object',
  required: ['type', 'message_id', 'contact_id', 'direction', 'status'],
  additionalProperties: false,
  properties: {
    type: { enum: ['message', 'status'], description: '`message`: a message was stored (inbound, a send, an echo); `status`: a send moved to another status.' },
    message_id: { type: 'string', description: "The provider's message id (GET /api/messages/{id})." },
    contact_id: { type: ['string', 'null'], description: 'The contact the message is with.' },
    direction: { enum: ['in', 'out'] },
    status: { type: 'string', description: 'Its status when the notice was written (`received` for inbound).' },
  },
} as const;

/** `Nats-Msg-Id` of a notice: a redelivered webhook or a repeated status writes the same one (dropped by JetStream). */
export const liveNoticeId = (n: LiveNotice) => `${n.type}:${n.message_id}:${n.status}`;

/**
 * Publishes live notices to CONVERSATIONS (`conversations.<tenant>.<client>`), read by every edge replica. Best
 * effort: a notice that cannot be published is logged, never fails the send or the ingest that stored the
 * message (the log stays the truth; a stream client that reconnects reads the list again).
 */
export class LiveUpdates {
  private bus?: Bus;

  constructor(private readonly logger: Logger) {}

  attach(bus: Bus): void {
    this.bus = bus;
  }

  /**
   * A notice told without waiting for the stream's ack (a send's: its answer never waited for the live stream):
   * the ack is checked as it arrives (`Bus.publishLater`: no request, promise or timer per notice), and a notice
   * the stream refused or did not ack in time is logged, as `publish` logs it.
   */
  tell(tenantId: string, clientId: string, n: LiveNotice): void {
    if (!this.bus) return;
    this.bus.publishLater(conversationSubject(tenantId, clientId), JSON.stringify(n), {
      msgId: liveNoticeId(n),
      failed: (reason) => this.logger.warn({ error: reason, message_id: n.message_id }, 'could not publish a live conversation notice'),
    });
  }

  async publish(tenantId: string, clientId: string, n: LiveNotice): Promise<void> {
    if (!this.bus) return;
    try {
      await this.bus.publish(conversationSubject(tenantId, clientId), JSON.stringify(n), { msgId: liveNoticeId(n) });
    } catch (e) {
      this.logger.warn({ err: e, message_id: n.message_id }, 'could not publish a live conversation notice');
    }
  }
}
