import Joi from 'joi';
import { clientId, opaqueId, phone, uuid } from '@gateway/message-kinds';

/*
 * The Calling API's request parts (provider-2026.md §7): call actions, business-initiated calls, permissions, the
 * call records and a client's calling settings. Every limit of the provider reference is checked here, so a bad
 * request is a 422 listing every problem before any service or provider call.
 */

/** An SDP offer or answer (its ICE credentials are never echoed: `sdp` is a secret field of the logger and the 422). */
const sdp = Joi.string()
  .max(256 * 1024)
  .required();
const callId = opaqueId.required();
/** Echoed by the provider's terminate webhook. */
const bizOpaque = Joi.string().max(512);
/** A business-scoped user id (provider-2026.md §2): the user without their phone number. */
const recipient = Joi.string().pattern(/^[\x21-\x7e]{1,256}$/, 'business-scoped user id');

export const preAcceptCallBody = Joi.object({ client_id: clientId, call_id: callId, sdp }).required();
export const acceptCallBody = Joi.object({ client_id: clientId, call_id: callId, sdp, biz_opaque_callback_data: bizOpaque }).required();
export const callIdBody = Joi.object({ client_id: clientId, call_id: callId }).required();

export const connectCallBody = Joi.object({ client_id: clientId, to: phone, recipient, sdp, biz_opaque_callback_data: bizOpaque })
  .xor('to', 'recipient')
  .required();

export const callPermissionsQuery = Joi.object({ client_id: clientId, to: phone, recipient }).xor('to', 'recipient');

export const callPath = Joi.object({ call_id: callId });
export const callQuery = Joi.object({ client_id: clientId });
export const listCallsQuery = Joi.object({ client_id: clientId, limit: Joi.number().integer().min(1).max(100).default(20), cursor: Joi.string().max(512) });

export const clientPath = Joi.object({ id: uuid.required() });

const hhmm = Joi.string().pattern(/^([01]\d|2[0-3])[0-5]\d$/, 'time HHMM');
const DAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];

/** `call_hours` (provider-2026.md §7.1): ≤ 2 ranges a day (14 a week), ≤ 20 holidays; `enabled` is the provider's `status`. */
export const callHours = Joi.object({
  enabled: Joi.boolean().required(),
  timezone_id: Joi.string().max(64).when('enabled', { is: true, then: Joi.required() }),
  weekly_operating_hours: Joi.array()
    .items(
      Joi.object({
        day_of_week: Joi.string()
          .valid(...DAYS)
          .required(),
        open_time: hhmm.required(),
        close_time: hhmm.required(),
      }),
    )
    .max(14)
    .when('enabled', { is: true, then: Joi.array().min(1).max(14).required() }),
  holiday_schedule: Joi.array()
    .items(
      Joi.object({
        date: Joi.string()
          .pattern(/^\d{4}-\d{2}-\d{2}$/, 'date YYYY-MM-DD')
          .required(),
        start_time: hhmm.required(),
        end_time: hhmm.required(),
      }),
    )
    .max(20),
});

/** `PUT /api/clients/{id}/calling`: the settings to change (only those given). */
export const callingSettingsBody = Joi.object({
  enabled: Joi.boolean(),
  call_icon_visibility: Joi.string().valid('DEFAULT', 'DISABLE_ALL'),
  call_hours: callHours,
  callback_permission: Joi.boolean(),
})
  .min(1)
  .required();
