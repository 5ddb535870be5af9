import Joi from 'joi';
import { MEDIA_MIME_TYPES } from '../media/types';
import { clientId } from './common';

/*
 * The media routes (`/api/media`): the upload's form fields (the file itself is checked by its bytes,
 * media/types.ts), and the media id and client of a download or delete.
 */

/** The upload's fields, before its `file` part: the client, and optionally the provider MIME type to declare. */
export const mediaFields = Joi.object({
  // the form's fields are read before the file: one sent after it is as good as absent
  client_id: clientId.messages({ 'any.required': 'client_id is required, before the file part' }),
  type: Joi.string().valid(...MEDIA_MIME_TYPES),
});

/** A provider media id: digits in practice; letters, `_` and `-` allowed, never a path. */
export const mediaPath = Joi.object({
  media_id: Joi.string()
    .pattern(/^[A-Za-z0-9_-]{1,128}$/, 'media id')
    .required(),
});

export const mediaQuery = Joi.object({ client_id: clientId });
