import type { MessageInitShape } from '@bufbuild/protobuf';
import { AppError } from '@gateway/errors';
import type { messaging as m, tenantDirectory as td } from '@gateway/contracts';
import { kindNamed, readSendRequest } from '@gateway/message-kinds';
import type { ServiceClient } from '@gateway/rpc';
import type { Executed, IdempotentRunner } from './idempotency';
import { ClientCredentialsCache } from './client-cache';
import type { Credentials, MessagingProvider } from './provider';
import type { MessageRepository, MessageRecord, NewMessage, SendApi } from './store/messages';

/** The send-template check against the local template copy (templates/templates.ts). */
export interface TemplateSendCheck {
  /** Refuses a send the local copy shows the provider would refuse; answers the template's category when it is known. */
  checkSend(k: { tenantId: string; clientId: string }, name: string, language: string, components: unknown): Promise<string | undefined>;
}

/**
 * Where a send goes (provider-2026.md §3.3): a MARKETING template (by the local copy's latest category) of a client
 * onboarded to the Marketing Messages API goes to `/marketing_messages`, unless the tenant chose `cloud_api`;
 * everything else to `/messages`.
 */
export function sendApi(client: Pick<td.Client, 'marketingMessages' | 'marketingMessagesOnboarded'>, templateCategory: string | undefined): SendApi {
  if (templateCategory?.toUpperCase() !== 'MARKETING') return 'cloud_api';
  return client.marketingMessages !== 'cloud_api' && client.marketingMessagesOnboarded ? 'marketing_messages' : 'cloud_api';
}

/** A send's answer (`messaging.v1.SendResponse`), as stored with its idempotency key and replayed. */
interface SendResponse {
  result?: { messageId: string; replayed: boolean };
  /** Absent in outcomes stored before sends went through one RPC. */
  headers?: Record<string, string>;
}

/**
 * The headers of an outcome stored before sends went through one RPC (kept for the idempotency key's lifetime,
 * a day): send-flow's token was stored as `flowToken`.
 */
