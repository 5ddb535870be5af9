import type { messaging } from '@gateway/contracts';

/*
 * Message bodies, exactly as the provider reference documents them (provider-cloud-api.md §1). The bodies of
 * mark read, block users and call actions are the provider client's (@gateway/provider-client).
 */

type Json = Record<string, unknown>;

/** Fields of every message send (§1.1); `context.message_id` quotes an earlier message. */
function message(to: string, replyTo: string | undefined, type: string, body: Json | Json[]): Json {
  return {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to,
    ...(replyTo ? { context: { message_id: replyTo } } : {}),
    type,
    [type]: body,
  };
}

const interactive = (to: string, replyTo: string | undefined, body: Json) => message(to, replyTo, 'interactive', body);
const footerOf = (footer: string | undefined) => (footer === undefined ? {} : { footer: { text: footer } });

/** A text header, or a media header by link (§1.3). */
function headerOf(h: messaging.MediaHeader | undefined): Json {
  if (!h) return {};
  if (h.type === 'text') return { header: { type: 'text', text: h.text ?? '' } };
  const media: Json = { link: h.url };
  if (h.type === 'document' && h.filename) media.filename = h.filename;
  return { header: { type: h.type, [h.type]: media } };
}

export function buttonsPayload(r: messaging.SendButtonsRequest): Json {
  return interactive(r.to, r.replyTo, {
    type: 'button',
    ...headerOf(r.header),
    body: { text: r.bodyText },
    ...footerOf(r.footer),
    action: { buttons: r.buttons.map((b) => ({ type: 'reply', reply: { id: b.id, title: b.title } })) },
  });
}

export function listPayload(r: messaging.SendListRequest): Json {
  return interactive(r.to, r.replyTo, {
    type: 'list',
    ...(r.headerText === undefined ? {} : { header: { type: 'text', text: r.headerText } }),
    body: { text: r.body },
    ...footerOf(r.footer),
    action: {
      button: r.buttonText,
      sections: r.sections.map((s) => ({
        ...(s.title === undefined ? {} : { title: s.title }),
        rows: s.rows.map((row) => ({ id: row.id, title: row.title, ...(row.description === undefined ? {} : { description: row.description }) })),
      })),
    },
  });
}

export function productsPayload(r: messaging.SendProductsRequest, catalogId: string): Json {
  return interactive(r.to, r.replyTo, {
    type: 'product_list',
    header: { type: 'text', text: r.title },
    body: { text: r.body },
    ...footerOf(r.footer),
    action: {
      catalog_id: catalogId,
      sections: r.sections.map((s) => ({
        ...(s.title === undefined ? {} : { title: s.title }),
        product_items: s.skus.map((sku) => ({ product_retailer_id: sku })),
      })),
    },
  });
}

export function flowPayload(r: messaging.SendFlowRequest, flowToken: string): Json {
  const navigate = r.flowAction !== 'data_exchange';
  const payload: Json | undefined =
    navigate && r.flowActionScreen
      ? { screen: r.flowActionScreen, ...(r.flowActionDataJson ? { data: JSON.parse(r.flowActionDataJson) as unknown } : {}) }
      : undefined;
  return interactive(r.to, r.replyTo, {
    type: 'flow',
    ...headerOf(r.header),
    body: { text: r.body },
    ...footerOf(r.footer),
    action: {
      name: 'flow',
      parameters: {
        flow_message_version: '3',
        flow_token: flowToken,
        flow_id: r.flowId,
        flow_cta: r.buttonText,
        mode: r.mode || 'published',
        flow_action: navigate ? 'navigate' : 'data_exchange',
        ...(payload ? { flow_action_payload: payload } : {}),
      },
    },
  });
}

export function reactionPayload(r: messaging.SendReactionRequest): Json {
  return message(r.to, r.replyTo, 'reaction', { message_id: r.messageId, emoji: r.emoji });
}

export function templatePayload(r: messaging.SendTemplateRequest): Json {
  return message(r.to, r.replyTo, 'template', {
    name: r.templateName,
    language: { code: r.lang },
    ...(r.componentsJson ? { components: JSON.parse(r.componentsJson) as unknown } : {}),
  });
}

