import Joi from 'joi';

/** GET /docs/{file}: the reference page's two scripts. */
export const docsFile = Joi.object({ file: Joi.string().valid('scalar.js', 'init.js').required() });
