import { randomUUID } from 'node:crypto';
import { AppError } from '@gateway/errors';
import { newWebhookSecret, randomToken, sha256Hex, type SecretBox } from '@gateway/crypto';
import { directoryChangeMessage, type DirectoryChange } from '@gateway/directory-changes';
import { enqueueMessages } from '@gateway/outbox';
import type { tenantDirectory as td } from '@gateway/contracts';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { ApiKeyRow, DirectoryRepository, KeyLimits, TenantRow } from './store/repository';
import { FALLBACK_PLAN, type PlanCatalogue } from './business/plans';

type TenantInit = MessageInitShape<typeof td.TenantSchema>;

const DEFAULT_PLAN = FALLBACK_PLAN;

/** A plan outside the catalogue (PLANS) is a 422 naming `plan`. */
export function checkPlan(plans: PlanCatalogue, plan: string): void {
  if (plans[plan]) return;
  const allowed = Object.keys(plans);
  throw AppError.validation([
    { loc: ['body', 'plan'], msg: `Unknown plan: one of ${allowed.join(', ')}`, type: 'any.only', input: plan, ctx: { valids: allowed } },
  ]);
}

/**
 * API keys: "gw_<8 chars>_<43 chars>" — 32 random bytes of secret, a visible prefix ("gw_<8 chars>") to
 * list and revoke by, and only a SHA-256 of the whole key stored (a fast hash is right for 256-bit keys).
 */
export function mintApiKey(): { key: string; prefix: string; hash: string } {
  const prefix = `gw_${randomToken(6).replace(/[-_]/g, 'x').slice(0, 8)}`;
  const key = `${prefix}_${randomToken(32)}`;
  return { key, prefix, hash: sha256Hex(key) };
}

export interface TenantsOptions {
  /** How long the secret before a rotation keeps signing deliveries. */
  secretOverlapMs: number;
  /** Resolves once the change notices committed so far are on the bus (or after a bounded wait). */
  published: () => Promise<void>;
  /** The plan catalogue (PLANS): a tenant's plan must be one of it. */
  plans: PlanCatalogue;
}

/**
 * Tenants, their API keys and webhook secrets. Every change that other services cache (webhook URL, secret,
 * a revoked key) writes a change notice in its transaction and is answered only once the notice is out.
 */
export class Tenants {
  constructor(
    private readonly repo: DirectoryRepository,
    private readonly box: SecretBox,
    private readonly opts: TenantsOptions,
  ) {}

  private async changed<T>(change: DirectoryChange, fn: (repo: DirectoryRepository) => Promise<T>): Promise<T> {
    const result = await this.repo.tx(async (repo, q) => {
      const r = await fn(repo);
      await enqueueMessages(q, [directoryChangeMessage(change)]);
      return r;
    });
    await this.opts.published();
    return result;
  }

  async create(input: { name: string; email: string; plan?: string; webhookUrl?: string; billingCustomerId?: string; billingSubscriptionId?: string }) {
    if (input.plan !== undefined) checkPlan(this.opts.plans, input.plan);
    const id = randomUUID();
    const key = mintApiKey();
    await this.repo.tx(async (repo) => {
      await repo.insertTenant({
        id,
        name: input.name,
        email: input.email,
        plan: input.plan ?? DEFAULT_PLAN,
        webhook_url: input.webhookUrl ?? null,
        webhook_secret_enc: this.box.encrypt(newWebhookSecret()),
        billing_customer_id: input.billingCustomerId ?? null,
        billing_subscription_id: input.billingSubscriptionId ?? null,
      });
      await repo.insertApiKey({ prefix: key.prefix, tenantId: id, keyHash: key.hash });
    });
    return { tenant: await this.get(id), apiKey: key.key };
  }

  async get(id: string): Promise<TenantInit> {
    const row = await this.repo.getTenant(id);
    if (!row) throw AppError.notFound('tenant_not_found', 'Tenant not found');
    return this.present(row);
  }

  async row(id: string): Promise<TenantRow> {
    const row = await this.repo.getTenant(id);
    if (!row) throw AppError.notFound('tenant_not_found', 'Tenant not found');
    return row;
  }

