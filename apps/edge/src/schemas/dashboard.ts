import Joi from 'joi';

export const signInBody = Joi.object({ api_key: Joi.string().min(1).max(512).required() }).required();

export const apiKeyPath = Joi.object({ prefix: Joi.string().pattern(/^gw_[A-Za-z0-9]{8}$/).required() });
export const revokeQuery = Joi.object({ confirm: Joi.boolean().truthy('true').falsy('false').default(false) });
