import Joi from 'joi';
import { EXAMPLE_ENVELOPE as base, EXAMPLE_MEDIA_ID as mediaId, EXAMPLE_TO as to } from '../examples';
import { httpsUrl, providerId, sendFields, text, webpUrl } from '../fields';
import { defineKind } from '../kind';
import { message, type Json } from '../provider-message';

const MEDIA_TYPES = ['image', 'video', 'audio', 'document', 'sticker'] as const;

export interface MediaBody {
  client_id: string;
  to?: string;
  recipient?: string;
  reply_to?: string;
  type: (typeof MEDIA_TYPES)[number];
  /** Exactly one of url and media_id. */
  url?: string;
  media_id?: string;
  /** Not for audio or sticker. */
  caption?: string;
  /** Documents only: the name (and extension) the recipient sees. */
  filename?: string;
}

/**
 * Image, video, audio, document or sticker (§1), by link or by media id (uploaded or received). Recorded as the
 * media type itself (`image`, `document`...), like the provider's message type.
 */
export const mediaKind = defineKind({
  name: 'media',
  summary: 'Send an image, video, audio, document or sticker (by URL or media id)',
  // exactly one of url and media_id, each problem reported at its own field, so a request with both or neither
  // still gets every other problem listed too. Keys checked against MediaBody, not their types (a field given by
  // Joi.when() is an alternatives schema).
  schema: Joi.object<MediaBody>({
    ...sendFields,
    type: Joi.string()
      .valid(...MEDIA_TYPES)
      .required(),
    url: Joi.when('media_id', {
      is: Joi.exist(),
      then: Joi.forbidden().messages({ 'any.unknown': '{{#label}} is not allowed together with media_id: give exactly one of them' }),
      otherwise: Joi.when('type', { is: 'sticker', then: webpUrl, otherwise: httpsUrl })
        .required()
        .messages({ 'any.required': '{{#label}} or media_id is required' }),
    }),
    media_id: providerId,
    caption: Joi.when('type', {
      is: Joi.valid('audio', 'sticker'),
      then: Joi.forbidden().messages({ 'any.unknown': '{{#label}} is not allowed for audio or sticker messages' }),
      otherwise: text(1024),
    }),
    filename: Joi.when('type', {
      is: 'document',
      then: text(240),
      otherwise: Joi.forbidden().messages({ 'any.unknown': '{{#label}} is only allowed for documents' }),
    }),
  }).required(),
  recordKind: (b) => b.type,
  build: (b) => {
    // caption and filename only where the provider takes them
    const media: Json = b.media_id ? { id: b.media_id } : { link: b.url };
    if (b.caption !== undefined && b.type !== 'audio' && b.type !== 'sticker') media.caption = b.caption;
    if (b.filename !== undefined && b.type === 'document') media.filename = b.filename;
    return message(b, b.reply_to, b.type, media);
  },
  examples: {
    valid: [
      {
        name: 'image by url with a caption',
        body: { to, type: 'image', url: 'https://cdn.shop.test/p.jpg', caption: 'New in' },
        payload: { ...base, type: 'image', image: { link: 'https://cdn.shop.test/p.jpg', caption: 'New in' } },
        recordKind: 'image',
      },
      {
        name: 'image by id',
        body: { to, type: 'image', media_id: mediaId },
        payload: { ...base, type: 'image', image: { id: mediaId } },
        recordKind: 'image',
      },
      {
        name: 'video by id with a caption',
        body: { to, type: 'video', media_id: mediaId, caption: 'c' },
        payload: { ...base, type: 'video', video: { id: mediaId, caption: 'c' } },
        recordKind: 'video',
      },
      {
        name: 'video by url, quoting a message',
        body: { to, type: 'video', url: 'https://cdn.shop.test/v.mp4', reply_to: 'wamid.quoted' },
        payload: { ...base, context: { message_id: 'wamid.quoted' }, type: 'video', video: { link: 'https://cdn.shop.test/v.mp4' } },
        recordKind: 'video',
      },
      {
        name: 'audio by url',
        body: { to, type: 'audio', url: 'https://cdn.shop.test/a.ogg' },
        payload: { ...base, type: 'audio', audio: { link: 'https://cdn.shop.test/a.ogg' } },
        recordKind: 'audio',
      },
      {
        name: 'document by url with filename and caption',
        body: { to, type: 'document', url: 'https://cdn.shop.test/inv/42', filename: 'invoice-42.pdf', caption: 'Your invoice' },
        payload: { ...base, type: 'document', document: { link: 'https://cdn.shop.test/inv/42', caption: 'Your invoice', filename: 'invoice-42.pdf' } },
        recordKind: 'document',
      },
      {
        name: 'document by id with filename and caption',
        body: { to, type: 'document', media_id: mediaId, filename: 'invoice.pdf', caption: 'c' },
        payload: { ...base, type: 'document', document: { id: mediaId, caption: 'c', filename: 'invoice.pdf' } },
        recordKind: 'document',
      },
      {
        name: 'sticker by url',
        body: { to, type: 'sticker', url: 'https://cdn.shop.test/s.webp' },
        payload: { ...base, type: 'sticker', sticker: { link: 'https://cdn.shop.test/s.webp' } },
        recordKind: 'sticker',
      },
      {
        name: 'sticker by id',
        body: { to, type: 'sticker', media_id: mediaId },
        payload: { ...base, type: 'sticker', sticker: { id: mediaId } },
        recordKind: 'sticker',
      },
    ],
    invalid: [
      {
        name: 'a caption on audio',
        body: { to, type: 'audio', url: 'https://cdn.test/a.ogg', caption: 'hi' },
        loc: ['body', 'caption'],
        type: 'extra_forbidden',
      },
      { name: 'a caption on a sticker', body: { to, type: 'sticker', media_id: '123', caption: 'hi' }, loc: ['body', 'caption'], type: 'extra_forbidden' },
      {
        name: 'both url and media_id',
        body: { to, type: 'image', url: 'https://cdn.test/a.png', media_id: '123' },
        loc: ['body', 'url'],
        type: 'extra_forbidden',
      },
      { name: 'neither url nor media_id', body: { to, type: 'image' }, loc: ['body', 'url'], type: 'missing' },
      { name: 'an http media url', body: { to, type: 'image', url: 'http://cdn.test/a.png' }, loc: ['body', 'url'], type: 'url_scheme' },
      { name: 'a filename on an image', body: { to, type: 'image', media_id: '123', filename: 'a.png' }, loc: ['body', 'filename'], type: 'extra_forbidden' },
      {
        name: 'a 1025-character caption',
        body: { to, type: 'document', media_id: '123', caption: 'x'.repeat(1025) },
        loc: ['body', 'caption'],
        type: 'too_long',
      },
      { name: 'a sticker url that is not WebP', body: { to, type: 'sticker', url: 'https://cdn.test/s.png' }, loc: ['body', 'url'], type: 'not_webp' },
      { name: 'an unknown media type', body: { to, type: 'gif', media_id: '123' }, loc: ['body', 'type'], type: 'enum' },
      { name: 'a media_id with spaces', body: { to, type: 'image', media_id: '1 2' }, loc: ['body', 'media_id'], type: 'string_pattern_mismatch' },
    ],
  },
});
