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

/** GET /admin/tenants */
export const tenantListQuery = Joi.object({
  query: Joi.string().trim().min(1).max(200).description('Part of the name or email (case-insensitive).'),
  limit: Joi.number().integer().min(1).max(100).default(20),
  cursor: Joi.string().max(512),
});

/** PATCH /admin/tenants/{id}: what an operator may change (plan: one of PLANS). */
export const patchTenant = Joi.object({
  name: Joi.string().trim().min(1).max(200),
  email: Joi.string().email({ tlds: false }).max(320),
  plan: Joi.string().trim().min(1).max(64),
  billing_customer_id: Joi.string().max(255),
  billing_subscription_id: Joi.string().max(255),
})
  .min(1)
  .required();

/** GET /api/audit-log and /admin/audit-log */
export const auditQuery = Joi.object({
  action: Joi.string()
    .pattern(/^[A-Za-z][\w ./{}-]*$/)
    .max(200)
    .description('Only this operation (its operationId).'),
  actor: Joi.string().max(64).description("Only this actor: an API key's prefix, or `admin_token`."),
  limit: Joi.number().integer().min(1).max(100).default(20),
  cursor: Joi.string().max(512),
});

/** GET /api/usage: UTC days, inclusive (default: the last 30 days). */
export const usageQuery = Joi.object({
  from: Joi.string()
    .max(10)
    .pattern(/^\d{4}-\d{2}-\d{2}$/, 'YYYY-MM-DD'),
  to: Joi.string()
    .max(10)
    .pattern(/^\d{4}-\d{2}-\d{2}$/, 'YYYY-MM-DD'),
});
