import { nakAfter, ACK, TERM, headerValue, type Outcome } from '@gateway/bus';
import { deterministicUuid, signatureHeader, standardWebhookSignature } from '@gateway/crypto';
import { EVENT_HEADERS } from '@gateway/events';
import type { Logger } from '@gateway/logger';
import type { JsMsg } from 'nats';
import { liveSecrets, type DeliveryTarget, type DeliveryTargets } from './delivery-targets';
import type { EndpointHealth } from './endpoint-health';
import type { RecordReader } from './record-reader';
import type { RecordWriter } from './record-writer';
import type { DeliveryRepository, SeriesKey, SeriesState } from './store/deliveries';
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

/** What the worker asks of the tenant directory when a receiver is gone or has failed for too long. */
export type DisableWebhook = (clientId: string, url: string, reason: string) => Promise<boolean>;

/**
 * One JetStream message = one event for one client. The attempt number comes from the delivery record, not
 * from the redelivery count: a redelivery after a crash repeats the unfinished attempt instead of spending
 * one. Between attempts the message waits in JetStream (nak with the next delay), never in a timer here.
 * Every delivery reads its record first, the first delivery too (an event's own series through `RecordReader`,
 * batched; JetStream may hand a message out as a first delivery again), and a series that has ended is acknowledged without another attempt; the record is written after
 * the attempt, in a group commit, before the ack. What remains is the at-least-once window: a process killed
 * between the receiver's answer and that commit leaves no record, and the redelivery sends the attempt again.
 *
 * Beside the spec's schedule, the receiver's signals count: 410 Gone ends the series and disables the
 * client's webhook; 429/503 with Retry-After set the next delay (capped at the schedule's largest); a URL
 * that has failed every attempt for the disable period is disabled. Events of a disabled webhook are
 * recorded `skipped` (a replay delivers them once it is enabled again); event types the client's
 * `webhook_events` leave out are neither delivered nor recorded (test events always are).
 */
/** The last_error of an event held while its tenant is suspended (issue 28). */
export const TENANT_SUSPENDED = 'held: tenant suspended';

export class DeliveryWorker {
  constructor(
    private readonly repo: DeliveryRepository,
    private readonly reader: RecordReader,
    private readonly writer: RecordWriter,
    private readonly targets: DeliveryTargets,
    private readonly sender: WebhookSender,
    private readonly health: EndpointHealth,
    private readonly disable: DisableWebhook,
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
    // the event's own series (no record made up front) has the id derived from the event: read in a batch
    const record: SeriesState | undefined = presetId ? await this.repo.find(eventId, series) : await this.reader.state(seriesId(eventId, series));
    if (record && record.status !== 'pending') return ACK; // a redelivery of a finished series
    const done = record?.attempts ?? 0;
    // `attempts` keeps the count when a series ends without another attempt (an update must not go backwards)
    const key: SeriesKey & { attempts: number } = {
      id: record?.id ?? presetId ?? seriesId(eventId, series),
      tenantId,
      clientId,
      eventId,
      eventType,
      series,
      subject: m.subject,
      body,
      attempts: done,
    };

    const target = await this.targets.get(clientId);
    if (!target || target.tenantId !== tenantId) {
      await this.writer.write({ ...key, status: 'failed', url: null, responseCode: null, lastError: 'client not found' });
      this.opts.observe?.('failed', done);
      this.logger.warn({ eventId, clientId }, 'event for a client that no longer exists; not delivered');
      return TERM;
    }
    if (target.events.length && eventType !== 'test' && !target.events.includes(eventType)) {
      // filtered out: no record of the event's own series; a series created up front (retry, replay) is closed
      if (record || presetId)
        await this.writer.write({ ...key, status: 'skipped', url: null, responseCode: null, lastError: `${eventType} is not in the client's webhook_events` });
      return ACK;
    }
    if (target.suspended) {
      // held: the operator's resume replays the tenant's events recorded so since its suspension
      await this.writer.write({ ...key, status: 'skipped', url: target.url, responseCode: null, lastError: TENANT_SUSPENDED });
      this.opts.observe?.('skipped', 0);
      return ACK;
    }
    if (target.disabledReason) {
      await this.writer.write({ ...key, status: 'skipped', url: target.url, responseCode: null, lastError: `webhook disabled: ${target.disabledReason}` });
      this.opts.observe?.('skipped', 0);
      return ACK;
    }
    if (!target.url) {
      await this.writer.write({ ...key, status: 'skipped', url: null, responseCode: null, lastError: 'no webhook URL for the client or its tenant' });
      this.opts.observe?.('skipped', 0);
      return ACK;
    }
    const attempt = done + 1;
    if (attempt > this.maxAttempts) {
      await this.writer.write({
        ...key,
        status: 'failed',
        url: target.url,
        responseCode: record?.response_code ?? null,
        lastError: record?.last_error ?? 'attempts spent',
      });
      return TERM;
    }

    const at = new Date();
    const result = await this.sender.send(target.url, body, signedHeaders(target, eventId, eventType, attempt, key.id, body, at));
    const gone = result.responseCode === 410;
    // a target refused by policy stays refused, and one that answered 410 asked to be left alone
    const last = attempt >= this.maxAttempts || result.permanent === true || gone;
    const status = result.ok ? 'succeeded' : last ? 'failed' : 'pending';
    const lastError = gone ? 'receiver answered 410 Gone; webhook disabled' : result.error;
    await this.writer.write({
      ...key,
      status,
      url: target.url,
      responseCode: result.responseCode,
      lastError,
      attempt: { number: attempt, at: at.toISOString(), duration_ms: Math.round(result.durationMs), response_code: result.responseCode, error: lastError },
    });
    this.opts.observe?.(result.ok ? 'succeeded' : last ? 'failed' : 'retrying', attempt, result.durationMs);
    if (result.ok) {
      await this.health.succeeded(clientId, target.url).catch((e: unknown) => this.logger.warn({ err: e, clientId }, 'could not record a healthy endpoint'));
      return ACK;
    }
    this.logger.warn(
      { eventId, clientId, attempt, code: result.responseCode, error: result.error },
      last ? 'webhook delivery failed; series ended' : 'webhook attempt failed; JetStream redelivers it later',
    );
    if (gone) await this.disableWebhook(clientId, target.url, 'receiver answered 410 Gone');
    else if (!result.permanent) await this.checkHealth(tenantId, clientId, target.url);
    return last ? TERM : nakAfter(this.nextDelay(attempt, result.retryAfterMs));
  }