  /** The secrets that sign deliveries now: the current one, and the previous one until it expires. */
  signingSecrets(row: TenantRow): { current: string; previous?: { secret: string; expiresAt: Date } } {
    const current = this.box.decrypt(row.webhook_secret_enc);
    const expiresAt = row.previous_secret_expires_at;
    if (!row.previous_webhook_secret_enc || !expiresAt || expiresAt.getTime() <= Date.now()) return { current };
    return { current, previous: { secret: this.box.decrypt(row.previous_webhook_secret_enc), expiresAt } };
  }

  async setWebhookUrl(id: string, url: string): Promise<TenantInit> {
    const found = await this.changed({ kind: 'tenant', tenantId: id }, (repo) => repo.setTenantWebhookUrl(id, url));
    if (!found) throw AppError.notFound('tenant_not_found', 'Tenant not found');
    return this.get(id);
  }

  /**
   * A new secret; the one it replaces keeps signing (a second webhook-signature entry) for the overlap, so
   * receivers can switch whenever they like within it. Rotating again ends the earlier overlap.
   */
  async rotateWebhookSecret(id: string): Promise<{ webhookSecret: string; previousSecretExpiresAt: string }> {
    const secret = newWebhookSecret();
    const expiresAt = new Date(Date.now() + this.opts.secretOverlapMs);
    const found = await this.changed({ kind: 'tenant', tenantId: id }, (repo) => repo.rotateTenantSecret(id, this.box.encrypt(secret), expiresAt));
    if (!found) throw AppError.notFound('tenant_not_found', 'Tenant not found');
    return { webhookSecret: secret, previousSecretExpiresAt: expiresAt.toISOString() };
  }

  async createApiKey(tenantId: string, limits: KeyLimits = {}) {
    await this.row(tenantId);
    for (const clientId of limits.clientIds ?? []) {
      if (!(await this.repo.getClient(tenantId, clientId))) {
        throw AppError.validation([{ loc: ['body', 'client_ids'], msg: 'Unknown client', type: 'client_not_found', input: clientId, ctx: {} }]);
      }
    }
    const key = mintApiKey();
    await this.repo.insertApiKey({ prefix: key.prefix, tenantId, keyHash: key.hash, ...limits });
    return { apiKey: key.key, prefix: key.prefix };
  }

  async revokeApiKey(tenantId: string, prefix: string): Promise<void> {
    if (!(await this.changed({ kind: 'api_key', tenantId }, (repo) => repo.revokeApiKey(tenantId, prefix))))
      throw AppError.notFound('api_key_not_found', 'API key not found');
  }

  async listApiKeys(tenantId: string) {
    await this.row(tenantId);
    return (await this.repo.listApiKeys(tenantId)).map(presentKey);
  }

  async authenticate(apiKey: string): Promise<{ tenantId: string; prefix: string }> {
    const found = apiKey.length <= 256 ? await this.repo.findApiKeyByHash(sha256Hex(apiKey)) : undefined;
    if (!found || found.revoked_at) throw new AppError('unauthenticated', 'invalid_api_key', 'Invalid API key');
    if (found.expires_at && found.expires_at.getTime() <= Date.now()) throw new AppError('unauthenticated', 'api_key_expired', 'This API key has expired');
    // a suspended tenant's key opens nothing (its requests are refused by the edge's Admit as well)
    if ((await this.repo.getTenant(found.tenant_id))?.suspended_at)
      throw new AppError('forbidden', 'tenant_suspended', 'This tenant is suspended: ask the operator');
    void this.repo.touchApiKey(found.prefix).catch(() => undefined);
    return { tenantId: found.tenant_id, prefix: found.prefix };
  }

  present(row: TenantRow): TenantInit {
    return {
      id: row.id,
      name: row.name,
      email: row.email,
      plan: row.plan,
      activeWabas: row.active_wabas,
      webhookUrl: row.webhook_url ?? undefined,
      webhookSecret: this.box.decrypt(row.webhook_secret_enc),
      billingCustomerId: row.billing_customer_id ?? undefined,
      billingSubscriptionId: row.billing_subscription_id ?? undefined,
      createdAt: row.created_at.toISOString(),
      suspendedAt: row.suspended_at?.toISOString(),
    };
  }
}

function presentKey(k: ApiKeyRow) {
  return {
    prefix: k.prefix,
    createdAt: k.created_at.toISOString(),
    revokedAt: k.revoked_at?.toISOString(),
    lastUsedAt: k.last_used_at?.toISOString(),
    scopes: k.scopes ?? [],
    clientIds: k.client_ids ?? [],
    expiresAt: k.expires_at?.toISOString(),
  };
}
