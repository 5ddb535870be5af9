import Joi from 'joi';
import { EXAMPLE_ENVELOPE as base, EXAMPLE_TO as to } from '../examples';
import { opaqueId, sendFields } from '../fields';
import { defineKind } from '../kind';
import { message } from '../provider-message';

export interface ReactionBody {
  client_id: string;
  to?: string;
  recipient?: string;
  reply_to?: string;
  message_id: string;
  /** `""` removes the reaction. */
  emoji: string;
}

/** A reaction to a message (§1.8). */
export const reactionKind = defineKind({
  name: 'reaction',
  summary: 'React to a message ("" removes the reaction)',
  schema: Joi.object<ReactionBody, true>({
    ...sendFields,
    message_id: opaqueId.required(),
    // "" removes the reaction
    emoji: Joi.string().max(32).allow('').required(),
  }).required(),
  build: (b) => message(b, b.reply_to, 'reaction', { message_id: b.message_id, emoji: b.emoji }),
  examples: {
    valid: [
      {
        name: 'an emoji',
        body: { to, message_id: 'wamid.IN', emoji: '👍' },
        payload: { ...base, type: 'reaction', reaction: { message_id: 'wamid.IN', emoji: '👍' } },
      },
      {
        name: 'removal',
        body: { to, message_id: 'wamid.IN', emoji: '' },
        payload: { ...base, type: 'reaction', reaction: { message_id: 'wamid.IN', emoji: '' } },
      },
    ],
    invalid: [
      { name: 'a reaction without message_id', body: { to, emoji: '👍' }, loc: ['body', 'message_id'], type: 'missing' },
      { name: 'a 33-character emoji', body: { to, message_id: 'wamid.IN', emoji: 'x'.repeat(33) }, loc: ['body', 'emoji'], type: 'too_long' },
    ],
  },
});
