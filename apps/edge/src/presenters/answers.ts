import type { dispatcher as d, templates as tp, tenantDirectory as td } from '@gateway/contracts';
import { field, nested, secretField, shape } from './presenter';
import { Tenant } from './records';

/*
 * Answers that are not records: what an action did (counts, queued ids), a key shown once, health. Described
 * inline where they are used, as before; each made here like every other body.
 */

/** `POST /admin/tenants`: the tenant and its first key, shown once. */
export const TenantCreated = shape<td.CreateTenantResponse>({
  tenant: nested(Tenant, (r) => r.tenant),
  api_key: secretField({ type: 'string' }, (r) => r.apiKey),
});

/** `POST /admin/tenants/{id}/api-keys`: the key, shown once. */
export const AdminApiKeyCreated = shape<td.CreateApiKeyResponse>({
  api_key: secretField({ type: 'string' }, (r) => r.apiKey),
  prefix: field({ type: 'string' }, (r) => r.prefix),
});

/** `POST /api/api-keys`: the key, shown once, with its record's creation time (now, if the listing lags). */
export const ApiKeyCreated = shape<{ created: td.CreateApiKeyResponse; info: td.ApiKeyInfo | undefined }>({
  api_key: secretField({ type: 'string', description: 'The key: shown only here.' }, (r) => r.created.apiKey),
  prefix: field({ type: 'string' }, (r) => r.created.prefix),
  created_at: field({ type: 'string' }, (r) => r.info?.createdAt ?? new Date().toISOString()),
});

/** `POST /admin/dead-letters/replay`. */
export const DeadLettersReplayed = shape<{ replayed: number; failed: number }>({
  replayed: field({ type: 'integer' }, (r) => r.replayed),
  failed: field({ type: 'integer' }, (r) => r.failed),
});

/** `POST /api/clients/{id}/webhook/deliveries/replay`. */
export const DeliveriesReplayed = shape<d.ReplayDeliveriesResponse>({
  replayed: field({ type: 'integer' }, (r) => r.replayed),
  has_more: field({ type: 'boolean', description: 'More matched than one call replays: call again.' }, (r) => r.hasMore),
});

/** A delivery queued by a retry or a test event: the event and the new delivery record. */
export const QueuedDelivery = shape<{ eventId: string; deliveryId: string }>({
  event_id: field({ type: 'string' }, (r) => r.eventId),
  delivery_id: field({ type: 'string', format: 'uuid' }, (r) => r.deliveryId),
});

/** `POST /api/templates/sync`. */
export const TemplatesSynced = shape<tp.SyncTemplatesResponse>({
  synced: field({ type: 'integer' }, (r) => r.synced),
  removed: field({ type: 'integer' }, (r) => r.removed),
});

/** The outcome of a signup page's completion or failure report. */
export const SignupOutcome = shape<{ clientId: string; status: string; reason: string | undefined; redirectUrl: string | undefined }>({
  client_id: field({ type: 'string', format: 'uuid' }, (r) => r.clientId),
  status: field({ type: 'string', description: '`completed` or `failed`.' }, (r) => r.status),
  reason: field({ type: ['string', 'null'], description: 'The failed step.' }, (r) => r.reason ?? null),
  redirect_url: field({ type: ['string', 'null'], description: 'Where the page sends the browser.' }, (r) => r.redirectUrl ?? null),
});