function legacyHeaders(stored: object): Record<string, string> {
  const token = (stored as { flowToken?: unknown }).flowToken;
  return typeof token === 'string' ? { 'X-Flow-Token': token } : {};
}

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
  /**
   * Told of each of the tenant's own sends as it leaves: campaigns on the number yield it a slot
   * (campaigns/priority.ts), and a template counts in the portfolio's messaging-limit window (campaigns/messaging-limit.ts).
   * What it answers is told when the provider answered the send (or the call failed); a promise of it holds the
   * send until a campaign on the number has yielded it a place.
   */
  onSingleSend?: (send: {
    phoneNumberId: string;
    client: td.Client;
    user: string | undefined;
    template: boolean;
  }) => ((answeredAt: number) => void) | Promise<(answeredAt: number) => void> | undefined;

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
    // deactivated by the provider's account updates (restricted, banned, disconnected): no provider call
    if (!client.isActive && client.statusReason) {
      throw AppError.conflict('client_inactive', `Client is inactive: the provider reported ${client.statusReason}`, { status_reason: client.statusReason });
    }
    if (!client.isActive || client.signupStatus !== 'completed' || !client.phoneNumberId || !accessToken) {
      throw AppError.conflict('client_not_active', `Client is not active (signup_status: ${client.signupStatus}); finish its signup before sending`, {
        signup_status: client.signupStatus,
      });
    }
    return { client, credentials: { phoneNumberId: client.phoneNumberId, accessToken } };
  }

  /**
   * A send of any message kind: the body is checked again with the kind's schema (a kind this build does not
   * know is a 503 `message_kind_unknown`), the values the gateway chooses are chosen once (a replay answers the
   * stored ones), then one provider call, its message id stored as a record of the kind's record kind.
   */
  async send(r: m.SendRequest): Promise<SendResponse> {
    const { kind, body: validated } = readSendRequest(r);
    const body = kind.prepare(validated);
    const recordKind = kind.recordKind(body);
    const headers = Object.fromEntries(kind.answerHeaders.map((h) => [h.name, h.value(body)]));
    const { response, replayed } = await this.runner.run<SendResponse>(r.caller, `send:${recordKind}`, async () => {
      const { client, credentials } = await this.resolve(r.caller);
      const payload = kind.build(body, { catalogId: client.catalogId || undefined });
      const template = kind.template?.(body);
      const category = template
        ? await this.templates?.checkSend({ tenantId: client.tenantId, clientId: client.id }, template.name, template.language, template.components)
        : undefined;
      const api = sendApi(client, category);
      const policy = (body as { product_policy?: string }).product_policy;
      return async (): Promise<Executed<SendResponse>> => {
        const answered = await this.onSingleSend?.({ phoneNumberId: credentials.phoneNumberId, client, user: body.to ?? body.recipient, template: !!template });
        let messageId: string;
        try {
          ({ messageId } =
            api === 'marketing_messages'
              ? await this.provider.sendMarketingMessage(credentials.accessToken, credentials.phoneNumberId, {
                  ...payload,
                  ...(policy ? { product_policy: policy } : {}),
                })
              : await this.provider.sendMessage(credentials.accessToken, credentials.phoneNumberId, payload));
        } finally {
          answered?.(Date.now());
        }
        return {
          response: { result: { messageId, replayed: false }, headers },
          message: {
            id: messageId,
            tenantId: client.tenantId,
            clientId: client.id,
            to: body.to,
            recipient: body.recipient,
            api,
            kind: recordKind,
            text: sendText(body),
          },
        };
      };
    });
    return { result: { messageId: response.result?.messageId ?? '', replayed }, headers: response.headers ?? legacyHeaders(response) };
  }

  /**
   * A send prepared now and made later (a campaign's, paced to its slot): the body checked with its kind's schema,
   * the client resolved, the payload built and a template checked against the local copy here (`checkTemplate:
   * false`: the caller checked it, a campaign once per batch); the answer makes the provider call and stores the
   * record, nothing else, so it reaches the provider at the moment it is called. With `recordTo` the record is put
   * there instead, for the caller to store with others (`recordSent`). The body is the caller's object (no
   * `SendRequest` with its JSON to build and parse again per recipient).
   */
  async prepareSend(
    send: { caller: m.CallerContext; kind: string; body: unknown },
    opts: { checkTemplate?: boolean; recordTo?: NewMessage[] } = {},
  ): Promise<() => Promise<string>> {
    const kind = kindNamed(send.kind);
    const body = kind.prepare(kind.parse(send.body));
    const recordKind = kind.recordKind(body);
    const { client, credentials } = await this.resolve(send.caller);
    const payload = kind.build(body, { catalogId: client.catalogId || undefined });
    const template = kind.template?.(body);
    if (template && opts.checkTemplate !== false)
      await this.templates?.checkSend({ tenantId: client.tenantId, clientId: client.id }, template.name, template.language, template.components);
    return async () => {
      const { messageId } = await this.provider.sendMessage(credentials.accessToken, credentials.phoneNumberId, payload);
      const record = { id: messageId, tenantId: client.tenantId, clientId: client.id, to: body.to, recipient: body.recipient, kind: recordKind };
      // a campaign gathers its batch's records and stores them together (recordSent)
      if (opts.recordTo) opts.recordTo.push(record);
      else await this.runner.recordSent(record);
      return messageId;
    };
  }

  /** Stores the records of prepared sends gathered with `recordTo` (one statement for the messages, a few for their contacts). */
  recordSent(records: NewMessage[]): Promise<void> {
    return this.runner.recordSentMany(records);
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

  async getMessage(r: m.GetMessageRequest): Promise<MessageInitShape<typeof m.GetMessageResponseSchema>> {
    const rec = await this.messages.get(r.tenantId, r.clientId, r.messageId);
    if (!rec) throw AppError.notFound('message_not_found', 'Message not found');
    return { message: present(rec) };
  }
}

/** What the message log shows of a send: its text, caption or body, else the template's name. */
function sendText(body: object): string | undefined {
  const b = body as Record<string, unknown>;
  for (const k of ['text', 'caption', 'body']) if (typeof b[k] === 'string' && b[k]) return b[k];
  return typeof b.template_name === 'string' ? `template ${b.template_name}` : undefined;
}

/** A user the provider could not block or unblock: its first error's code and reason, and every error as sent. */
function failedUser(f: { user: string; errors: unknown[] }) {
  const first = (f.errors[0] ?? {}) as { code?: unknown; message?: unknown; title?: unknown; error_data?: { details?: unknown } };
  const message = typeof first.message === 'string' ? first.message : typeof first.title === 'string' ? first.title : 'Failed';
  const details = typeof first.error_data?.details === 'string' ? first.error_data.details : undefined;
  return { user: f.user, code: typeof first.code === 'number' ? first.code : null, reason: details ? `${message}: ${details}` : message, errors: f.errors };
}

export function present(
  r: MessageRecord & { reactions?: Array<{ emoji: string; from: string; message_id: string; at: Date }> },
): MessageInitShape<typeof m.MessageRecordSchema> {
  return {
    id: r.id,
    clientId: r.client_id,
    tenantId: r.tenant_id,
    to: r.to ?? '',
    ...(r.recipient ? { recipient: r.recipient } : {}),
    api: r.api,
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
    direction: r.direction,
    contactId: r.contact_id ?? undefined,
    from: r.from ?? undefined,
    text: r.text ?? undefined,
    contentJson: r.content === null || r.content === undefined ? '' : JSON.stringify(r.content),
    contextId: r.context_id ?? undefined,
    reactions: (r.reactions ?? []).map((x) => ({ emoji: x.emoji, from: x.from, messageId: x.message_id, at: new Date(x.at).toISOString() })),
  };
}
