import { nakAfter, ACK, TERM, headerValue, type Outcome } from '@gateway/bus';
import { deterministicUuid, signatureHeader } from '@gateway/crypto';
import { EVENT_HEADERS } from '@gateway/events';
import type { Logger } from '@gateway/logger';
import type { JsMsg } from 'nats';
import type { DeliveryTargets } from './delivery-targets';
import type { RecordWriter } from './record-writer';
import type { DeliveryRepository, SeriesKey } from './store/deliveries';
import type { WebhookSender } from './webhook-sender';

/** Set on messages whose delivery record exists already (test events, manual retries). */
export const DELIVERY_ID_HEADER = 'X-Delivery-Id';
export const DELIVERY_SERIES_HEADER = 'X-Delivery-Series';

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
 * A first delivery of an event without a record skips the read: it is attempt 1 (the record is written
 * after the attempt, in a group commit, before the ack).
 */
export class DeliveryWorker {
  constructor(
    private readonly repo: DeliveryRepository,
    private readonly writer: RecordWriter,
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
    const body = m.string();
    const presetId = headerValue(m.headers, DELIVERY_ID_HEADER);
    const series = Number(headerValue(m.headers, DELIVERY_SERIES_HEADER) ?? 0);
    const firstSight = m.info.deliveryCount === 1 && !presetId;
    const record = firstSight ? undefined : await this.repo.find(eventId, series);
    if (record && record.status !== 'pending') return ACK; // a redelivery of a finished series
    const done = record?.attempts ?? 0;
    const key: SeriesKey = { id: record?.id ?? presetId ?? seriesId(eventId, series), tenantId, clientId, eventId, eventType, series, subject: m.subject, body };

    const target = await this.targets.get(clientId);
    if (!target || target.tenantId !== tenantId) {
      await this.writer.write({ ...key, status: 'failed', url: null, responseCode: null, lastError: 'client not found' });
      this.opts.observe?.('failed', done);
      this.logger.warn({ eventId, clientId }, 'event for a client that no longer exists; not delivered');
      return TERM;
    }
    if (!target.url) {
      await this.writer.write({ ...key, status: 'skipped', url: null, responseCode: null, lastError: 'no webhook URL for the client or its tenant' });
      this.opts.observe?.('skipped', 0);
      return ACK;
    }
    const attempt = done + 1;
    if (attempt > this.maxAttempts) {
      await this.writer.write({ ...key, status: 'failed', url: target.url, responseCode: record?.response_code ?? null, lastError: record?.last_error ?? 'attempts spent' });
      return TERM;
    }

    const at = new Date().toISOString();
    const result = await this.sender.send(target.url, body, {
      'X-Signature-256': signatureHeader(target.secret, body),
      'X-Event-Id': eventId,
      'X-Event-Type': eventType,
      'X-Delivery-Attempt': String(attempt),
      'X-Delivery-Id': key.id,
    });
    // a target refused by policy stays refused: no point in spending the remaining attempts on it
    const last = attempt >= this.maxAttempts || result.permanent === true;
    const status = result.ok ? 'succeeded' : last ? 'failed' : 'pending';
    await this.writer.write({
      ...key, status, url: target.url, responseCode: result.responseCode, lastError: result.error,
      attempt: { number: attempt, at, duration_ms: Math.round(result.durationMs), response_code: result.responseCode, error: result.error },
    });
    this.opts.observe?.(result.ok ? 'succeeded' : last ? 'failed' : 'retrying', attempt, result.durationMs);
    if (result.ok) return ACK;
    this.logger.warn({ eventId, clientId, attempt, code: result.responseCode, error: result.error }, last ? 'webhook delivery failed; attempts spent' : 'webhook attempt failed; JetStream redelivers it later');
    return last ? TERM : nakAfter(this.opts.retryDelaysMs[attempt - 1]);
  }
}

/** The record id of an event's own series, derived from the event id so it is known before the record exists. */
export function seriesId(eventId: string, series: number): string {
  return deterministicUuid(eventId, String(series));
}