/** An uploaded media (issue 19): the provider's media id, with the type the provider was told and the bytes' hash and size. */
export const Media = shape<{ id: string; mimeType: string; sha256: string; size: number }>({
  id: field({ type: 'string', description: "The provider's media id: send it as `media_id` (`/api/messaging/send-media`)." }, (m) => m.id),
  mime_type: field({ type: 'string', description: 'The type read from the bytes, as declared to the provider.' }, (m) => m.mimeType),
  sha256: field({ type: 'string', pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the bytes, hex.' }, (m) => m.sha256),
  file_size: field({ type: 'integer', minimum: 1, description: 'Bytes uploaded.' }, (m) => m.size),
});

/** `GET /healthz`. */
export const Alive = shape<void>({ status: field({ const: 'ok' }, () => 'ok') });

/** `GET /readyz`: ready, or not with what is not; one presenter per status, as each is documented. */
export const readiness = (status: 'ready' | 'not_ready') =>
  shape<Record<string, string>>({
    status: field({ const: status }, () => status),
    checks: field(
      {
        type: 'object',
        description: 'Per service and the bus: `ok`, `not_serving` or `unreachable`.',
        additionalProperties: { type: 'string', enum: ['ok', 'not_serving', 'unreachable'] },
      },
      (checks) => checks,
    ),
  });

/** `POST /api/call/connect`: the provider's id of the new call. */
export const CallConnected = shape<{ callId: string }>({
  call_id: field({ type: 'string', description: "The provider's call id (`wacid.…`): the call's record is `GET /api/calls/{call_id}`." }, (r) => r.callId),
});

/** `GET /api/usage` (issue 28): the plan, each quota's use now, and sends and deliveries per UTC day. */
export interface UsageInput {
  plan: string;
  limits: Array<{ name: string; quota: bigint; windowSeconds: bigint; used: bigint; remaining: bigint; resetSeconds: bigint }>;
  sends: Array<{ day: string; key: string; count: bigint }>;
  deliveries: Array<{ day: string; key: string; count: bigint }>;
  from: string;
  to: string;
}

const dayCounts = (key: string, description: string) => ({
  type: 'array',
  maxItems: 10_000,
  description,
  items: {
    type: 'object',
    required: ['day', key, 'count'],
    additionalProperties: false,
    properties: { day: { type: 'string', format: 'date' }, [key]: { type: 'string' }, count: { type: 'integer', minimum: 0 } },
  },
});

export const Usage = shape<UsageInput>({
  plan: field({ type: 'string', description: "The tenant's plan (PLANS)." }, (u) => u.plan),
  from: field({ type: 'string', format: 'date' }, (u) => u.from),
  to: field({ type: 'string', format: 'date' }, (u) => u.to),
  quotas: field(
    {
      type: 'array',
      maxItems: 20,
      description:
        'Each limit of the plan and its use now: `requests` and `sends` (per second), `sends_per_day`, `campaigns_per_day`, `clients` (no window: `window_seconds` 0).',
      items: {
        type: 'object',
        required: ['name', 'quota', 'window_seconds', 'used', 'remaining', 'reset_seconds'],
        additionalProperties: false,
        properties: {
          name: { type: 'string' },
          quota: { type: 'integer' },
          window_seconds: { type: 'integer' },
          used: { type: 'integer' },
          remaining: { type: 'integer' },
          reset_seconds: { type: 'integer' },
        },
      },
    },
    (u) =>
      u.limits.map((l) => ({
        name: l.name,
        quota: Number(l.quota),
        window_seconds: Number(l.windowSeconds),
        used: Number(l.used),
        remaining: Number(l.remaining),
        reset_seconds: Number(l.resetSeconds),
      })),
  ),
  sends: field(dayCounts('category', "Messages sent per UTC day by the provider's pricing category (`unknown` until a status webhook reports it)."), (u) =>
    u.sends.map((c) => ({ day: c.day, category: c.key, count: Number(c.count) })),
  ),
  deliveries: field(dayCounts('status', 'Webhook deliveries per UTC day by their status.'), (u) =>
    u.deliveries.map((c) => ({ day: c.day, status: c.key, count: Number(c.count) })),
  ),
});

/** `GET /api/stats`: messages per UTC day by direction and status, and webhook deliveries per day by outcome. */
export interface StatsInput {
  from: string;
  to: string;
  clientId: string | null;
  messages: Array<{ day: string; direction: string; status: string; count: bigint }>;
  deliveries: Array<{ day: string; key: string; count: bigint }>;
}

export const Stats = shape<StatsInput>({
  from: field({ type: 'string', format: 'date', description: 'First UTC day counted.' }, (s) => s.from),
  to: field({ type: 'string', format: 'date', description: 'Last UTC day counted (today).' }, (s) => s.to),
  client_id: field({ type: ['string', 'null'], description: 'The client counted; null: every client of the tenant.' }, (s) => s.clientId),
  messages: field(
    {
      type: 'array',
      maxItems: 10_000,
      description:
        'Messages of the log per UTC day by `direction` (`in`, `out`) and current `status` (`received` for inbound messages); days without any are left out.',
      items: {
        type: 'object',
        required: ['day', 'direction', 'status', 'count'],
        additionalProperties: false,
        properties: {
          day: { type: 'string', format: 'date' },
          direction: { type: 'string', enum: ['in', 'out'] },
          status: { type: 'string' },
          count: { type: 'integer', minimum: 0 },
        },
      },
    },
    (s) => s.messages.map((c) => ({ day: c.day, direction: c.direction, status: c.status, count: Number(c.count) })),
  ),
  deliveries: field(dayCounts('status', 'Webhook deliveries per UTC day by their status (`succeeded`, `failed`, `pending`, `skipped`).'), (s) =>
    s.deliveries.map((c) => ({ day: c.day, status: c.key, count: Number(c.count) })),
  ),
});
