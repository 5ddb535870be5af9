import { outboxMigration } from '@gateway/outbox';
import type { Migration } from '@gateway/store';

export const migrations: Migration[] = [
  {
    version: 1,
    name: 'tenants_keys_clients',
    sql: `
      CREATE TABLE tenants (
        id text PRIMARY KEY,
        name text NOT NULL,
        email text NOT NULL,
        plan text NOT NULL,
        webhook_url text,
        webhook_secret_enc text NOT NULL,
        billing_customer_id text,
        billing_subscription_id text,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE api_keys (
        prefix text PRIMARY KEY,
        tenant_id text NOT NULL REFERENCES tenants(id),
        key_hash text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz,
        last_used_at timestamptz
      );
      CREATE INDEX api_keys_tenant ON api_keys (tenant_id);
      CREATE TABLE clients (
        id text PRIMARY KEY,
        tenant_id text NOT NULL REFERENCES tenants(id),
        display_name text NOT NULL,
        external_id text,
        webhook_url text,
        business_account_id text,
        phone_number_id text,
        access_token_enc text,
        provider_business_id text,
        catalog_id text,
        success_redirect_url text,
        failure_redirect_url text,
        is_active boolean NOT NULL,
        webhook_registered boolean NOT NULL DEFAULT false,
        signup_status text NOT NULL,
        signup_failure_reason text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX clients_tenant_created ON clients (tenant_id, created_at DESC, id DESC);
      CREATE UNIQUE INDEX clients_phone_number ON clients (phone_number_id) WHERE phone_number_id IS NOT NULL;
      CREATE INDEX clients_business_account ON clients (business_account_id) WHERE business_account_id IS NOT NULL;
    `,
  },
  outboxMigration(2),
  {
    version: 3,
    name: 'webhook_rotation_filters_health',
    sql: `
      -- the secret before the last rotation keeps signing (beside the new one) until it expires
      ALTER TABLE tenants ADD COLUMN previous_webhook_secret_enc text;
      ALTER TABLE tenants ADD COLUMN previous_secret_expires_at timestamptz;
      -- event types delivered to the client's webhook; [] = every type
      ALTER TABLE clients ADD COLUMN webhook_events jsonb NOT NULL DEFAULT '[]'::jsonb;
      ALTER TABLE clients ADD COLUMN webhook_status text NOT NULL DEFAULT 'active';
      ALTER TABLE clients ADD COLUMN webhook_disabled_reason text;
      ALTER TABLE clients ADD COLUMN webhook_disabled_at timestamptz;
    `,
  },
  {
    version: 4,
    name: 'dashboard_sessions',
    sql: `
      CREATE TABLE dashboard_sessions (
        token_hash text PRIMARY KEY,
        tenant_id text NOT NULL REFERENCES tenants(id),
        api_key_prefix text NOT NULL REFERENCES api_keys(prefix),
        csrf_token text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        ended_at timestamptz
      );
      CREATE INDEX dashboard_sessions_key ON dashboard_sessions (api_key_prefix) WHERE ended_at IS NULL;
      CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions (expires_at);
    `,
  },
  {
    version: 10,
    name: 'client_provider_state',
    // What the provider's 2026 account webhooks say of a client's number (provider-2026.md §3, §5, §8): the
    // Marketing Messages API routing choice and onboarding, quality, messaging limit, throughput, and why the
    // provider's updates deactivated it.
    sql: `
      ALTER TABLE clients ADD COLUMN marketing_messages text NOT NULL DEFAULT 'auto';
      ALTER TABLE clients ADD COLUMN marketing_messages_onboarded boolean NOT NULL DEFAULT false;
      ALTER TABLE clients ADD COLUMN quality_rating text;
      ALTER TABLE clients ADD COLUMN messaging_limit text;
      ALTER TABLE clients ADD COLUMN throughput integer;
      ALTER TABLE clients ADD COLUMN status_reason text;
    `,
  },
  {
    version: 40,
    name: 'plans_quotas_suspension',
    sql: `
      -- quotas and rate limits (business/quotas.ts): one row per tenant, limit and fixed window, shared by every edge
      CREATE TABLE usage_counters (
        tenant_id text NOT NULL,
        name text NOT NULL,
        window_start timestamptz NOT NULL,
        used integer NOT NULL,
        PRIMARY KEY (tenant_id, name, window_start)
      );
      CREATE INDEX usage_counters_window ON usage_counters (window_start);
      ALTER TABLE tenants ADD COLUMN suspended_at timestamptz;
      -- when the last suspension began: its held events are replayed on resume
      ALTER TABLE tenants ADD COLUMN last_suspended_at timestamptz;
    `,
  },
  {
    version: 41,
    name: 'scoped_api_keys',
    sql: `
      -- NULL scopes / client_ids: a full-access key (every key made before scopes existed)
      ALTER TABLE api_keys ADD COLUMN scopes jsonb;
      ALTER TABLE api_keys ADD COLUMN client_ids jsonb;
      ALTER TABLE api_keys ADD COLUMN expires_at timestamptz;
    `,
  },
  {
    version: 42,
    name: 'audit_log',
    sql: `
      -- one row per state-changing request of a tenant or an operator (business/audit.ts); never a body or a secret
      CREATE TABLE audit_log (
        id text PRIMARY KEY,
        tenant_id text,
        actor_kind text NOT NULL,
        actor text NOT NULL,
        action text NOT NULL,
        method text NOT NULL,
        route text NOT NULL,
        target_id text,
        status integer NOT NULL,
        code text,
        request_id text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX audit_log_tenant ON audit_log (tenant_id, created_at DESC, id DESC);
      CREATE INDEX audit_log_created ON audit_log (created_at DESC, id DESC);
    `,
  },
  {
    version: 50,
    name: 'stop_keywords',
    // Campaigns (issue 26): the texts that put a sender on the client's opt-out list (the messaging service's).
    sql: `ALTER TABLE clients ADD COLUMN stop_keywords jsonb NOT NULL DEFAULT '["STOP", "UNSUBSCRIBE"]'::jsonb;`,
  },
];
