import { randomUUID } from 'node:crypto';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { AppError } from '@gateway/errors';
import type { messaging as m, tenantDirectory as td } from '@gateway/contracts';
import type { ServiceClient } from '@gateway/rpc';
import type { Executed, IdempotentRunner } from './idempotency';
import { ClientCredentialsCache } from './client-cache';
import * as build from './payloads';
import type { Credentials, MessagingProvider } from './provider';
import type { MessageRepository, MessageRecord } from './store/messages';

/** The send-template check against the local template copy (templates/templates.ts). */
export interface TemplateSendCheck {
  checkSend(k: { tenantId: string; clientId: string }, name: string, language: string, components: unknown): Promise<void>;
}

type Json = Record<string, unknown>;
type SendResult = MessageInitShape<typeof m.SendResultSchema>;

interface ResolvedClient {
  client: td.Client;
  credentials: Credentials;
}

/**
 * The messaging operations: resolve the tenant's client (another tenant's is not found), refuse one that is
 * not active, build the provider payload, call the provider with the client's token, and store every
 * accepted send. Everything runs under the request's idempotency key.
 */
export class Messaging {
  constructor(
    directory: ServiceClient<typeof td.TenantDirectoryService>,
    private readonly provider: MessagingProvider,
    private readonly runner: IdempotentRunner,
    private readonly messages: MessageRepository,
    private readonly credentials = new ClientCredentialsCache(directory),
    private readonly templates?: TemplateSendCheck,
  ) {}

  async resolve(caller: m.CallerContext | undefined): Promise<ResolvedClient> {
    if (!caller?.tenantId || !caller.clientId) throw new AppError('internal', 'caller_missing', 'tenant_id and client_id are required');
    const { client, accessToken } = await this.credentials.get(caller.tenantId, caller.clientId);
    if (!client) throw AppError.notFound('client_not_found', 'Client not found');
    if (!client.isActive || client.signupStatus !== 'completed' || !client.phoneNumberId || !accessToken) {
      throw AppError.conflict('client_not_active', `Client is not active (signup_status: ${client.signupStatus}); finish its signup before sending`, {
        signup_status: client.signupStatus,
      });
    }
    return { client, credentials: { phoneNumberId: client.phoneNumberId, accessToken } };
  }

  /** A message send: one provider call, its message id stored as a record of `kind`. */
  async send<R extends object>(
    kind: string,
    req: { caller?: m.CallerContext; to: string },
    payload: (client: td.Client) => Json | Promise<Json>,
    respond: (result: SendResult) => R = (result) => ({ result }) as R,
  ): Promise<R> {
    const caller = req.caller;
    const { response, replayed } = await this.runner.run<R>(caller, `send:${kind}`, async () => {
      const { client, credentials } = await this.resolve(caller);
      const body = await payload(client);
      return async (): Promise<Executed<R>> => {
        const { messageId } = await this.provider.sendMessage(credentials.accessToken, credentials.phoneNumberId, body);
        return {
          response: respond({ messageId }),
          message: { id: messageId, tenantId: client.tenantId, clientId: client.id, to: req.to, kind },
        };
      };
    });
    return markReplayed(response, replayed);
  }

  sendButtons(r: m.SendButtonsRequest) {
    return this.send('buttons', r, () => build.buttonsPayload(r));
  }

  sendList(r: m.SendListRequest) {
    return this.send('list', r, () => build.listPayload(r));
  }

  sendProducts(r: m.SendProductsRequest) {
    return this.send('products', r, (client) => {
      const catalogId = r.catalogId || client.catalogId;
      if (!catalogId) {
        throw AppError.validation([
          {
            loc: ['body', 'catalog_id'],
            msg: 'catalog_id is required: this client has no linked catalog',
            type: 'missing',
            input: null,
            ctx: {},
          },
        ]);
      }
      return build.productsPayload(r, catalogId);
    });
  }

  sendFlow(r: m.SendFlowRequest) {
    // a generated token is chosen once: a replay answers with the stored one
    const flowToken = r.flowToken || `ft_${randomUUID()}`;
    return this.send('flow', r, () => build.flowPayload(r, flowToken), (result) => ({ result, flowToken }));
  }

  sendReaction(r: m.SendReactionRequest) {
    return this.send('reaction', r, () => build.reactionPayload(r));
  }

  sendTemplate(r: m.SendTemplateRequest) {
    return this.send('template', r, async (client) => {
      const payload = build.templatePayload(r);
      const components = (payload.template as { components?: unknown }).components;
      await this.templates?.checkSend({ tenantId: client.tenantId, clientId: client.id }, r.templateName, r.lang, components);
      return payload;
    });
  }

  sendLocation(r: m.SendLocationRequest) {
    return this.send('location', r, () => build.locationPayload(r));
  }

  sendSticker(r: m.SendStickerRequest) {
    return this.send('sticker', r, () => build.stickerPayload(r));
  }

  sendCatalog(r: m.SendCatalogRequest) {
    return this.send('catalog', r, () => build.catalogPayload(r));
  }

