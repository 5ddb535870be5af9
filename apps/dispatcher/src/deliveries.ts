import { randomUUID } from 'node:crypto';
import { webhookRetrySubject } from '@gateway/bus';
import type { dispatcher as d } from '@gateway/contracts';
import { AppError } from '@gateway/errors';
import { buildEvent, EVENT_HEADERS } from '@gateway/events';
import { enqueueEvent, enqueueMessages, type OutboxMessage } from '@gateway/outbox';
import { pageSize, takePage, type Db } from '@gateway/store';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { DeliveryTargets } from './delivery-targets';
import { DELIVERY_ID_HEADER, DELIVERY_SERIES_HEADER } from './delivery-worker';
import { DELIVERY_STATUSES, SqlDeliveryRepository, type DeliveryRecord, type DeliveryRepository } from './store/deliveries';

type DeliveryMessage = MessageInitShape<typeof d.DeliverySchema>;

/** Events a bulk replay starts at most per call. */
export const MAX_REPLAY = 10_000;

/** A new series of an earlier event, for the retry stream: the same bytes and X-Event-Id, its own record. */
function retryMessage(deliveryId: string, series: number, original: DeliveryRecord): OutboxMessage {
  return {
    id: `retry-${deliveryId}`,
    subject: webhookRetrySubject(original.tenant_id, original.client_id),
    body: original.body,
    headers: {
      [EVENT_HEADERS.id]: original.event_id,
      [EVENT_HEADERS.type]: original.event_type,
      [EVENT_HEADERS.tenant]: original.tenant_id,
      [EVENT_HEADERS.client]: original.client_id,
      [DELIVERY_ID_HEADER]: deliveryId,
      [DELIVERY_SERIES_HEADER]: String(series),
    },
  };
}

/** The dispatcher's gRPC-facing operations: reading delivery records, manual retries and test events. */
export class Deliveries {
  /** `repo` reads and writes over `db`; writes that go with an outbox message use a repository in their transaction. */
  constructor(
    private readonly db: Db,
    private readonly repo: DeliveryRepository,
    private readonly targets: DeliveryTargets,
    private readonly kickOutbox: () => void,
  ) {}

  async list(r: { tenantId: string; clientId: string; status?: string; eventType?: string; limit: number; cursor?: string }) {
    if (r.status && !(DELIVERY_STATUSES as readonly string[]).includes(r.status))
      throw AppError.validation([
        {
          loc: ['query', 'status'],
          msg: `must be one of ${DELIVERY_STATUSES.join(', ')}`,
          type: 'enum',
          input: r.status,
          ctx: { expected: DELIVERY_STATUSES },
        },
      ]);
    const limit = pageSize(r.limit);
    const rows = await this.repo.list({
      tenantId: r.tenantId,
      clientId: r.clientId,
      status: r.status,
      eventType: r.eventType,
      limit: limit + 1,
      afterId: r.cursor,
    });
    const { page, nextCursor } = takePage(rows, limit, (last) => last.id);
    return { deliveries: page.map((row) => this.present(row)), nextCursor };
  }

  async get(tenantId: string, clientId: string, deliveryId: string) {
    const rec = await this.owned(tenantId, clientId, deliveryId);
    return { delivery: { ...this.present(rec), body: rec.body } };
  }

  /** A new attempt series for the same event (same X-Event-Id), written with its message in one transaction. */
  async retry(tenantId: string, clientId: string, deliveryId: string) {
    const original = await this.owned(tenantId, clientId, deliveryId);
    const created = await this.db.tx(async (q) => {
      const repo = new SqlDeliveryRepository(q);
      for (let series = await repo.nextSeries(original.event_id); ; series += 1) {
        const id = randomUUID();
        const rec = await repo.create({
          id,
          tenantId,
          clientId,
          eventId: original.event_id,
          eventType: original.event_type,
          series,
          subject: original.subject,
          body: original.body,
        });
        if (rec.id !== id) continue; // a concurrent retry took this series number
        await enqueueMessages(q, [retryMessage(id, series, original)]);
        return rec;
      }
    });
    this.kickOutbox();
    return { eventId: created.event_id, deliveryId: created.id };
  }

