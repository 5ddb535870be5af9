import { POSITION_AT, type Db, type ListPosition, type Queryable } from '@gateway/store';

export interface TenantRow {
  id: string;
  name: string;
  email: string;
  plan: string;
  webhook_url: string | null;
  webhook_secret_enc: string;
  billing_customer_id: string | null;
  billing_subscription_id: string | null;
  previous_webhook_secret_enc: string | null;
  previous_secret_expires_at: Date | null;
  created_at: Date;
  active_wabas: number;
  /** Set while suspended (business/tenant-admin.ts). */
  suspended_at?: Date | null;
}

export interface ClientRow {
  id: string;
  tenant_id: string;
  display_name: string;
  external_id: string | null;
  webhook_url: string | null;
  business_account_id: string | null;
  phone_number_id: string | null;
  access_token_enc: string | null;
  provider_business_id: string | null;
  catalog_id: string | null;
  success_redirect_url: string | null;
  failure_redirect_url: string | null;
  is_active: boolean;
  webhook_registered: boolean;
  signup_status: string;
  signup_failure_reason: string | null;
  webhook_events: string[];
  stop_keywords: string[];
  webhook_status: 'active' | 'disabled';
  webhook_disabled_reason: string | null;
  webhook_disabled_at: Date | null;
  /** `auto` or `cloud_api` (migration 10). */
  marketing_messages: string;
  marketing_messages_onboarded: boolean;
  quality_rating: string | null;
  messaging_limit: string | null;
  throughput: number | null;
  status_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface ApiKeyRow {
  prefix: string;
  tenant_id: string;
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
  /** Scoped keys: null = full access / every client / no expiry. */
  scopes: string[] | null;
  client_ids: string[] | null;
  expires_at: Date | null;
}

/** A new key's restrictions (scoped keys, business/scopes); absent: a full-access key. */
export interface KeyLimits {
  scopes?: string[];
  clientIds?: string[];
  expiresAt?: Date;
}

export type NewTenant = Omit<TenantRow, 'created_at' | 'active_wabas' | 'previous_webhook_secret_enc' | 'previous_secret_expires_at'>;
export type NewClient = Omit<
  ClientRow,
  | 'created_at'
  | 'updated_at'
  | 'webhook_events'
  | 'webhook_status'
  | 'webhook_disabled_reason'
  | 'webhook_disabled_at'
  | 'marketing_messages'
  | 'marketing_messages_onboarded'
  | 'quality_rating'
  | 'messaging_limit'
  | 'throughput'
  | 'status_reason'
  | 'stop_keywords'
>;
export type ClientChanges = Partial<Omit<ClientRow, 'id' | 'tenant_id' | 'created_at' | 'updated_at'>>;

/**
 * Everything the tenant directory stores, behind one interface so another backend (e.g. MongoDB) can be
 * added beside the SQL one. `q` lets callers run several operations in one transaction.
 */
export interface DirectoryRepository {
  tx<T>(fn: (repo: DirectoryRepository, q: Queryable) => Promise<T>): Promise<T>;
  insertTenant(t: NewTenant): Promise<void>;
  getTenant(id: string): Promise<TenantRow | undefined>;
  setTenantWebhookUrl(id: string, url: string): Promise<boolean>;
  /** The current secret becomes the previous one (live until `previousExpiresAt`), `secretEnc` the current. */
  rotateTenantSecret(id: string, secretEnc: string, previousExpiresAt: Date): Promise<boolean>;
  insertApiKey(k: { prefix: string; tenantId: string; keyHash: string } & KeyLimits): Promise<void>;
  findApiKeyByHash(hash: string): Promise<ApiKeyRow | undefined>;
  touchApiKey(prefix: string): Promise<void>;
  listApiKeys(tenantId: string): Promise<ApiKeyRow[]>;
  revokeApiKey(tenantId: string, prefix: string): Promise<boolean>;
  insertClient(c: NewClient): Promise<ClientRow>;
  getClient(tenantId: string, id: string, forUpdate?: boolean): Promise<ClientRow | undefined>;
  getClientAnyTenant(id: string): Promise<ClientRow | undefined>;
  updateClient(tenantId: string, id: string, changes: ClientChanges): Promise<ClientRow | undefined>;
  /** Newest first, each with its list position (keyset: a client created meanwhile shifts nothing). */
  listClients(tenantId: string, limit: number, after?: ListPosition, only?: string[]): Promise<Array<ClientRow & { position_at: string }>>;
  findClientsByPhoneNumberId(phoneNumberId: string): Promise<ClientRow[]>;
  findClientsByBusinessAccountId(businessAccountId: string): Promise<ClientRow[]>;
}

export const TENANT_COLUMNS = `t.*, (SELECT count(DISTINCT c.business_account_id)::int FROM clients c
  WHERE c.tenant_id = t.id AND c.is_active AND c.business_account_id IS NOT NULL) AS active_wabas`;

const KEY_COLUMNS = 'prefix, tenant_id, created_at, revoked_at, last_used_at, scopes, client_ids, expires_at';

export class SqlDirectoryRepository implements DirectoryRepository {
  constructor(
    private readonly db: Db | null,
    private readonly q: Queryable,
  ) {}

