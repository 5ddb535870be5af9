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

/** Raises `custom.greater_than` on `until` when it is not after `since`. */
function untilAfterSince(body: { since?: string; until?: string }, helpers: Joi.CustomHelpers) {
  if (body.since && body.until && Date.parse(body.until) <= Date.parse(body.since)) {
    return helpers.error(
      'custom.greater_than',
      { value: body.until, since: body.since },
      (helpers.state as unknown as { localize(p: string[]): unknown }).localize(['until']) as never,
    );
  }
  return body;
}

/** POST /api/clients/{id}/webhook/deliveries/replay: `since` and `until` are ISO 8601 date-times, until after since. */
export const replayBody = Joi.object({
  status: Joi.string().valid('failed', 'skipped').default('failed'),
  since: Joi.string().isoDate().required(),
  until: Joi.string().isoDate(),
})
  .custom(untilAfterSince)
  .messages({ 'custom.greater_than': 'until must be after since ({{#since}})' })
  .required();