  /** A `test` event for the client, its delivery record pending from the start so its id can be answered now. */
  async sendTest(tenantId: string, clientId: string) {
    const target = await this.targets.get(clientId);
    if (!target || target.tenantId !== tenantId) throw new AppError('not_found', 'client_not_found', 'Client not found');
    const event = buildEvent({
      type: 'test',
      tenantId,
      clientId,
      externalId: target.externalId,
      payload: { test: true, requested_at: new Date().toISOString() },
    });
    const deliveryId = randomUUID();
    event.headers[DELIVERY_ID_HEADER] = deliveryId;
    await this.db.tx(async (q) => {
      await new SqlDeliveryRepository(q).create({
        id: deliveryId,
        tenantId,
        clientId,
        eventId: event.id,
        eventType: 'test',
        series: 0,
        subject: event.subject,
        body: event.body,
      });
      await enqueueEvent(q, event);
    });
    this.kickOutbox();
    return { eventId: event.id, deliveryId };
  }

  /**
   * Bulk replay: a new series for every event whose latest series has `status` and was created in
   * [since, until), each through the retry stream like a manual retry (same X-Event-Id), all written with
   * their messages in one transaction. At most `MAX_REPLAY` a call; `hasMore` says whether more remain (the
   * next call finds them: a replayed event's latest series is the new one).
   */
  async replay(r: d.ReplayDeliveriesRequest): Promise<{ replayed: number; hasMore: boolean }> {
    const status = r.status || 'failed';
    if (status !== 'failed' && status !== 'skipped')
      throw AppError.validation([
        { loc: ['body', 'status'], msg: 'must be failed or skipped', type: 'enum', input: status, ctx: { expected: ['failed', 'skipped'] } },
      ]);
    const since = new Date(r.since);
    const until = r.until ? new Date(r.until) : undefined;
    if (Number.isNaN(since.getTime()) || (until && Number.isNaN(until.getTime()))) {
      throw AppError.validation([
        {
          loc: ['body', Number.isNaN(since.getTime()) ? 'since' : 'until'],
          msg: 'must be an ISO 8601 date-time',
          type: 'date_format',
          input: Number.isNaN(since.getTime()) ? r.since : r.until,
          ctx: {},
        },
      ]);
    }
    const result = await this.db.tx(async (q) => {
      const repo = new SqlDeliveryRepository(q);
      const found = await repo.replayable({ tenantId: r.tenantId, clientId: r.clientId, status, since, until, limit: MAX_REPLAY + 1 });
      const batch = found.slice(0, MAX_REPLAY).map((o) => ({
        original: o,
        key: {
          id: randomUUID(),
          tenantId: r.tenantId,
          clientId: r.clientId,
          eventId: o.event_id,
          eventType: o.event_type,
          series: o.series + 1,
          subject: o.subject,
          body: o.body,
        },
      }));
      const created = await repo.createMany(batch.map((b) => b.key));
      const replayed = batch.filter((b) => created.has(b.key.id));
      await enqueueMessages(
        q,
        replayed.map((b) => retryMessage(b.key.id, b.key.series, b.original)),
      );
      return { replayed: replayed.length, hasMore: found.length > MAX_REPLAY };
    });
    this.kickOutbox();
    return result;
  }

  private async owned(tenantId: string, clientId: string, deliveryId: string): Promise<DeliveryRecord> {
    const rec = await this.repo.get(deliveryId);
    if (!rec || rec.tenant_id !== tenantId || rec.client_id !== clientId) throw new AppError('not_found', 'delivery_not_found', 'Delivery not found');
    return rec;
  }

  private present(r: DeliveryRecord): DeliveryMessage {
    return {
      id: r.id,
      eventId: r.event_id,
      eventType: r.event_type,
      clientId: r.client_id,
      url: r.url ?? undefined,
      status: r.status,
      attempts: r.attempts,
      responseCode: r.response_code ?? undefined,
      lastError: r.last_error ?? undefined,
      createdAt: new Date(r.created_at).toISOString(),
      updatedAt: new Date(r.updated_at).toISOString(),
      attemptLog: r.attempt_log.map((a) => ({
        number: a.number,
        at: a.at,
        durationMs: a.duration_ms,
        responseCode: a.response_code ?? undefined,
        error: a.error ?? undefined,
      })),
    };
  }
}
