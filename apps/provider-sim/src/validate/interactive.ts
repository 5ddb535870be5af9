import { invalidParameter, parameterValueInvalid } from '../errors';
import { arr, obj, oneOf, str, unique } from './checks';

type Json = Record<string, unknown>;

export interface InteractiveContext {
  catalogId: string | null;
  /** A flow of the sender's business account; undefined for another account's or an unknown one. */
  flow(id: string): { status: string } | undefined;
  /** Whether a media id may be sent by this phone number (uploaded by it or received by it); unchecked when absent. */
  media?(id: string): boolean;
}

function header(v: unknown, path: string, kinds: readonly string[]): void {
  if (v === undefined) return;
  const h = obj(v, path);
  const type = oneOf(h.type, `${path}.type`, kinds);
  if (type === 'text') {
    str(h.text, `${path}.text`, { max: 60 });
    return;
  }
  const media = obj(h[type], `${path}.${type}`);
  const hasId = media.id !== undefined;
  const hasLink = media.link !== undefined;
  if (hasId === hasLink) throw invalidParameter(`${path}.${type} needs exactly one of id or link`);
  if (hasLink) {
    const link = str(media.link, `${path}.${type}.link`)!;
    if (!/^https?:\/\//.test(link)) throw invalidParameter(`${path}.${type}.link must be an http(s) URL`);
  }
  if (media.filename !== undefined) str(media.filename, `${path}.${type}.filename`, { max: 240 });
}

function footer(v: unknown, path: string): void {
  if (v === undefined) return;
  str(obj(v, path).text, `${path}.text`, { max: 60 });
}

function body(v: unknown, path: string, max: number, required = true): void {
  if (v === undefined && !required) return;
  str(obj(v, path).text, `${path}.text`, { max });
}

function buttons(i: Json): void {
  header(i.header, 'interactive.header', ['text', 'image', 'video', 'document']);
  body(i.body, 'interactive.body', 1024);
  footer(i.footer, 'interactive.footer');
  const action = obj(i.action, 'interactive.action');
  const list = arr(action.buttons, 'interactive.action.buttons', { min: 1, max: 3 }).map((b, n) => {
    const button = obj(b, `interactive.action.buttons[${n}]`);
    oneOf(button.type, `interactive.action.buttons[${n}].type`, ['reply']);
    const reply = obj(button.reply, `interactive.action.buttons[${n}].reply`);
    const id = str(reply.id, `interactive.action.buttons[${n}].reply.id`, { max: 256 })!;
    if (id.trim() !== id) throw invalidParameter(`interactive.action.buttons[${n}].reply.id must not have leading or trailing spaces`);
    const title = str(reply.title, `interactive.action.buttons[${n}].reply.title`, { max: 20 })!;
    return { id, title };
  });
  unique(
    list.map((b) => b.id),
    'interactive.action.buttons[].reply.id',
  );
  unique(
    list.map((b) => b.title),
    'interactive.action.buttons[].reply.title',
  );
}

function list(i: Json): void {
  header(i.header, 'interactive.header', ['text']);
  body(i.body, 'interactive.body', 4096);
  footer(i.footer, 'interactive.footer');
  const action = obj(i.action, 'interactive.action');
  str(action.button, 'interactive.action.button', { max: 20 });
  const sections = arr(action.sections, 'interactive.action.sections', { min: 1, max: 10 });
  let rows = 0;
  sections.forEach((s, n) => {
    const section = obj(s, `interactive.action.sections[${n}]`);
    str(section.title, `interactive.action.sections[${n}].title`, { max: 24, required: sections.length > 1 });
    const r = arr(section.rows, `interactive.action.sections[${n}].rows`, { min: 1 });
    r.forEach((row, k) => {
      const item = obj(row, `interactive.action.sections[${n}].rows[${k}]`);
      str(item.id, `interactive.action.sections[${n}].rows[${k}].id`, { max: 200 });
      str(item.title, `interactive.action.sections[${n}].rows[${k}].title`, { max: 24 });
      str(item.description, `interactive.action.sections[${n}].rows[${k}].description`, { max: 72, required: false });
    });
    rows += r.length;
  });
  if (rows > 10) throw invalidParameter('interactive.action.sections: at most 10 rows in total across sections');
}

function productList(i: Json, ctx: InteractiveContext): void {
  if (i.header === undefined) throw invalidParameter('interactive.header is required for product_list');
  header(i.header, 'interactive.header', ['text']);
  body(i.body, 'interactive.body', 1024);
  footer(i.footer, 'interactive.footer');
  const action = obj(i.action, 'interactive.action');
  const catalogId = str(action.catalog_id, 'interactive.action.catalog_id');
  if (catalogId !== ctx.catalogId) throw invalidParameter(`interactive.action.catalog_id ${catalogId} is not linked to this WhatsApp Business Account`);
  const sections = arr(action.sections, 'interactive.action.sections', { min: 1, max: 10 });
  let items = 0;
  sections.forEach((s, n) => {
    const section = obj(s, `interactive.action.sections[${n}]`);
    str(section.title, `interactive.action.sections[${n}].title`, { max: 24, required: sections.length > 1 });
    const p = arr(section.product_items, `interactive.action.sections[${n}].product_items`, { min: 1 });
    p.forEach((it, k) =>
      str(
        obj(it, `interactive.action.sections[${n}].product_items[${k}]`).product_retailer_id,
        `interactive.action.sections[${n}].product_items[${k}].product_retailer_id`,
      ),
    );
    items += p.length;
  });
  if (items > 30) throw invalidParameter('interactive.action.sections: at most 30 product items in total');
}

function catalog(i: Json, ctx: InteractiveContext): void {
  if (i.header !== undefined) throw invalidParameter('interactive.header is not allowed for catalog_message');
  body(i.body, 'interactive.body', 1024);
  footer(i.footer, 'interactive.footer');
  const action = obj(i.action, 'interactive.action');
  oneOf(action.name, 'interactive.action.name', ['catalog_message']);
  if (action.parameters !== undefined)
    str(obj(action.parameters, 'interactive.action.parameters').thumbnail_product_retailer_id, 'interactive.action.parameters.thumbnail_product_retailer_id');
  if (!ctx.catalogId) throw invalidParameter('No catalog is linked to this WhatsApp Business Account');
}

function flow(i: Json, ctx: InteractiveContext): void {
  header(i.header, 'interactive.header', ['text', 'image', 'video', 'document']);
  body(i.body, 'interactive.body', 1024);
  footer(i.footer, 'interactive.footer');
  const action = obj(i.action, 'interactive.action');
  oneOf(action.name, 'interactive.action.name', ['flow']);
  const p = obj(action.parameters, 'interactive.action.parameters');
  if (p.flow_message_version !== '3') throw invalidParameter('interactive.action.parameters.flow_message_version must be "3"');
  if ((p.flow_id === undefined) === (p.flow_name === undefined)) throw invalidParameter('exactly one of flow_id or flow_name is required');
  str(p.flow_cta, 'interactive.action.parameters.flow_cta', { max: 30 });
  if (p.flow_token !== undefined) str(p.flow_token, 'interactive.action.parameters.flow_token');
  const mode = p.mode === undefined ? 'published' : oneOf(p.mode, 'interactive.action.parameters.mode', ['draft', 'published']);
  const action_ = p.flow_action === undefined ? 'navigate' : oneOf(p.flow_action, 'interactive.action.parameters.flow_action', ['navigate', 'data_exchange']);
  if (p.flow_action_payload !== undefined) {
    if (action_ !== 'navigate') throw invalidParameter('flow_action_payload is only allowed with flow_action navigate');
    const payload = obj(p.flow_action_payload, 'interactive.action.parameters.flow_action_payload');
    str(payload.screen, 'interactive.action.parameters.flow_action_payload.screen');
    if (payload.data !== undefined && Object.keys(obj(payload.data, 'interactive.action.parameters.flow_action_payload.data')).length === 0) {
      throw invalidParameter('flow_action_payload.data must be a non-empty object');
    }
  }
  if (typeof p.flow_id === 'string') {
    // the provider sends only a flow of the sender's business account: another account's and one that exists
    // nowhere are refused alike
    const known = ctx.flow(p.flow_id);
    if (!known) throw parameterValueInvalid(`Flow with id ${p.flow_id} does not exist or does not belong to this WhatsApp Business Account`);
    if ((known.status === 'DRAFT') !== (mode === 'draft')) {
      throw invalidParameter(`flow ${p.flow_id} is ${known.status}; send it with mode ${known.status === 'DRAFT' ? 'draft' : 'published'}`);
    }
  }
}

function ctaUrl(i: Json): void {
  header(i.header, 'interactive.header', ['text', 'image', 'video', 'document']);
  body(i.body, 'interactive.body', 1024);
  footer(i.footer, 'interactive.footer');
  const action = obj(i.action, 'interactive.action');
  oneOf(action.name, 'interactive.action.name', ['cta_url']);
  const p = obj(action.parameters, 'interactive.action.parameters');
  str(p.display_text, 'interactive.action.parameters.display_text', { max: 20 });
  const url = str(p.url, 'interactive.action.parameters.url')!;
  if (!/^https?:\/\//.test(url)) throw invalidParameter('interactive.action.parameters.url must be an http(s) URL');
}

function locationRequest(i: Json): void {
  if (i.header !== undefined) throw invalidParameter('interactive.header is not allowed for location_request_message');
  body(i.body, 'interactive.body', 1024);
  oneOf(obj(i.action, 'interactive.action').name, 'interactive.action.name', ['send_location']);
}

/** provider-2026.md §7.4: body optional, no header or footer, action {name: call_permission_request}. */
function callPermissionRequest(i: Json): void {
  if (i.header !== undefined) throw invalidParameter('interactive.header is not allowed for call_permission_request');
  if (i.footer !== undefined) throw invalidParameter('interactive.footer is not allowed for call_permission_request');
  if (i.body !== undefined) body(i.body, 'interactive.body', 1024);
  oneOf(obj(i.action, 'interactive.action').name, 'interactive.action.name', ['call_permission_request']);
}

export function validateInteractive(v: unknown, ctx: InteractiveContext): string {
  const i = obj(v, 'interactive');
  const type = oneOf(i.type, 'interactive.type', [
    'button',
    'list',
    'product_list',
    'product',
    'catalog_message',
    'flow',
    'cta_url',
    'location_request_message',
    'call_permission_request',
  ] as const);
  switch (type) {
    case 'button':
      buttons(i);
      break;
    case 'list':
      list(i);
      break;
    case 'product_list':
      productList(i, ctx);
      break;
    case 'catalog_message':
      catalog(i, ctx);
      break;
    case 'flow':
      flow(i, ctx);
      break;
    case 'cta_url':
      ctaUrl(i);
      break;
    case 'location_request_message':
      locationRequest(i);
      break;
    case 'call_permission_request':
      callPermissionRequest(i);
      break;
    case 'product': {
      const action = obj(i.action, 'interactive.action');
      str(action.catalog_id, 'interactive.action.catalog_id');
      str(action.product_retailer_id, 'interactive.action.product_retailer_id');
      break;
    }
  }
  return type;
}
