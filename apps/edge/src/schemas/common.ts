import Joi from 'joi';

/** Absolute http(s) URL, as webhook and redirect URLs must be. */
export const httpUrl = Joi.string().max(2048).uri({ scheme: ['http', 'https'] });
/** Absolute https URL: where a browser is sent outside development mode. */
export const httpsUrl = Joi.string().max(2048).uri({ scheme: ['https'] });
export const uuid = Joi.string().guid({ version: ['uuidv4', 'uuidv5', 'uuidv7', 'uuidv1'] });
export const clientId = uuid.required();
/** Recipient: digits with an optional leading +, 7–15 digits. */
export const phone = Joi.string().pattern(/^\+?\d{7,15}$/, 'phone number');
export const providerId = Joi.string().pattern(/^[A-Za-z0-9_.:-]{1,128}$/, 'identifier');