  sendText(r: m.SendTextRequest) {
    return this.send('text', r, () => build.textPayload(r));
  }

  sendContacts(r: m.SendContactsRequest) {
    return this.send('contacts', r, () => build.contactsPayload(r));
  }

  sendCtaUrl(r: m.SendCtaUrlRequest) {
    return this.send('cta_url', r, () => build.ctaUrlPayload(r));
  }

  requestLocation(r: m.RequestLocationRequest) {
    return this.send('location_request', r, () => build.locationRequestPayload(r));
  }

  /** Recorded as the media type itself (`image`, `document`...), like the provider's message type. */
  sendMedia(r: m.SendMediaRequest) {
    return this.send(r.type, r, () => build.mediaPayload(r));
  }

  /**
   * Blocks or unblocks users. A partial failure is never hidden: a 502 `block_users_partial_failure` whose
   * `failed_users` lists each user that failed and the provider's errors for it.
   */
  async blockUsers(caller: m.CallerContext | undefined, users: string[], block: boolean): Promise<{ users: string[]; replayed: boolean }> {
    const operation = block ? 'block_users' : 'unblock_users';
    const { response, replayed } = await this.runner.run(caller, operation, async () => {
      const { credentials } = await this.resolve(caller);
      return async () => {
        const res = await this.provider.blockUsers(credentials.accessToken, credentials.phoneNumberId, users, block);
        const outcome = { done: res.done.map((d) => d.input), failed: res.failed.map((f) => ({ user: f.input, errors: f.errors })) };
        if (outcome.failed.length) {
          throw new AppError(
            'provider_rejected',
            'block_users_partial_failure',
            `${outcome.failed.length} of ${users.length} users could not be ${block ? 'blocked' : 'unblocked'}`,
            { details: { failed_users: outcome.failed.map(failedUser), [block ? 'added_users' : 'removed_users']: outcome.done } },
          );
        }
        return { response: { users: outcome.done } };
      };
    });
    return { users: response.users, replayed };
  }

  /** Mark read, and with `typing` also show the typing indicator (§2). */
  async markRead(caller: m.CallerContext | undefined, messageId: string, typing: boolean): Promise<{ replayed: boolean }> {
    const operation = typing ? 'indicate_typing' : 'mark_read';
    const { replayed } = await this.runner.run(caller, operation, async () => {
      const { credentials } = await this.resolve(caller);
      return async () => {
        await this.provider.markRead(credentials.accessToken, credentials.phoneNumberId, messageId, typing);
        return { response: {} };
      };
    });
    return { replayed };
  }

  async acceptCall(r: m.AcceptCallRequest): Promise<{ replayed: boolean }> {
    const { replayed } = await this.runner.run(r.caller, 'accept_call', async () => {
      const { credentials } = await this.resolve(r.caller);
      return async () => {
        await this.provider.acceptCall(credentials.accessToken, credentials.phoneNumberId, r.callId, r.sdp);
        return { response: {} };
      };
    });
    return { replayed };
  }

  async getMessage(r: m.GetMessageRequest): Promise<MessageInitShape<typeof m.GetMessageResponseSchema>> {
    const rec = await this.messages.get(r.tenantId, r.clientId, r.messageId);
    if (!rec) throw AppError.notFound('message_not_found', 'Message not found');
    return { message: present(rec) };
  }
}

/** A user the provider could not block or unblock: its first error's code and reason, and every error as sent. */
function failedUser(f: { user: string; errors: unknown[] }) {
  const first = (f.errors[0] ?? {}) as { code?: unknown; message?: unknown; title?: unknown; error_data?: { details?: unknown } };
  const message = typeof first.message === 'string' ? first.message : typeof first.title === 'string' ? first.title : 'Failed';
  const details = typeof first.error_data?.details === 'string' ? first.error_data.details : undefined;
  return { user: f.user, code: typeof first.code === 'number' ? first.code : null, reason: details ? `${message}: ${details}` : message, errors: f.errors };
}

function markReplayed<R extends object>(response: R, replayed: boolean): R {
  const result = (response as { result?: SendResult }).result;
  return result ? ({ ...response, result: { ...result, replayed } } as R) : response;
}

function present(r: MessageRecord): MessageInitShape<typeof m.MessageRecordSchema> {
  return {
    id: r.id,
    clientId: r.client_id,
    tenantId: r.tenant_id,
    to: r.to,
    kind: r.kind,
    status: r.status,
    statusHistory: r.status_history.map((h) => ({
      status: h.status,
      at: h.at,
      errorsJson: h.errors?.length ? JSON.stringify(h.errors) : '',
      conversationJson: h.conversation ? JSON.stringify(h.conversation) : '',
      pricingJson: h.pricing ? JSON.stringify(h.pricing) : '',
    })),
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
    errorsJson: r.errors?.length ? JSON.stringify(r.errors) : '',
    conversationJson: r.conversation ? JSON.stringify(r.conversation) : '',
    pricingJson: r.pricing ? JSON.stringify(r.pricing) : '',
  };
}
