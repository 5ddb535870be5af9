import Joi from 'joi';
import { httpUrl, providerId, uuid } from './common';

export const registerBody = Joi.object({
  display_name: Joi.string().trim().min(1).max(200).required(),
  external_id: Joi.string().max(255),
  webhook_url: httpUrl,
  success_redirect_url: httpUrl,
  failure_redirect_url: httpUrl,
  business_account_id: providerId,
  phone_number_id: providerId,
  access_token: Joi.string().min(1).max(4096),
  provider_business_id: providerId,
  catalog_id: providerId,
})
  // the business-account fields come together or not at all (without them: a pending signup placeholder)
  .and('business_account_id', 'phone_number_id', 'access_token')
  .required();

export const patchBody = Joi.object({
  display_name: Joi.string().trim().min(1).max(200),
  external_id: Joi.string().max(255).allow(null),
  webhook_url: httpUrl.allow(null),
}).required();

export const idPath = Joi.object({ id: uuid.required() });
export const listQuery = Joi.object({ limit: Joi.number().integer().min(1).max(100).default(20), cursor: Joi.string().max(512) });
