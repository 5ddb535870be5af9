import Joi from 'joi';
import { DELIVERY_STATUSES, EVENT_TYPES } from '@gateway/events';
import { uuid } from './common';

export const clientPath = Joi.object({ id: uuid.required() });
export const deliveryPath = Joi.object({ id: uuid.required(), delivery_id: uuid.required() });
export const listQuery = Joi.object({
  status: Joi.string().valid(...DELIVERY_STATUSES),
  event_type: Joi.string().valid(...EVENT_TYPES),
  limit: Joi.number().integer().min(1).max(100).default(20),
  cursor: Joi.string().max(128),
});