  static open(db: Db): SqlDirectoryRepository {
    return new SqlDirectoryRepository(db, db);
  }

  tx<T>(fn: (repo: DirectoryRepository, q: Queryable) => Promise<T>): Promise<T> {
    if (!this.db) return fn(this, this.q); // already inside a transaction
    return this.db.tx((q) => fn(new SqlDirectoryRepository(null, q), q));
  }

  async insertTenant(t: NewTenant): Promise<void> {
    await this.q.query(
      `INSERT INTO tenants (id, name, email, plan, webhook_url, webhook_secret_enc, billing_customer_id, billing_subscription_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [t.id, t.name, t.email, t.plan, t.webhook_url, t.webhook_secret_enc, t.billing_customer_id, t.billing_subscription_id],
    );
  }

  async getTenant(id: string): Promise<TenantRow | undefined> {
    return (await this.q.query<TenantRow>(`SELECT ${TENANT_COLUMNS} FROM tenants t WHERE t.id = $1`, [id]))[0];
  }

  async setTenantWebhookUrl(id: string, url: string): Promise<boolean> {
    return (await this.q.query('UPDATE tenants SET webhook_url = $2 WHERE id = $1 RETURNING id', [id, url])).length > 0;
  }

  async rotateTenantSecret(id: string, secretEnc: string, previousExpiresAt: Date): Promise<boolean> {
    const rows = await this.q.query(
      `UPDATE tenants SET previous_webhook_secret_enc = webhook_secret_enc, previous_secret_expires_at = $3, webhook_secret_enc = $2
       WHERE id = $1 RETURNING id`,
      [id, secretEnc, previousExpiresAt],
    );
    return rows.length > 0;
  }

  async insertApiKey(k: { prefix: string; tenantId: string; keyHash: string } & KeyLimits): Promise<void> {
    await this.q.query('INSERT INTO api_keys (prefix, tenant_id, key_hash, scopes, client_ids, expires_at) VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6)', [
      k.prefix,
      k.tenantId,
      k.keyHash,
      k.scopes?.length ? JSON.stringify(k.scopes) : null,
      k.clientIds?.length ? JSON.stringify(k.clientIds) : null,
      k.expiresAt ?? null,
    ]);
  }

  async findApiKeyByHash(hash: string): Promise<ApiKeyRow | undefined> {
    return (await this.q.query<ApiKeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE key_hash = $1`, [hash]))[0];
  }

  async touchApiKey(prefix: string): Promise<void> {
    // coarse: at most one write a minute per key
    await this.q.query("UPDATE api_keys SET last_used_at = now() WHERE prefix = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')", [
      prefix,
    ]);
  }

