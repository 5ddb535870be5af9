import Joi from 'joi';

export const signInBody = Joi.object({ api_key: Joi.string().min(1).max(512).required() }).required();

export const apiKeyPath = Joi.object({
  prefix: Joi.string()
    .pattern(/^gw_[A-Za-z0-9]{8}$/)
    .required(),
});
export const revokeQuery = Joi.object({ confirm: Joi.boolean().truthy('true').falsy('false').default(false) });

/** A dashboard build file: one hashed file name (documentation: the handler refuses anything else with a 404). */
export const assetPath = Joi.object({
  file: Joi.string()
    .pattern(/^[\w.-]+$/, 'file name')
    .required(),
});
/** Any page path of the single page (empty for its start page). */
export const pagePath = Joi.object({ page: Joi.string().allow('') });
