import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { components } from './generated/openapi';

type S = components['schemas'];
/** Any event the gateway delivers (the document's `webhooks`): narrow on `type`. */
export type GatewayEvent = S['ChatEvent'] | S['SignupCompletedEvent'] | S['TemplateStatusEvent'] | S['FlowCompletionEvent'] | S['TestEvent'];

export { WebhookVerificationError };

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function headerRecord(headers: HeaderSource): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof (headers as Headers).forEach === 'function' && typeof (headers as Headers).get === 'function') {
    (headers as Headers).forEach((v, k) => (out[k.toLowerCase()] = v));
    return out;
  }
  for (const [k, v] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

/**
 * Checks a webhook the gateway sent, on the raw body bytes (before any JSON parsing), and answers the event.
 * `secret` is the tenant's `webhook_secret` (`whsec_…`); `headers` the request's headers (a fetch `Headers`, or
 * Node's `req.headers`). The Standard Webhooks signature (`webhook-id`, `webhook-timestamp`, `webhook-signature`)
 * is checked in constant time, with a timestamp at most 5 minutes away (replays refused); during a secret
 * rotation either secret's signature is accepted. Throws WebhookVerificationError when anything is wrong.
 * Then check that the event's `client_id` is one of yours, and dedupe on `webhook-id` (the same on retries).
 */
export function verifyWebhook(secret: string, headers: HeaderSource, rawBody: string | Buffer | Uint8Array): GatewayEvent {
  const body = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');
  return new Webhook(secret).verify(body, headerRecord(headers)) as GatewayEvent;
}