  /** The schedule's delay, or the receiver's Retry-After (429, 503) capped at the schedule's largest delay. */
  private nextDelay(attempt: number, retryAfterMs: number | undefined): number {
    const scheduled = this.opts.retryDelaysMs[attempt - 1];
    return retryAfterMs === undefined ? scheduled : Math.min(retryAfterMs, Math.max(...this.opts.retryDelaysMs));
  }

  private async checkHealth(tenantId: string, clientId: string, url: string): Promise<void> {
    try {
      if (await this.health.failed(tenantId, clientId, url)) await this.disableWebhook(clientId, url, 'every delivery failed for the disable period');
    } catch (e) {
      this.logger.warn({ err: e, clientId }, 'could not record a failing endpoint');
    }
  }

  /** Best effort: if the directory cannot be told now, the next failure tells it. */
  private async disableWebhook(clientId: string, url: string, reason: string): Promise<void> {
    try {
      if (await this.disable(clientId, url, reason)) this.logger.warn({ clientId, reason }, 'webhook disabled');
      await this.health.reset(clientId, url);
    } catch (e) {
      this.logger.warn({ err: e, clientId }, 'could not disable the webhook; the next failure tries again');
    }
  }
}

/**
 * The spec's headers and the Standard Webhooks ones: webhook-id is the event id (the same on every attempt
 * and series, the receiver's dedupe key), webhook-timestamp this attempt's time, webhook-signature one entry
 * per live secret. X-Signature-256 uses the newest secret.
 */
function signedHeaders(
  target: DeliveryTarget,
  eventId: string,
  eventType: string,
  attempt: number,
  deliveryId: string,
  body: string,
  at: Date,
): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    'X-Signature-256': signatureHeader(target.secret, body),
    'X-Event-Id': eventId,
    'X-Event-Type': eventType,
    'X-Delivery-Attempt': String(attempt),
    'X-Delivery-Id': deliveryId,
    'webhook-id': eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standardWebhookSignature(liveSecrets(target, at.getTime()), eventId, timestamp, body),
  };
}

/** The record id of an event's own series, derived from the event id so it is known before the record exists. */
export function seriesId(eventId: string, series: number): string {
  return deterministicUuid(eventId, String(series));
}
