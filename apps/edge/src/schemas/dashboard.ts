import Joi from 'joi';
import { SCOPE_NAMES } from '../scopes';
import { uuid } from './common';

export const signInBody = Joi.object({ api_key: Joi.string().min(1).max(512).required() }).required();

export const apiKeyPath = Joi.object({
  prefix: Joi.string()
    .pattern(/^gw_[A-Za-z0-9]{8}$/)
    .required(),
});
/** POST /api/api-keys: a scoped key (docs/business.md); an empty body makes a full-access key. */
export const createKeyBody = Joi.object({
  scopes: Joi.array()
    .items(Joi.string().valid(...SCOPE_NAMES))
    .min(1)
    .max(SCOPE_NAMES.length)
    .unique()
    .description('What the key may do (docs/business.md lists what each route needs); absent: everything.'),
  client_ids: Joi.array().items(uuid).min(1).max(100).unique().description('The only clients the key may reach; absent: every client.'),
  expires_at: Joi.string().isoDate().max(40).description('After this the key is refused (401 `api_key_expired`); in the future.'),
}).default({});

export const revokeQuery = Joi.object({ confirm: Joi.boolean().truthy('true').falsy('false').default(false) });

/** A dashboard build file: one hashed file name (documentation: the handler refuses anything else with a 404). */
export const assetPath = Joi.object({
  file: Joi.string()
    .pattern(/^[\w.-]+$/, 'file name')
    .required(),
});
/** Any page path of the single page (empty for its start page). */
export const pagePath = Joi.object({ page: Joi.string().allow('') });
