import { HEADER_BODY_SHA256, SUBJECT_PROVIDER_INBOUND } from '@gateway/bus';
import { constantTimeEqual, sha256Hex, verifySignatureHeader } from '@gateway/crypto';
import { AppError } from '@gateway/errors';
import { readRaw } from '../middleware/body';
import { json, operation, ref } from '../openapi/operation';
import { signatureHeaders, verificationQuery } from '../schemas/provider-webhooks';
import type { RegisterRoutes } from './context';

export const PROVIDER_WEBHOOK_PATH = '/webhooks/provider';

/**
 * The provider's webhooks (decisions.md, "Inbound provider webhooks"). POST bodies are checked against
 * X-Hub-Signature-256 on the raw bytes before anything parses them, written to the PROVIDER_INBOUND stream
 * (Nats-Msg-Id = sha256 of the body, so the provider's redeliveries are dropped by JetStream) and answered
 * at once; routing happens in messaging, asynchronously.
 */
export const registerProviderWebhookRoutes: RegisterRoutes = (router, { config, bus, logger }) => {
  const verifyOp = operation({
    operationId: 'verifyProviderWebhook',
    summary: "The provider's subscription handshake",
    tags: ['Provider'],
    request: { query: verificationQuery },
    responses: {
      200: { description: '`hub.challenge`, as sent.', contentType: 'text/plain', schema: { type: 'string' } },
      403: json('Wrong mode or verify token.', ref('Error403')),
    },
    hidden: true,
  });
  router.get(PROVIDER_WEBHOOK_PATH, verifyOp, (ctx) => {
    const { error } = verificationQuery.validate(ctx.query);
    const token = ctx.query['hub.verify_token'];
    const challenge = ctx.query['hub.challenge'];
    if (error || typeof token !== 'string' || typeof challenge !== 'string' || !constantTimeEqual(token, config.providerVerifyToken)) {
      throw new AppError('forbidden', 'webhook_verification_failed', 'Verification failed');
    }
    ctx.type = 'text/plain';
    ctx.body = challenge;
  });

  const receiveOp = operation({
    operationId: 'receiveProviderWebhook',
    summary: "The provider's webhooks (inbound messages, statuses, template and account updates)",
    description:
      'Checked against `X-Hub-Signature-256` on the raw bytes, stored on the PROVIDER_INBOUND stream, answered at once; routed to the tenants asynchronously.',
    tags: ['Provider'],
    request: {
      headers: signatureHeaders,
      rawBody: {
        'application/json': {
          type: 'object',
          required: ['entry'],
          properties: { object: { type: 'string' }, entry: { type: 'array', items: { type: 'object' } } },
        },
      },
    },
    responses: { 200: json('Stored.', null) },
    errors: [401, 413, 503],
    hidden: true,
  });
  router.post(PROVIDER_WEBHOOK_PATH, receiveOp, async (ctx) => {
    const raw = await readRaw(ctx, config.webhookBodyLimitBytes);
    if (!verifySignatureHeader(config.providerAppSecret, raw, ctx.get('x-hub-signature-256') || undefined)) {
      logger.warn({ bytes: raw.length }, 'inbound provider webhook with a missing or wrong signature refused');
      throw new AppError('unauthenticated', 'invalid_signature', 'X-Hub-Signature-256 is missing or does not match the body');
    }
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch (e) {
      throw AppError.validation([
        { loc: ['body'], msg: `Invalid JSON: ${(e as Error).message}`, type: 'json_invalid', input: null, ctx: { error: (e as Error).message } },
      ]);
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
