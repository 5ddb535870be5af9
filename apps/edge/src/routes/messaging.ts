import type { Context } from 'koa';
import { isAppError } from '@gateway/errors';
import type Joi from 'joi';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { messaging as m } from '@gateway/contracts';
import { callerContext, respondNull } from '../idempotency';
import * as s from '../schemas/messaging';
import type { Services } from '../services';
import { validateParts } from '../validation';
import { operation, type ResponseSpec } from '../openapi/operation';
import type { RegisterRoutes } from './context';

type Caller = MessageInitShape<typeof m.CallerContextSchema>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are validated by their joi schema
type Body = Record<string, any>;
type Header = { type: string; text?: string; url?: string; filename?: string } | undefined;

export interface Operation {
  schema: Joi.Schema;
  /** For the API description (the operation id is the path's name in camelCase: `send-buttons` → `sendButtons`). */
  summary: string;
  /** Calls the messaging service; a send answers with its message id. */
  call(services: Services, caller: Caller, body: Body): Promise<{ messageId?: string; replayed: boolean; headers?: Record<string, string> }>;
}

const sent = (r: { result?: { messageId: string; replayed: boolean } }) => ({ messageId: r.result?.messageId, replayed: r.result?.replayed ?? false });
const common = (b: Body) => ({ to: b.to as string, replyTo: b.reply_to as string | undefined });
const header = (h: Header) => (h ? { type: h.type, text: h.text, url: h.url, filename: h.filename } : undefined);

/** A validated contact card (snake_case JSON) as the proto message. */
function contactCard(c: Body) {
  return {
    name: { formattedName: c.name.formatted_name, firstName: c.name.first_name, lastName: c.name.last_name, middleName: c.name.middle_name, suffix: c.name.suffix, prefix: c.name.prefix },
    phones: (c.phones ?? []).map((p: Body) => ({ phone: p.phone, type: p.type, waId: p.wa_id })),
    emails: c.emails ?? [],
    urls: c.urls ?? [],
    addresses: (c.addresses ?? []).map((a: Body) => ({ street: a.street, city: a.city, state: a.state, zip: a.zip, country: a.country, countryCode: a.country_code, type: a.type })),
    org: c.org,
    birthday: c.birthday,
  };
}

/** The thirteen operations of spec 4.3 and the everyday sends of issue 19, by path under /api/messaging. */
export const MESSAGING_OPERATIONS: Record<string, Operation> = {
  'send-buttons': {
    summary: 'Send reply buttons (1–3) with a text or media header',
    schema: s.sendButtonsBody,
    call: async (svc, caller, b) =>
      sent(
        await svc.messaging.sendButtons({
          caller,
          ...common(b),
          header: header(b.header),
          bodyText: b.body.text,
          footer: b.footer,
          buttons: b.buttons,
        }),
      ),
  },
  'send-list': {
    summary: 'Send a list message (sections of rows)',
    schema: s.sendListBody,
    call: async (svc, caller, b) =>
      sent(
        await svc.messaging.sendList({
          caller,
          ...common(b),
          body: b.body,
          buttonText: b.button_text,
          headerText: typeof b.header === 'string' ? b.header : b.header?.text,
          footer: b.footer,
          sections: b.sections,
        }),
      ),
  },
  'send-products': {
    summary: 'Send a multi-product message from a catalog',
    schema: s.sendProductsBody,
    call: async (svc, caller, b) =>
      sent(await svc.messaging.sendProducts({ caller, ...common(b), title: b.title, body: b.body, footer: b.footer, catalogId: b.catalog_id, sections: b.sections })),
  },
  'send-flow': {
    summary: 'Send a flow (answers the flow token in X-Flow-Token)',
    schema: s.sendFlowBody,
    call: async (svc, caller, b) => {
      // a flow the flows service knows under another business account is not this client's to send; while the
      // flows service is unreachable sends go on (the provider still checks the flow against the sender)
      await svc.flows.checkFlowUse({ caller: { tenantId: caller.tenantId, clientId: caller.clientId }, flowId: b.flow_id }).catch((e: unknown) => {
        if (!isAppError(e) || (e.kind !== 'unavailable' && e.kind !== 'timeout')) throw e;
      });
      const r = await svc.messaging.sendFlow({
        caller,
        ...common(b),
        body: b.body,
        buttonText: b.button_text,
        flowId: b.flow_id,
        flowToken: b.flow_token,
        flowAction: b.flow_action,
        flowActionScreen: b.flow_action_payload?.screen,
        flowActionDataJson: b.flow_action_payload?.data === undefined ? undefined : JSON.stringify(b.flow_action_payload.data),
        mode: b.mode,
        header: header(b.header),
        footer: b.footer,
      });
      // the token comes back in flow_completion events; a generated one is only known from here
      return { ...sent(r), headers: { 'X-Flow-Token': r.flowToken } };
    },
  },
  'send-reaction': {
    summary: 'React to a message ("" removes the reaction)',
    schema: s.sendReactionBody,
    call: async (svc, caller, b) => sent(await svc.messaging.sendReaction({ caller, ...common(b), messageId: b.message_id, emoji: b.emoji })),
  },
  'send-template': {
    summary: 'Send an approved template',
    schema: s.sendTemplateBody,
    call: async (svc, caller, b) =>
      sent(
        await svc.messaging.sendTemplate({
          caller,
          ...common(b),
          templateName: b.template_name,
          lang: b.lang,
          componentsJson: b.components === undefined ? '' : JSON.stringify(b.components),
        }),
      ),
  },
  'send-location': {
    summary: 'Send a location',
    schema: s.sendLocationBody,
    call: async (svc, caller, b) =>
      sent(await svc.messaging.sendLocation({ caller, ...common(b), latitude: b.latitude, longitude: b.longitude, name: b.name, address: b.address })),
  },
  'send-sticker': {
    summary: 'Send a WebP sticker by URL',
    schema: s.sendStickerBody,
    call: async (svc, caller, b) => sent(await svc.messaging.sendSticker({ caller, ...common(b), url: b.url })),
  },
  'send-catalog': {
    summary: 'Send the catalog message',
    schema: s.sendCatalogBody,
    call: async (svc, caller, b) =>
      sent(await svc.messaging.sendCatalog({ caller, ...common(b), body: b.body, footer: b.footer, thumbnailProductRetailerId: b.thumbnail_product_retailer_id })),
  },
  'send-text': {
    summary: 'Send a text message',
    schema: s.sendTextBody,
    call: async (svc, caller, b) => sent(await svc.messaging.sendText({ caller, ...common(b), body: b.text, previewUrl: b.preview_url })),
  },
  'send-media': {
    summary: 'Send an image, video, audio, document or sticker (by URL or media id)',
    schema: s.sendMediaBody,
    call: async (svc, caller, b) =>
      sent(await svc.messaging.sendMedia({ caller, ...common(b), type: b.type, url: b.url, mediaId: b.media_id, caption: b.caption, filename: b.filename })),
  },
  'send-contacts': {
    summary: 'Send contact cards (1–5)',
    schema: s.sendContactsBody,
    call: async (svc, caller, b) => sent(await svc.messaging.sendContacts({ caller, ...common(b), contacts: (b.contacts as Body[]).map(contactCard) })),
  },
  'send-cta-url': {
    summary: 'Send a call-to-action URL button',
    schema: s.sendCtaUrlBody,
    call: async (svc, caller, b) =>
      sent(await svc.messaging.sendCtaUrl({ caller, ...common(b), body: b.body, buttonText: b.button_text, url: b.url, header: header(b.header), footer: b.footer })),
  },
  'send-location-request': {
    summary: 'Ask the user for their location',
    schema: s.sendLocationRequestBody,
    call: async (svc, caller, b) => sent(await svc.messaging.requestLocation({ caller, ...common(b), body: b.body })),
  },
  'block-users': {
    summary: 'Block users from messaging the client',
    schema: s.usersBody,
    call: async (svc, caller, b) => ({ replayed: (await svc.messaging.blockUsers({ caller, users: b.users })).replayed }),
  },
  'unblock-users': {
    summary: 'Unblock users',
    schema: s.usersBody,
    call: async (svc, caller, b) => ({ replayed: (await svc.messaging.unblockUsers({ caller, users: b.users })).replayed }),
  },
  'indicate-typing': {
    summary: 'Show a typing indicator (and mark the message read)',
    schema: s.messageIdBody,
    call: async (svc, caller, b) => ({ replayed: (await svc.messaging.indicateTyping({ caller, messageId: b.message_id })).replayed }),
  },
  'mark-read': {
    summary: 'Mark an inbound message read',
    schema: s.messageIdBody,
    call: async (svc, caller, b) => ({ replayed: (await svc.messaging.markRead({ caller, messageId: b.message_id })).replayed }),
  },
};

