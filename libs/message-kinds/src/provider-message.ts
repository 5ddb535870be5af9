/*
 * The provider's message envelope, exactly as its reference documents it (provider-cloud-api.md §1): the parts
 * every kind's builder shares. The bodies of mark read, block users and call actions are the provider client's
 * (@gateway/provider-client).
 */

/** A JSON object as the provider receives it. */
export type Json = { [key: string]: unknown };

/** A message send's body: `POST /{phone-number-id}/messages`. */
export type ProviderMessage = Json;

/** Who a send goes to: a phone number, a BSUID (`recipient`, provider-2026.md §2.2), or both (the provider takes `to`). */
export interface Addressee {
  to?: string;
  recipient?: string;
}

/** Fields of every message send (§1.1); `context.message_id` quotes an earlier message. */
export function message(a: Addressee, replyTo: string | undefined, type: string, body: Json | Json[]): ProviderMessage {
  return {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    ...(a.to === undefined ? {} : { to: a.to }),
    ...(a.recipient === undefined ? {} : { recipient: a.recipient }),
    ...(replyTo ? { context: { message_id: replyTo } } : {}),
    type,
    [type]: body,
  };
}

/** An interactive message (§1.3): `body` is the `interactive` object. */
export const interactive = (a: Addressee, replyTo: string | undefined, body: Json) => message(a, replyTo, 'interactive', body);

export const footerOf = (footer: string | undefined): Json => (footer === undefined ? {} : { footer: { text: footer } });

/** A header as the tenant gives it: text, or a media link (and a filename for documents). */
export interface HeaderInput {
  type: 'text' | 'image' | 'video' | 'document';
  text?: string;
  url?: string;
  filename?: string;
}

/** A text header, or a media header by link (§1.3). */
export function headerOf(h: HeaderInput | undefined): Json {
  if (!h) return {};
  if (h.type === 'text') return { header: { type: 'text', text: h.text ?? '' } };
  const media: Json = { link: h.url };
  if (h.type === 'document' && h.filename) media.filename = h.filename;
  return { header: { type: h.type, [h.type]: media } };
}

/** The fields of `o` that are set, in the order given: unset optional fields become absent JSON keys. */
export function defined(o: Json): Json {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}
