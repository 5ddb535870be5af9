import Joi from 'joi';

/** GET /webhooks/provider: the provider's subscription handshake (answered with `hub.challenge`). */
export const verificationQuery = Joi.object({
  'hub.mode': Joi.string().valid('subscribe').required(),
  'hub.verify_token': Joi.string().required().description('PROVIDER_VERIFY_TOKEN'),
  'hub.challenge': Joi.string().required().description('Echoed as the answer'),
})
  .unknown(true)
  .max(20);

/** POST /webhooks/provider: signed by the provider with the app secret (checked on the raw bytes). */
export const signatureHeaders = Joi.object({
  'x-hub-signature-256': Joi.string()
    .pattern(/^sha256=[0-9a-fA-F]{64}$/)
    .required()
    .description('`sha256=<hex>`: HMAC-SHA256 of the raw body with PROVIDER_APP_SECRET'),
}).unknown(true);