  async listApiKeys(tenantId: string): Promise<ApiKeyRow[]> {
    return this.q.query<ApiKeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE tenant_id = $1 ORDER BY created_at`, [tenantId]);
  }

  async revokeApiKey(tenantId: string, prefix: string): Promise<boolean> {
    // one statement: the key and every dashboard session opened with it end together
    const rows = await this.q.query(
      `WITH k AS (UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE tenant_id = $1 AND prefix = $2 RETURNING prefix),
            s AS (UPDATE dashboard_sessions SET ended_at = now() WHERE api_key_prefix IN (SELECT prefix FROM k) AND ended_at IS NULL)
       SELECT prefix FROM k`,
      [tenantId, prefix],
    );
    return rows.length > 0;
  }

  async insertClient(c: NewClient): Promise<ClientRow> {
    const rows = await this.q.query<ClientRow>(
      `INSERT INTO clients (id, tenant_id, display_name, external_id, webhook_url, business_account_id, phone_number_id, access_token_enc,
         provider_business_id, catalog_id, success_redirect_url, failure_redirect_url, is_active, webhook_registered, signup_status, signup_failure_reason)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) RETURNING *`,
      [
        c.id,
        c.tenant_id,
        c.display_name,
        c.external_id,
        c.webhook_url,
        c.business_account_id,
        c.phone_number_id,
        c.access_token_enc,
        c.provider_business_id,
        c.catalog_id,
        c.success_redirect_url,
        c.failure_redirect_url,
        c.is_active,
        c.webhook_registered,
        c.signup_status,
        c.signup_failure_reason,
      ],
    );
    return rows[0];
  }

  async getClient(tenantId: string, id: string, forUpdate = false): Promise<ClientRow | undefined> {
    const lock = forUpdate ? ' FOR UPDATE' : '';
    return (await this.q.query<ClientRow>(`SELECT * FROM clients WHERE tenant_id = $1 AND id = $2${lock}`, [tenantId, id]))[0];
  }

  async getClientAnyTenant(id: string): Promise<ClientRow | undefined> {
    return (await this.q.query<ClientRow>('SELECT * FROM clients WHERE id = $1', [id]))[0];
  }

  async updateClient(tenantId: string, id: string, changes: ClientChanges): Promise<ClientRow | undefined> {
    const keys = Object.keys(changes) as Array<keyof ClientChanges>;
    if (!keys.length) return this.getClient(tenantId, id);
    const json = (k: string) => k === 'webhook_events' || k === 'stop_keywords';
    const sets = keys.map((k, i) => (json(k) ? `${k} = $${i + 3}::jsonb` : `${k} = $${i + 3}`)).join(', ');
    const rows = await this.q.query<ClientRow>(`UPDATE clients SET ${sets}, updated_at = now() WHERE tenant_id = $1 AND id = $2 RETURNING *`, [
      tenantId,
      id,
      ...keys.map((k) => (json(k) ? JSON.stringify(changes[k]) : changes[k])),
    ]);
    return rows[0];
  }

  async listClients(tenantId: string, limit: number, after?: ListPosition, only?: string[]): Promise<Array<ClientRow & { position_at: string }>> {
    const params: unknown[] = [tenantId, limit];
    let where = '';
    if (after) {
      params.push(after.at, after.id);
      where += ` AND (created_at, id) < ($${params.length - 1}::timestamptz, $${params.length})`;
    }
    if (only?.length) {
      params.push(JSON.stringify(only));
      where += ` AND id IN (SELECT jsonb_array_elements_text($${params.length}::jsonb))`;
    }
    return this.q.query<ClientRow & { position_at: string }>(
      `SELECT *, ${POSITION_AT} AS position_at FROM clients
       WHERE tenant_id = $1${where}
       ORDER BY created_at DESC, id DESC LIMIT $2`,
      params,
    );
  }

  findClientsByPhoneNumberId(phoneNumberId: string): Promise<ClientRow[]> {
    return this.q.query<ClientRow>('SELECT * FROM clients WHERE phone_number_id = $1', [phoneNumberId]);
  }

  findClientsByBusinessAccountId(businessAccountId: string): Promise<ClientRow[]> {
    return this.q.query<ClientRow>('SELECT * FROM clients WHERE business_account_id = $1 ORDER BY created_at', [businessAccountId]);
  }
}
