import Joi from 'joi';
import { EXAMPLE_ENVELOPE as base, EXAMPLE_TO as to } from '../examples';
import { sendFields, text } from '../fields';
import { defineKind } from '../kind';
import { interactive } from '../provider-message';

export interface LocationRequestBody {
  client_id: string;
  to?: string;
  recipient?: string;
  reply_to?: string;
  body: string;
}

/** Asks the user to share a location (supplement §1, `location_request_message`); the answer arrives as an inbound `location`. */
export const locationRequestKind = defineKind({
  name: 'location_request',
  summary: 'Ask the user for their location',
  schema: Joi.object<LocationRequestBody, true>({
    ...sendFields,
    body: text(1024).required(),
  }).required(),
  build: (b) => interactive(b, b.reply_to, { type: 'location_request_message', body: { text: b.body }, action: { name: 'send_location' } }),
  examples: {
    valid: [
      {
        name: 'a question',
        body: { to, body: 'Where should we deliver?' },
        payload: {
          ...base,
          type: 'interactive',
          interactive: { type: 'location_request_message', body: { text: 'Where should we deliver?' }, action: { name: 'send_location' } },
        },
      },
      {
        name: 'quoting a message',
        body: { to, body: 'Where?', reply_to: 'wamid.Q' },
        payload: {
          ...base,
          context: { message_id: 'wamid.Q' },
          type: 'interactive',
          interactive: { type: 'location_request_message', body: { text: 'Where?' }, action: { name: 'send_location' } },
        },
      },
    ],
    invalid: [
      { name: 'a 1025-character location request', body: { to, body: 'x'.repeat(1025) }, loc: ['body', 'body'], type: 'too_long' },
      { name: 'a location request without body', body: { to }, loc: ['body', 'body'], type: 'missing' },
    ],
  },
  // provider-supplement.md §1: the file has no location_request_message branch; only the missing enum value and
  // ActionObject branch are excused, body and the envelope are checked
  providerFileGaps: [
    {
      instancePath: /^\/interactive\/type$/,
      keyword: 'enum',
      schemaPath: /^#\/properties\/type\/enum$/,
      why: "supplement §1: interactive.type location_request_message exists at the provider; the file's enum predates it",
    },
    ...(['required', 'enum', 'oneOf'] as const).map((keyword) => ({
      instancePath: /^\/interactive\/action(\/.*)?$/,
      keyword,
      schemaPath: /^#\/oneOf(\/|$)/,
      why: `supplement §1: action {name: send_location} has no ActionObject branch in the file (reported as ${keyword})`,
    })),
  ],
});
