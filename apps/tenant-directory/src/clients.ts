import { randomUUID } from 'node:crypto';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { AppError } from '@gateway/errors';
import type { SecretBox } from '@gateway/crypto';
import type { tenantDirectory as td } from '@gateway/contracts';
import { buildEvent } from '@gateway/events';
import { directoryChangeMessage } from '@gateway/directory-changes';
import { enqueueEvent, enqueueMessages } from '@gateway/outbox';
import { decodePosition, encodePosition, isUniqueViolation, pageSize, takePage, type Queryable } from '@gateway/store';
import type { ClientChanges, ClientRow, DirectoryRepository } from './store/repository';

type ClientInit = MessageInitShape<typeof td.ClientSchema>;

export const SIGNUP_STATUSES = ['pending', 'in_progress', 'completed', 'failed'] as const;

const notFound = () => AppError.notFound('client_not_found', 'Client not found');

function phoneInUse(e: unknown): never {
  if (isUniqueViolation(e)) throw AppError.conflict('phone_number_in_use', 'This phone_number_id is already registered to a client');
  throw e;
}

export class Clients {
  constructor(
    private readonly repo: DirectoryRepository,
    private readonly box: SecretBox,
    private readonly publicBaseUrl: string,
    /** Resolves once what was committed to the outbox (events, change notices) is on the bus, or after a bounded wait. */
    private readonly published: () => Promise<void>,
    /** In the registration's transaction, before the insert: one more client must fit the tenant's plan (business/quotas.ts). */
    private readonly admitClient?: (q: Queryable, tenantId: string) => Promise<void>,
  ) {}

  async register(req: td.RegisterClientRequest): Promise<ClientInit> {
    if (!(await this.repo.getTenant(req.tenantId))) throw AppError.notFound('tenant_not_found', 'Tenant not found');
    // a client with its business account is active at once; without it, a pending embedded-signup placeholder
    const complete = Boolean(req.businessAccountId && req.phoneNumberId);
    const init = {
      id: randomUUID(),
      tenant_id: req.tenantId,
      display_name: req.displayName,
      external_id: req.externalId ?? null,
      webhook_url: req.webhookUrl ?? null,
      business_account_id: complete ? req.businessAccountId! : null,
      phone_number_id: complete ? req.phoneNumberId! : null,
      access_token_enc: complete && req.accessToken ? this.box.encrypt(req.accessToken) : null,
      provider_business_id: req.providerBusinessId ?? null,
      catalog_id: req.catalogId ?? null,
      success_redirect_url: req.successRedirectUrl ?? null,
      failure_redirect_url: req.failureRedirectUrl ?? null,
      is_active: complete,
      webhook_registered: false,
      signup_status: complete ? 'completed' : 'pending',
      signup_failure_reason: null,
    };
    // a client registered with its business account has completed onboarding: like a finished embedded
    // signup, it gets its one signup_completed event, written with the row (spec 6.4)
    const row = await this.repo
      .tx(async (repo, q) => {
        await this.admitClient?.(q, req.tenantId);
        const inserted = await repo.insertClient(init);
        if (complete) await enqueueEvent(q, signupCompletedEvent(inserted));
        // inbound routing may hold an empty answer for this phone number
        await notifyClientChange(q, undefined, inserted);
        return inserted;
      })
      .catch(phoneInUse);
    await this.published();
    return this.present(row);
  }

