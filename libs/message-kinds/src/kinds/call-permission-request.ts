import Joi from 'joi';
import { EXAMPLE_ENVELOPE as base, EXAMPLE_TO as to } from '../examples';
import { sendFields, text } from '../fields';
import { defineKind } from '../kind';
import { interactive } from '../provider-message';

export interface CallPermissionRequestBody {
  client_id: string;
  to: string;
  reply_to?: string;
  body?: string;
}

/**
 * Asks the user's permission to call them (provider-2026.md §7.4, interactive `call_permission_request`; body
 * optional, no header or footer). The user's answer arrives as an inbound interactive `call_permission_reply`.
 */
export const callPermissionRequestKind = defineKind({
  name: 'call_permission_request',
  summary: "Ask the user's permission to call them",
  schema: Joi.object<CallPermissionRequestBody, true>({
    ...sendFields,
    body: text(1024),
  }).required(),
  build: (b) =>
    interactive(b.to, b.reply_to, {
      type: 'call_permission_request',
      ...(b.body === undefined ? {} : { body: { text: b.body } }),
      action: { name: 'call_permission_request' },
    }),
  examples: {
    valid: [
      {
        name: 'with a reason',
        body: { to, body: 'May we call you about ON-12853?' },
        payload: {
          ...base,
          type: 'interactive',
          interactive: { type: 'call_permission_request', body: { text: 'May we call you about ON-12853?' }, action: { name: 'call_permission_request' } },
        },
      },
      {
        // another user: the provider takes one request a day per user (138009)
        name: 'without a body, quoting a message',
        body: { to: '+16505550188', reply_to: 'wamid.Q' },
        payload: {
          ...base,
          to: '+16505550188',
          context: { message_id: 'wamid.Q' },
          type: 'interactive',
          interactive: { type: 'call_permission_request', action: { name: 'call_permission_request' } },
        },
      },
    ],
    invalid: [{ name: 'a 1025-character call permission request', body: { to, body: 'x'.repeat(1025) }, loc: ['body', 'body'], type: 'too_long' }],
  },
});
