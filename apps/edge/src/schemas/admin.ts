import Joi from 'joi';
import { httpUrl, uuid } from './common';

export const createTenant = Joi.object({
  name: Joi.string().trim().min(1).max(200).required(),
  email: Joi.string().email({ tlds: false }).max(320).required(),
  plan: Joi.string().trim().min(1).max(64),
  webhook_url: httpUrl,
  billing_customer_id: Joi.string().max(255),
  billing_subscription_id: Joi.string().max(255),
}).required();

export const tenantPath = Joi.object({ id: uuid.required() });
export const keyPath = Joi.object({
  id: uuid.required(),
  prefix: Joi.string()
    .pattern(/^gw_[A-Za-z0-9]{8}$/)
    .required(),
});
