import { nakAfter, ACK, TERM, headerValue, type Outcome } from '@gateway/bus';
import { signatureHeader } from '@gateway/crypto';
import { EVENT_HEADERS } from '@gateway/events';
import type { Logger } from '@gateway/logger';
import type { JsMsg } from 'nats';
import type { DeliveryTargets } from './delivery-targets';
import type { DeliveryRepository } from './store/deliveries';
import type { WebhookSender } from './webhook-sender';

/** Set on messages whose delivery record exists already (test events, manual retries). */
export const DELIVERY_ID_HEADER = 'X-Delivery-Id';

export interface DeliveryObserver {
  (outcome: 'succeeded' | 'retrying' | 'failed' | 'skipped', attempt: number, durationMs?: number): void;
}

export interface WorkerOptions {
  /** Delays before the 2nd, 3rd... attempt; attempts in all = delays + 1. */
  retryDelaysMs: number[];
  observe?: DeliveryObserver;
}

/**
 * One JetStream message = one event for one client. The attempt number comes from the delivery record, not
 * from the redelivery count: a redelivery after a crash repeats the unfinished attempt instead of spending
 * one. Between attempts the message waits in JetStream (nak with the next delay), never in a timer here.
 */
export class DeliveryWorker {
  constructor(
    private readonly repo: DeliveryRepository,
    private readonly targets: DeliveryTargets,
    private readonly sender: WebhookSender,
    private readonly logger: Logger,
    private readonly opts: WorkerOptions,
  ) {}

  get maxAttempts(): number {
    return this.opts.retryDelaysMs.length + 1;
  }

  async handle(m: JsMsg): Promise<Outcome> {
    const eventId = headerValue(m.headers, EVENT_HEADERS.id);
    const eventType = headerValue(m.headers, EVENT_HEADERS.type);
    const tenantId = headerValue(m.headers, EVENT_HEADERS.tenant);
    const clientId = headerValue(m.headers, EVENT_HEADERS.client);
    if (!eventId || !eventType || !tenantId || !clientId) {
      this.logger.error({ subject: m.subject, seq: m.seq }, 'event without its headers; cannot deliver it');
      return TERM;
    }
    const body = new TextDecoder().decode(m.data);
    const deliveryId = headerValue(m.headers, DELIVERY_ID_HEADER);
    const record = deliveryId
      ? await this.repo.open({ id: deliveryId, tenantId, clientId, eventId, eventType, series: Number(headerValue(m.headers, 'X-Delivery-Series') ?? 0), subject: m.subject, body })
      : await this.repo.open({ tenantId, clientId, eventId, eventType, series: 0, subject: m.subject, body });
    const log = this.logger.child({ deliveryId: record.id, eventId, eventType, clientId });
    if (record.status !== 'pending') return ACK; // a redelivery of a finished series

    const target = await this.targets.get(clientId);
    if (!target || target.tenantId !== tenantId) {
      await this.repo.finish(record.id, 'failed', 'client not found');
      this.opts.observe?.('failed', record.attempts);
      log.warn('event for a client that no longer exists; not delivered');
      return TERM;
    }
    if (!target.url) {
      await this.repo.finish(record.id, 'skipped', 'no webhook URL for the client or its tenant');
      this.opts.observe?.('skipped', 0);
      return ACK;
    }

    const attempt = record.attempts + 1;
    if (attempt > this.maxAttempts) {
      await this.repo.finish(record.id, 'failed', null);
      return TERM;
    }
    const result = await this.sender.send(target.url, body, {
      'X-Signature-256': signatureHeader(target.secret, body),
      'X-Event-Id': eventId,
      'X-Event-Type': eventType,
      'X-Delivery-Attempt': String(attempt),
      'X-Delivery-Id': record.id,
    });
    // a target refused by policy stays refused: no point in spending the remaining attempts on it
    const last = attempt >= this.maxAttempts || result.permanent === true;
    const status = result.ok ? 'succeeded' : last ? 'failed' : 'pending';
    await this.repo.recordAttempt(record.id, attempt, { at: new Date(), durationMs: result.durationMs, url: target.url, responseCode: result.responseCode, error: result.error, status });
    this.opts.observe?.(result.ok ? 'succeeded' : last ? 'failed' : 'retrying', attempt, result.durationMs);
    if (result.ok) {
      log.info({ attempt, code: result.responseCode, ms: Math.round(result.durationMs) }, 'webhook delivered');
      return ACK;
    }
    log.warn({ attempt, code: result.responseCode, error: result.error }, last ? 'webhook delivery failed; attempts spent' : 'webhook attempt failed; JetStream redelivers it later');
    return last ? TERM : nakAfter(this.opts.retryDelaysMs[attempt - 1]);
  }
}
