import Joi from 'joi';
import { EXAMPLE_ENVELOPE as base, EXAMPLE_TO as to } from '../examples';
import { sendFields, text } from '../fields';
import { defineKind } from '../kind';
import { message } from '../provider-message';

export interface LocationBody {
  client_id: string;
  to?: string;
  recipient?: string;
  reply_to?: string;
  latitude: number;
  longitude: number;
  name?: string;
  address?: string;
}

/** A location (§1.7). */
export const locationKind = defineKind({
  name: 'location',
  summary: 'Send a location',
  schema: Joi.object<LocationBody, true>({
    ...sendFields,
    latitude: Joi.number().min(-90).max(90).required(),
    longitude: Joi.number().min(-180).max(180).required(),
    name: text(1000),
    address: text(1000),
  }).required(),
  build: (b) =>
    message(b, b.reply_to, 'location', {
      // The provider's docs and OpenAPI description give coordinates as decimal strings; String() keeps every digit.
      latitude: String(b.latitude),
      longitude: String(b.longitude),
      ...(b.name === undefined ? {} : { name: b.name }),
      ...(b.address === undefined ? {} : { address: b.address }),
    }),
  examples: {
    valid: [
      {
        name: 'with name and address',
        body: { to, latitude: 37.44216, longitude: -122.16153, name: 'Philz Coffee', address: '101 Forest Ave' },
        payload: { ...base, type: 'location', location: { latitude: '37.44216', longitude: '-122.16153', name: 'Philz Coffee', address: '101 Forest Ave' } },
      },
      {
        name: 'coordinates only, quoting a message',
        body: { to, latitude: 1.5, longitude: 2.5, reply_to: 'wamid.Q' },
        payload: { ...base, context: { message_id: 'wamid.Q' }, type: 'location', location: { latitude: '1.5', longitude: '2.5' } },
      },
    ],
    invalid: [
      { name: 'latitude 91', body: { to, latitude: 91, longitude: 0 }, loc: ['body', 'latitude'], type: 'less_than_equal' },
      { name: 'longitude -181', body: { to, latitude: 0, longitude: -181 }, loc: ['body', 'longitude'], type: 'greater_than_equal' },
      { name: 'latitude as a string', body: { to, latitude: '45.1', longitude: 0 }, loc: ['body', 'latitude'], type: 'number_type' },
    ],
  },
});