export function locationPayload(r: messaging.SendLocationRequest): Json {
  return message(r.to, r.replyTo, 'location', {
    // The provider's docs and OpenAPI description give coordinates as decimal strings; String() keeps every digit.
    latitude: String(r.latitude),
    longitude: String(r.longitude),
    ...(r.name === undefined ? {} : { name: r.name }),
    ...(r.address === undefined ? {} : { address: r.address }),
  });
}

export function stickerPayload(r: messaging.SendStickerRequest): Json {
  return message(r.to, r.replyTo, 'sticker', { link: r.url });
}

/** §1.12: a text; `preview_url` is always sent so the provider never guesses. */
export function textPayload(r: messaging.SendTextRequest): Json {
  return message(r.to, r.replyTo, 'text', { body: r.body, preview_url: r.previewUrl });
}

/** §1 image / video / audio / document / sticker: by `link` or `id`; caption and filename only where the provider takes them. */
export function mediaPayload(r: messaging.SendMediaRequest): Json {
  const media: Json = r.mediaId ? { id: r.mediaId } : { link: r.url };
  if (r.caption !== undefined && r.type !== 'audio' && r.type !== 'sticker') media.caption = r.caption;
  if (r.filename !== undefined && r.type === 'document') media.filename = r.filename;
  return message(r.to, r.replyTo, r.type, media);
}

/** Supplement §1: an interactive call-to-action URL button. */
export function ctaUrlPayload(r: messaging.SendCtaUrlRequest): Json {
  return interactive(r.to, r.replyTo, {
    type: 'cta_url',
    ...headerOf(r.header),
    body: { text: r.body },
    ...footerOf(r.footer),
    action: { name: 'cta_url', parameters: { display_text: r.buttonText, url: r.url } },
  });
}

/** Supplement §1: asks the user to share a location (the answer arrives as an inbound `location` message). */
export function locationRequestPayload(r: messaging.RequestLocationRequest): Json {
  return interactive(r.to, r.replyTo, { type: 'location_request_message', body: { text: r.body }, action: { name: 'send_location' } });
}

/** The fields of `o` that are set, in the order given: optional proto fields become absent JSON keys. */
function defined(o: Record<string, unknown>): Json {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

/** Supplement §1 contacts: the cards as given; empty lists and unset fields are left out. */
export function contactsPayload(r: messaging.SendContactsRequest): Json {
  const listOf = <T>(items: T[], map: (item: T) => Json) => (items.length ? items.map(map) : undefined);
  const cards = r.contacts.map((c) =>
    defined({
      name: defined({ formatted_name: c.name?.formattedName ?? '', first_name: c.name?.firstName, last_name: c.name?.lastName, middle_name: c.name?.middleName, suffix: c.name?.suffix, prefix: c.name?.prefix }),
      phones: listOf(c.phones, (p) => defined({ phone: p.phone, type: p.type, wa_id: p.waId })),
      emails: listOf(c.emails, (e) => defined({ email: e.email, type: e.type })),
      urls: listOf(c.urls, (u) => defined({ url: u.url, type: u.type })),
      addresses: listOf(c.addresses, (a) => defined({ street: a.street, city: a.city, state: a.state, zip: a.zip, country: a.country, country_code: a.countryCode, type: a.type })),
      org: c.org ? defined({ company: c.org.company, department: c.org.department, title: c.org.title }) : undefined,
      birthday: c.birthday,
    }),
  );
  return message(r.to, r.replyTo, 'contacts', cards);
}

export function catalogPayload(r: messaging.SendCatalogRequest): Json {
  return interactive(r.to, r.replyTo, {
    type: 'catalog_message',
    body: { text: r.body },
    ...footerOf(r.footer),
    action: {
      name: 'catalog_message',
      ...(r.thumbnailProductRetailerId ? { parameters: { thumbnail_product_retailer_id: r.thumbnailProductRetailerId } } : {}),
    },
  });
}
