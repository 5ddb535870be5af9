import Joi from 'joi';
import { httpUrl } from './common';

export const webhookUrlBody = Joi.object({ webhook_url: httpUrl.required() }).required();