/**
 * Validates headers and body (every problem in one 422, before any service call), then calls the service
 * with the caller's tenant, client and idempotency key, and answers `200 null` (+ `X-Message-Id` for sends).
 */
export function operationHandler(services: Services, operationPath: string, op: Operation) {
  return async (ctx: Context) => {
    const { header: headers, body } = validateParts<{ header: { 'idempotency-key'?: string }; body: Body }>({
      header: [s.idempotencyHeaders, ctx.headers],
      body: [op.schema, ctx.request.body],
    });
    const caller = callerContext(ctx, operationPath, body.client_id, headers['idempotency-key']);
    const res = await op.call(services, caller, body);
    if (res.messageId) ctx.set('X-Message-Id', res.messageId);
    if (res.headers) ctx.set(res.headers);
    respondNull(ctx, res.replayed);
  };
}

/** The description of a messaging operation: `200 null`, the message id of a send in `X-Message-Id`. */
export function messagingOperation(operationId: string, op: Operation, tags = ['Messaging']) {
  const isSend = 'to' in ((op.schema.describe() as { keys?: Record<string, unknown> }).keys ?? {});
  const headers: ResponseSpec['headers'] = isSend ? { 'X-Message-Id': { description: "The provider's message id of the send (`wamid.…`).", schema: { type: 'string' }, required: true } } : {};
  if (operationId === 'sendFlow') headers['X-Flow-Token'] = { description: 'The flow token (yours, or a generated one): `flow_completion` events carry it.', schema: { type: 'string' }, required: true };
  return operation({
    operationId,
    summary: op.summary,
    tags,
    idempotent: true,
    request: { headers: s.idempotencyHeaders, body: op.schema },
    responses: { 200: { description: isSend ? 'Sent (accepted by the provider); a repeat under the same Idempotency-Key replays this answer.' : 'Done.', schema: null, headers } },
    // the client is missing or another tenant's; inactive, closed window, key reuse; provider limits; provider refusal
    errors: [404, 409, 429, 502],
  });
}

export const registerMessagingRoutes: RegisterRoutes = (router, { services }) => {
  for (const [name, op] of Object.entries(MESSAGING_OPERATIONS)) {
    const path = `/api/messaging/${name}`;
    router.post(path, messagingOperation(name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase()), op), operationHandler(services, path, op));
  }
};
