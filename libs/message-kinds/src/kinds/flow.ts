import { randomUUID } from 'node:crypto';
import Joi from 'joi';
import { EXAMPLE_ENVELOPE as base, EXAMPLE_FLOWS, EXAMPLE_TO as to } from '../examples';
import { footer, mediaHeader, sendFields, text, trimmed } from '../fields';
import { defineKind } from '../kind';
import { footerOf, headerOf, interactive, type HeaderInput, type Json } from '../provider-message';

export interface FlowBody {
  client_id: string;
  to?: string;
  recipient?: string;
  reply_to?: string;
  body: string;
  button_text: string;
  flow_id: string;
  /** Generated (`ft_<uuid>`) when absent; `flow_completion` events carry it. */
  flow_token?: string;
  /** Defaults to `navigate`. */
  flow_action: 'navigate' | 'data_exchange';
  /** navigate only: the first screen and its data. */
  flow_action_payload?: { screen: string; data?: Json };
  /** Defaults to `published`. */
  mode: 'published' | 'draft';
  header?: HeaderInput;
  footer?: string;
}

const valid = { to, body: 'Go', button_text: 'Open', flow_id: EXAMPLE_FLOWS.published };

/** A flow message (§1.3, interactive `flow`): the flow token comes back in `X-Flow-Token`. */
export const flowKind = defineKind({
  name: 'flow',
  summary: 'Send a flow (answers the flow token in X-Flow-Token)',
  // keys checked against FlowBody; not their types: a field given by Joi.when() is an alternatives schema
  schema: Joi.object<FlowBody>({
    ...sendFields,
    body: text(1024).required(),
    button_text: trimmed(20).required(),
    flow_id: trimmed(128).required(),
    flow_token: text(1024),
    flow_action: Joi.string().valid('navigate', 'data_exchange').default('navigate'),
    flow_action_payload: Joi.when('flow_action', {
      is: 'data_exchange',
      then: Joi.forbidden(),
      // the screen's data: at most 100 top-level fields (and within the edge's body size and depth limits)
      otherwise: Joi.object({ screen: trimmed(128).required(), data: Joi.object().min(1).max(100).unknown(true) }),
    }),
    mode: Joi.string().valid('published', 'draft').default('published'),
    header: mediaHeader,
    footer,
  }).required(),
  // a generated token is chosen once, before the send runs: a replay answers with the stored one
  prepare: (b) => (b.flow_token ? b : { ...b, flow_token: `ft_${randomUUID()}` }),
  flow: (b) => ({ flowId: b.flow_id }),
  answerHeaders: [
    {
      // the token comes back in flow_completion events; a generated one is only known from here
      name: 'X-Flow-Token',
      description: 'The flow token (yours, or a generated one): `flow_completion` events carry it.',
      value: (b) => b.flow_token ?? '',
    },
  ],
  build: (b) => {
    const navigate = b.flow_action !== 'data_exchange';
    const payload =
      navigate && b.flow_action_payload
        ? { screen: b.flow_action_payload.screen, ...(b.flow_action_payload.data ? { data: b.flow_action_payload.data } : {}) }
        : undefined;
    return interactive(b, b.reply_to, {
      type: 'flow',
      ...headerOf(b.header),
      body: { text: b.body },
      ...footerOf(b.footer),
      action: {
        name: 'flow',
        parameters: {
          flow_message_version: '3',
          flow_token: b.flow_token,
          flow_id: b.flow_id,
          flow_cta: b.button_text,
          mode: b.mode,
          flow_action: navigate ? 'navigate' : 'data_exchange',
          ...(payload ? { flow_action_payload: payload } : {}),
        },
      },
    });
  },
  examples: {
    valid: [
      {
        name: 'a token and a navigate payload',
        body: {
          to,
          body: 'Takes 1 minute',
          button_text: 'Book now',
          flow_id: EXAMPLE_FLOWS.published,
          flow_token: 'tok-1',
          flow_action_payload: { screen: 'BOOKING', data: { date: '2025-01-15' } },
        },
        payload: {
          ...base,
          type: 'interactive',
          interactive: {
            type: 'flow',
            body: { text: 'Takes 1 minute' },
            action: {
              name: 'flow',
              parameters: {
                flow_message_version: '3',
                flow_token: 'tok-1',
                flow_id: EXAMPLE_FLOWS.published,
                flow_cta: 'Book now',
                mode: 'published',
                flow_action: 'navigate',
                flow_action_payload: { screen: 'BOOKING', data: { date: '2025-01-15' } },
              },
            },
          },
        },
      },
      {
        name: 'data_exchange, a draft, an image header and footer',
        body: {
          to,
          body: 'Book',
          button_text: 'Book now',
          flow_id: EXAMPLE_FLOWS.draft,
          flow_token: 'tok',
          flow_action: 'data_exchange',
          mode: 'draft',
          header: { type: 'image', url: 'https://cdn.shop.test/f.jpg' },
          footer: 'f',
        },
        payload: {
          ...base,
          type: 'interactive',
          interactive: {
            type: 'flow',
            header: { type: 'image', image: { link: 'https://cdn.shop.test/f.jpg' } },
            body: { text: 'Book' },
            footer: { text: 'f' },
            action: {
              name: 'flow',
              parameters: {
                flow_message_version: '3',
                flow_token: 'tok',
                flow_id: EXAMPLE_FLOWS.draft,
                flow_cta: 'Book now',
                mode: 'draft',
                flow_action: 'data_exchange',
              },
            },
          },
        },
      },
      {
        name: 'a screen without data',
        body: { to, body: 'Book', button_text: 'Book now', flow_id: EXAMPLE_FLOWS.published, flow_token: 'tok', flow_action_payload: { screen: 'S1' } },
        payload: {
          ...base,
          type: 'interactive',
          interactive: {
            type: 'flow',
            body: { text: 'Book' },
            action: {
              name: 'flow',
              parameters: {
                flow_message_version: '3',
                flow_token: 'tok',
                flow_id: EXAMPLE_FLOWS.published,
                flow_cta: 'Book now',
                mode: 'published',
                flow_action: 'navigate',
                flow_action_payload: { screen: 'S1' },
              },
            },
          },
        },
      },
    ],
    invalid: [
      {
        name: 'a flow_action_payload with data_exchange',
        body: { ...valid, flow_action: 'data_exchange', flow_action_payload: { screen: 'A' } },
        loc: ['body', 'flow_action_payload'],
        type: 'extra_forbidden',
      },
      { name: 'a 21-character flow button', body: { ...valid, button_text: 'x'.repeat(21) }, loc: ['body', 'button_text'], type: 'too_long' },
      { name: 'an unknown flow mode', body: { ...valid, mode: 'live' }, loc: ['body', 'mode'], type: 'enum' },
      {
        name: 'empty screen data',
        body: { ...valid, flow_action_payload: { screen: 'A', data: {} } },
        loc: ['body', 'flow_action_payload', 'data'],
        type: 'too_few_properties',
      },
      {
        name: 'screen data with 101 fields',
        body: { ...valid, flow_action_payload: { screen: 'A', data: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`f${i}`, i])) } },
        loc: ['body', 'flow_action_payload', 'data'],
        type: 'too_many_properties',
      },
    ],
  },
});