  async update(req: td.UpdateClientRequest): Promise<ClientInit> {
    const changes: ClientChanges = {};
    if (req.displayName !== undefined) changes.display_name = req.displayName;
    if (req.externalId !== undefined) changes.external_id = req.externalId;
    if (req.webhookUrl !== undefined) changes.webhook_url = req.webhookUrl;
    if (req.setWebhookEvents) changes.webhook_events = [...new Set(req.webhookEvents)];
    if (req.marketingMessages !== undefined) {
      if (req.marketingMessages !== 'auto' && req.marketingMessages !== 'cloud_api') {
        throw AppError.validation([
          {
            loc: ['body', 'marketing_messages'],
            msg: 'must be one of auto, cloud_api',
            type: 'enum',
            input: req.marketingMessages,
            ctx: { expected: 'auto, cloud_api' },
          },
        ]);
      }
      changes.marketing_messages = req.marketingMessages;
    }
    if (req.setStopKeywords) changes.stop_keywords = [...new Set(req.stopKeywords.map((k) => k.trim().toUpperCase()))];
    for (const f of req.clearFields) {
      if (f === 'external_id') changes.external_id = null;
      else if (f === 'webhook_url') changes.webhook_url = null;
      else throw AppError.validation([{ loc: ['body', f], msg: 'This field cannot be cleared', type: 'not_nullable', input: null, ctx: {} }]);
    }
    const row = await this.repo.tx(async (repo, q) => {
      const before = await repo.getClient(req.tenantId, req.clientId, true);
      if (!before) throw notFound();
      if (req.isActive !== undefined) {
        if (req.isActive && before.signup_status !== 'completed') {
          throw AppError.conflict('signup_not_completed', 'A client can be activated only once its signup is completed', {
            signup_status: before.signup_status,
          });
        }
        changes.is_active = req.isActive;
        // the tenant turning the client on again takes back a deactivation by the provider's updates
        if (req.isActive) changes.status_reason = null;
      }
      Object.assign(changes, webhookStatusChange(before, req, changes));
      const after = (await repo.updateClient(req.tenantId, req.clientId, changes))!;
      await notifyClientChange(q, before, after);
      return after;
    });
    await this.published();
    return this.present(row);
  }

  /**
   * The receiver is gone (410) or has failed for too long: the client's webhook is disabled, unless its target
   * is no longer `url` (the tenant changed it meanwhile) or it is disabled already.
   */
  async disableWebhook(clientId: string, url: string, reason: string, tenantUrl: (tenantId: string) => Promise<string | null>): Promise<boolean> {
    const disabled = await this.repo.tx(async (repo, q) => {
      const found = await repo.getClientAnyTenant(clientId);
      const before = found && (await repo.getClient(found.tenant_id, clientId, true));
      if (!before || before.webhook_status === 'disabled') return false;
      const target = before.webhook_url ?? (await tenantUrl(before.tenant_id));
      if (target !== url) return false;
      const after = (await repo.updateClient(before.tenant_id, clientId, {
        webhook_status: 'disabled',
        webhook_disabled_reason: reason,
        webhook_disabled_at: new Date(),
      }))!;
      await notifyClientChange(q, before, after);
      return true;
    });
    if (disabled) await this.published();
    return disabled;
  }

  async get(tenantId: string, clientId: string): Promise<ClientInit> {
    return this.present(await this.row(tenantId, clientId));
  }

  /** A deleted client (business/ClientLifecycleService): its row goes, its encrypted token with it; caches follow the notice. */
  async remove(tenantId: string, clientId: string): Promise<void> {
    await this.repo.tx(async (repo, q) => {
      const before = await repo.getClient(tenantId, clientId, true);
      if (!before) throw notFound();
      await q.query('DELETE FROM clients WHERE tenant_id = $1 AND id = $2', [tenantId, clientId]);
      await notifyClientChange(q, before, before);
    });
    await this.published();
  }

  async row(tenantId: string, clientId: string): Promise<ClientRow> {
    const row = await this.repo.getClient(tenantId, clientId);
    if (!row) throw notFound();
    return row;
  }

  async list(tenantId: string, limit: number, cursor?: string, only?: string[]) {
    const size = pageSize(limit);
    const rows = await this.repo.listClients(tenantId, size + 1, cursor ? decodePosition(cursor, CLIENT_ID) : undefined, only);
    const { page, nextCursor } = takePage(rows, size, (last) => encodePosition({ at: last.position_at, id: last.id }));
    return { clients: page.map(({ position_at: _position, ...r }) => this.present(r)), nextCursor };
  }

  async credentials(tenantId: string, clientId: string) {
    const row = await this.row(tenantId, clientId);
    return { client: this.present(row), accessToken: row.access_token_enc ? this.box.decrypt(row.access_token_enc) : '' };
  }

  async byPhoneNumberId(phoneNumberId: string) {
    return (await this.repo.findClientsByPhoneNumberId(phoneNumberId)).map((r) => this.present(r));
  }

  async byBusinessAccountId(id: string) {
    return (await this.repo.findClientsByBusinessAccountId(id)).map((r) => this.present(r));
  }

  /** Internal only (signup service): no tenant scope, so never reachable from a tenant's request. */
  async byId(clientId: string): Promise<ClientInit> {
    const row = await this.repo.getClientAnyTenant(clientId);
    if (!row) throw notFound();
    return this.present(row);
  }

