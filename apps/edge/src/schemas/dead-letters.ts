import Joi from 'joi';
import { STREAMS } from '@gateway/bus';

/** Streams whose consumers dead-letter (every stream but DEAD_LETTER itself). */
const sourceStreams = Object.values(STREAMS)
  .map((s) => s.name)
  .filter((n) => n !== STREAMS.deadLetter.name);

export const deadLetterQuery = Joi.object({
  stream: Joi.string().valid(...sourceStreams),
  limit: Joi.number().integer().min(1).max(1000).default(100),
  cursor: Joi.string().max(2048),
});

export const replayBody = Joi.object({
  stream: Joi.string().valid(...sourceStreams),
  seqs: Joi.array().items(Joi.number().integer().min(1)).min(1).max(1000).unique(),
})
  .default({})
  .or('stream', 'seqs');
