import { createHmac, randomBytes } from 'node:crypto';

/**
 * Webhook secrets in the Standard Webhooks form: "whsec_" + base64 of 32 random bytes. The whole string keys
 * X-Signature-256 (the spec's header); its decoded bytes key webhook-signature, so the Standard Webhooks
 * libraries take the secret as it is.
 */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The HMAC key of a secret for webhook-signature: the base64 part after "whsec_". Node's base64 decoder also
 * reads the base64url secrets issued before this form (their receivers convert them, see docs/webhooks.md).
 */
function signingKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
}

/**
 * The webhook-signature header: "v1,<base64 HMAC-SHA256 of `id.timestamp.body`>" per live secret, separated
 * by spaces (a receiver accepts the message when any entry matches: that is what makes rotation seamless).
 */
export function standardWebhookSignature(secrets: string[], id: string, timestampSec: number, body: string): string {
  return secrets.map((s) => `v1,${createHmac('sha256', signingKey(s)).update(`${id}.${timestampSec}.`).update(body).digest('base64')}`).join(' ');
}