  async setSignupStatus(req: td.SetClientSignupStatusRequest): Promise<ClientInit> {
    if (req.signupStatus !== 'in_progress' && req.signupStatus !== 'failed') {
      throw AppError.validation([{ loc: ['signup_status'], msg: 'must be in_progress or failed', type: 'enum', input: req.signupStatus, ctx: {} }]);
    }
    const updated = await this.repo.tx(async (repo, q) => {
      const row = await repo.getClient(req.tenantId, req.clientId, true);
      if (!row) throw notFound();
      if (row.signup_status === 'completed') throw AppError.conflict('signup_already_completed', 'Signup is already completed for this client');
      const after = (await repo.updateClient(req.tenantId, req.clientId, {
        signup_status: req.signupStatus,
        signup_failure_reason: req.signupStatus === 'failed' ? (req.failureReason ?? 'unknown') : null,
      }))!;
      await notifyClientChange(q, row, after);
      return after;
    });
    await this.published();
    return this.present(updated);
  }

  /** State change and signup_completed event in one transaction; a second completion changes nothing. */
  async completeSignup(req: td.CompleteClientSignupRequest) {
    const result = await this.repo
      .tx(async (repo, q) => {
        const row = await repo.getClient(req.tenantId, req.clientId, true);
        if (!row) throw notFound();
        if (row.signup_status === 'completed') return { client: this.present(row), completedNow: false, eventId: '' };
        const updated = (await repo.updateClient(req.tenantId, req.clientId, {
          business_account_id: req.businessAccountId,
          phone_number_id: req.phoneNumberId,
          access_token_enc: this.box.encrypt(req.accessToken),
          provider_business_id: req.providerBusinessId ?? null,
          catalog_id: req.catalogId ?? null,
          webhook_registered: req.webhookRegistered,
          is_active: true,
          signup_status: 'completed',
          signup_failure_reason: null,
        }))!;
        const event = signupCompletedEvent(updated);
        await enqueueEvent(q, event);
        await notifyClientChange(q, row, updated);
        return { client: this.present(updated), completedNow: true, eventId: event.id };
      })
      .catch(phoneInUse);
    if (result.completedNow) await this.published();
    return result;
  }

  async deliveryTarget(
    clientId: string,
    tenantSecret: (tenantId: string) => Promise<{ url: string | null; secret: string; previous?: { secret: string; expiresAt: Date } }>,
  ) {
    const row = await this.repo.getClientAnyTenant(clientId);
    if (!row) throw notFound();
    const tenant = await tenantSecret(row.tenant_id);
    return {
      tenantId: row.tenant_id,
      clientId: row.id,
      externalId: row.external_id ?? undefined,
      clientWebhookUrl: row.webhook_url ?? undefined,
      tenantWebhookUrl: tenant.url ?? undefined,
      webhookSecret: tenant.secret,
      previousWebhookSecret: tenant.previous?.secret,
      previousSecretExpiresAt: tenant.previous?.expiresAt.toISOString(),
      webhookEvents: row.webhook_events,
      webhookStatus: row.webhook_status,
      webhookDisabledReason: row.webhook_disabled_reason ?? undefined,
    };
  }

  present(r: ClientRow): ClientInit {
    return {
      id: r.id,
      tenantId: r.tenant_id,
      isActive: r.is_active,
      businessAccountId: r.business_account_id ?? undefined,
      phoneNumberId: r.phone_number_id ?? undefined,
      displayName: r.display_name,
      externalId: r.external_id ?? undefined,
      webhookUrl: r.webhook_url ?? undefined,
      webhookRegistered: r.webhook_registered,
      signupStatus: r.signup_status,
      catalogId: r.catalog_id ?? undefined,
      providerBusinessId: r.provider_business_id ?? undefined,
      successRedirectUrl: r.success_redirect_url ?? undefined,
      failureRedirectUrl: r.failure_redirect_url ?? undefined,
      createdAt: r.created_at.toISOString(),
      updatedAt: r.updated_at.toISOString(),
      embedSignupUrl: `${this.publicBaseUrl}/signup/${r.id}`,
      signupFailureReason: r.signup_failure_reason ?? undefined,
      webhookEvents: r.webhook_events,
      webhookStatus: r.webhook_status,
      webhookDisabledReason: r.webhook_disabled_reason ?? undefined,
      webhookDisabledAt: r.webhook_disabled_at?.toISOString(),
      marketingMessages: r.marketing_messages,
      marketingMessagesOnboarded: r.marketing_messages_onboarded,
      qualityRating: r.quality_rating ?? undefined,
      messagingLimit: r.messaging_limit ?? undefined,
      throughput: r.throughput ?? undefined,
      statusReason: r.status_reason ?? undefined,
      stopKeywords: r.stop_keywords,
    };
  }

