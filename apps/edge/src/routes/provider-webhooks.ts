import { HEADER_BODY_SHA256, SUBJECT_PROVIDER_INBOUND } from '@gateway/bus';
import { constantTimeEqual, sha256Hex, verifySignatureHeader } from '@gateway/crypto';
import { AppError } from '@gateway/errors';
import { readRaw } from '../middleware/body';
import type { RegisterRoutes } from './context';

export const PROVIDER_WEBHOOK_PATH = '/webhooks/provider';

/**
 * The provider's webhooks (decisions.md, "Inbound provider webhooks"). POST bodies are checked against
 * X-Hub-Signature-256 on the raw bytes before anything parses them, written to the PROVIDER_INBOUND stream
 * (Nats-Msg-Id = sha256 of the body, so the provider's redeliveries are dropped by JetStream) and answered
 * at once; routing happens in messaging, asynchronously.
 */
export const registerProviderWebhookRoutes: RegisterRoutes = (router, { config, bus, logger }) => {
  router.get(PROVIDER_WEBHOOK_PATH, (ctx) => {
    const mode = ctx.query['hub.mode'];
    const token = ctx.query['hub.verify_token'];
    const challenge = ctx.query['hub.challenge'];
    if (mode !== 'subscribe' || typeof token !== 'string' || typeof challenge !== 'string' || !constantTimeEqual(token, config.providerVerifyToken)) {
      ctx.status = 403;
      ctx.body = { detail: 'Verification failed', code: 'webhook_verification_failed' };
      return;
    }
    ctx.type = 'text/plain';
    ctx.body = challenge;
  });

  router.post(PROVIDER_WEBHOOK_PATH, async (ctx) => {
    const raw = await readRaw(ctx, config.webhookBodyLimitBytes);
    if (!verifySignatureHeader(config.providerAppSecret, raw, ctx.get('x-hub-signature-256') || undefined)) {
      logger.warn({ bytes: raw.length }, 'inbound provider webhook with a missing or wrong signature refused');
      throw new AppError('unauthenticated', 'invalid_signature', 'X-Hub-Signature-256 is missing or does not match the body');
    }
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch (e) {
      throw AppError.validation([{ loc: ['body'], msg: `Invalid JSON: ${(e as Error).message}`, type: 'json_invalid', input: null, ctx: { error: (e as Error).message } }]);
    }
    if (!body || typeof body !== 'object' || !Array.isArray((body as { entry?: unknown }).entry)) {
      throw AppError.validation([{ loc: ['body', 'entry'], msg: 'A provider webhook body has an entry array', type: 'missing', input: null, ctx: {} }]);
    }
    if (!bus?.isConnected()) throw new AppError('unavailable', 'bus_unavailable', 'The event bus is unavailable; the provider will retry');
    const digest = sha256Hex(raw);
    try {
      const ack = await bus.publish(SUBJECT_PROVIDER_INBOUND, raw, { msgId: digest, headers: { [HEADER_BODY_SHA256]: digest } });
      logger.info({ seq: ack.seq, duplicate: ack.duplicate, bytes: raw.length }, 'inbound provider webhook stored');
    } catch (e) {
      logger.error({ err: e }, 'inbound provider webhook could not be stored');
      throw new AppError('unavailable', 'bus_unavailable', 'The event bus is unavailable; the provider will retry');
    }
    ctx.status = 200;
    ctx.type = 'application/json';
    ctx.body = null;
  });
};
