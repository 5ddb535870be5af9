import { randomUUID } from 'node:crypto';
import { webhookRetrySubject } from '@gateway/bus';
import type { dispatcher as d } from '@gateway/contracts';
import { AppError } from '@gateway/errors';
import { buildEvent, EVENT_HEADERS } from '@gateway/events';
import { enqueueEvent } from '@gateway/outbox';
import type { Db } from '@gateway/store';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { DeliveryTargets } from './delivery-targets';
import { DELIVERY_ID_HEADER, DELIVERY_SERIES_HEADER } from './delivery-worker';
import { DELIVERY_STATUSES, SqlDeliveryRepository, type DeliveryRecord, type DeliveryRepository } from './store/deliveries';

type DeliveryMessage = MessageInitShape<typeof d.DeliverySchema>;

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
    if (r.status && !(DELIVERY_STATUSES as readonly string[]).includes(r.status)) throw AppError.validation([{ loc: ['query', 'status'], msg: `must be one of ${DELIVERY_STATUSES.join(', ')}`, type: 'enum', input: r.status, ctx: { expected: DELIVERY_STATUSES } }]);
    const limit = Math.min(Math.max(r.limit || 20, 1), 100);
    const rows = await this.repo.list({ tenantId: r.tenantId, clientId: r.clientId, status: r.status, eventType: r.eventType, limit: limit + 1, afterId: r.cursor });
    const page = rows.slice(0, limit);
    const deliveries = page.map((row) => this.present(row));
    return { deliveries, nextCursor: rows.length > limit ? page[page.length - 1].id : undefined };
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
        const rec = await repo.create({ id, tenantId, clientId, eventId: original.event_id, eventType: original.event_type, series, subject: original.subject, body: original.body });
        if (rec.id !== id) continue; // a concurrent retry took this series number
        await enqueueEvent(q, {
          id: `retry-${id}`,
          type: original.event_type as never,
          tenantId,
          clientId,
          subject: webhookRetrySubject(tenantId, clientId),
          body: original.body,
          headers: {
            [EVENT_HEADERS.id]: original.event_id,
            [EVENT_HEADERS.type]: original.event_type,
            [EVENT_HEADERS.tenant]: tenantId,
            [EVENT_HEADERS.client]: clientId,
            [DELIVERY_ID_HEADER]: id,
            [DELIVERY_SERIES_HEADER]: String(series),
          },
        });
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
    const event = buildEvent({ type: 'test', tenantId, clientId, externalId: target.externalId, payload: { test: true, requested_at: new Date().toISOString() } });
    const deliveryId = randomUUID();
    event.headers[DELIVERY_ID_HEADER] = deliveryId;
    await this.db.tx(async (q) => {
      await new SqlDeliveryRepository(q).create({ id: deliveryId, tenantId, clientId, eventId: event.id, eventType: 'test', series: 0, subject: event.subject, body: event.body });
      await enqueueEvent(q, event);
    });
    this.kickOutbox();
    return { eventId: event.id, deliveryId };
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