  /**
   * What the provider's account webhooks say of a client's number (the messaging service reads them): only the
   * fields given change; a deactivation keeps its reason. Nothing changed: no write and no change notice.
   */
  async applyProviderAccountUpdate(req: td.ApplyProviderAccountUpdateRequest): Promise<{ client: ClientInit; changed: boolean }> {
    const result = await this.repo.tx(async (repo, q) => {
      const before = await repo.getClient(req.tenantId, req.clientId, true);
      if (!before) throw notFound();
      const changes: ClientChanges = {};
      if (req.marketingMessagesOnboarded !== undefined && req.marketingMessagesOnboarded !== before.marketing_messages_onboarded)
        changes.marketing_messages_onboarded = req.marketingMessagesOnboarded;
      if (req.qualityRating !== undefined && req.qualityRating !== before.quality_rating) changes.quality_rating = req.qualityRating;
      if (req.messagingLimit !== undefined && req.messagingLimit !== before.messaging_limit) changes.messaging_limit = req.messagingLimit;
      if (req.throughput !== undefined && req.throughput !== before.throughput) changes.throughput = req.throughput;
      if (req.deactivateReason !== undefined && (before.is_active || before.status_reason !== req.deactivateReason)) {
        changes.is_active = false;
        changes.status_reason = req.deactivateReason;
      }
      if (!Object.keys(changes).length) return { row: before, changed: false };
      const after = (await repo.updateClient(req.tenantId, req.clientId, changes))!;
      await notifyClientChange(q, before, after);
      return { row: after, changed: true };
    });
    if (result.changed) await this.published();
    return { client: this.present(result.row), changed: result.changed };
  }
}

/**
 * A disabled webhook is enabled again by a new URL or by `webhook_status: "active"`; a tenant may also
 * disable it on purpose.
 */
function webhookStatusChange(before: ClientRow, req: td.UpdateClientRequest, changes: ClientChanges): ClientChanges {
  const enable = { webhook_status: 'active' as const, webhook_disabled_reason: null, webhook_disabled_at: null };
  if (req.webhookStatus === 'disabled') {
    return before.webhook_status === 'disabled'
      ? {}
      : { webhook_status: 'disabled', webhook_disabled_reason: 'disabled by the tenant', webhook_disabled_at: new Date() };
  }
  if (req.webhookStatus === 'active') return enable;
  if (req.webhookStatus !== undefined) {
    throw AppError.validation([
      { loc: ['body', 'webhook_status'], msg: 'must be active or disabled', type: 'enum', input: req.webhookStatus, ctx: { expected: ['active', 'disabled'] } },
    ]);
  }
  const newUrl = changes.webhook_url !== undefined && changes.webhook_url !== before.webhook_url;
  return before.webhook_status === 'disabled' && newUrl ? enable : {};
}

/** The change notice of a client: its ids before and after name the inbound routes that may hold it. */
async function notifyClientChange(q: Queryable, before: ClientRow | undefined, after: ClientRow): Promise<void> {
  const ids = (k: 'phone_number_id' | 'business_account_id') => [...new Set([before?.[k], after[k]].filter((v): v is string => Boolean(v)))];
  await enqueueMessages(q, [
    directoryChangeMessage({
      kind: 'client',
      tenantId: after.tenant_id,
      clientId: after.id,
      phoneNumberIds: ids('phone_number_id'),
      businessAccountIds: ids('business_account_id'),
    }),
  ]);
}

/** Client ids are UUIDs (`randomUUID`); a cursor naming anything else was never issued. */
const CLIENT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The one signup_completed event of a client (spec 6.2); its id is fixed per client, so it is never emitted twice. */
function signupCompletedEvent(row: ClientRow) {
  return buildEvent({
    type: 'signup_completed',
    tenantId: row.tenant_id,
    clientId: row.id,
    externalId: row.external_id,
    id: `signup_completed:${row.id}`,
    payload: {
      business_account_id: row.business_account_id,
      phone_number_id: row.phone_number_id,
      catalog_id: row.catalog_id,
      provider_business_id: row.provider_business_id,
      signup_status: 'completed',
    },
  });
}
