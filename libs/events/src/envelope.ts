import { randomUUID } from 'node:crypto';
import { eventSubject } from '@gateway/bus';

/** Event types of spec 6.1. */
export const EVENT_TYPES = ['chat', 'signup_completed', 'template_status', 'flow_completion', 'test', 'campaign_status'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** States of a webhook delivery series (decisions.md "Events and delivery"). */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** NATS headers every event carries, so consumers can route without parsing the body. */
export const EVENT_HEADERS = {
  id: 'X-Event-Id',
  type: 'X-Event-Type',
  tenant: 'X-Tenant-Id',
  client: 'X-Client-Id',
} as const;

export interface GatewayEvent {
  id: string;
  type: EventType;
  tenantId: string;
  clientId: string;
  subject: string;
  headers: Record<string, string>;
  /** Exactly the bytes a webhook receiver gets: the spec 6.1 envelope. */
  body: string;
}

export interface EventInput {
  type: EventType;
  tenantId: string;
  clientId: string;
  externalId: string | null | undefined;
  /** Either an object, or raw JSON text forwarded byte for byte (the provider's body for `chat`). */
  payload: Record<string, unknown> | { raw: string };
  /** A deterministic id makes republishing idempotent (Nats-Msg-Id); random when absent. */
  id?: string;
}

export function buildEvent(input: EventInput): GatewayEvent {
  const id = input.id ?? randomUUID();
  const payloadJson = 'raw' in input.payload && typeof input.payload.raw === 'string' ? input.payload.raw : JSON.stringify(input.payload);
  // envelope keys in spec order; the payload is spliced in as text so raw bodies stay byte-identical
  const body = `{"type":${JSON.stringify(input.type)},"client_id":${JSON.stringify(input.clientId)},"external_id":${JSON.stringify(input.externalId ?? null)},"payload":${payloadJson}}`;
  return {
    id,
    type: input.type,
    tenantId: input.tenantId,
    clientId: input.clientId,
    subject: eventSubject(input.type, input.tenantId, input.clientId),
    headers: {
      [EVENT_HEADERS.id]: id,
      [EVENT_HEADERS.type]: input.type,
      [EVENT_HEADERS.tenant]: input.tenantId,
      [EVENT_HEADERS.client]: input.clientId,
    },
    body,
  };
}
