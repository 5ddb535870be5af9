import { outboxMigration } from '@gateway/outbox';
import type { Migration } from '@gateway/store';

export const migrations: Migration[] = [
  {
    version: 1,
    name: 'messages_idempotency',
    sql: `
      CREATE TABLE messages (
        id text PRIMARY KEY,
        tenant_id text NOT NULL,
        client_id text NOT NULL,
        to_number text NOT NULL,
        kind text NOT NULL,
        status text NOT NULL,
        status_history jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX messages_client_created ON messages (client_id, created_at DESC);
      CREATE TABLE idempotency_keys (
        tenant_id text NOT NULL,
        key text NOT NULL,
        request_hash text NOT NULL,
        operation text NOT NULL,
        -- 'in_progress' while its owner runs; 'completed' once the outcome is stored
        state text NOT NULL,
        -- identifies the owner of an in-progress claim, so only it can complete or release it
        claim_token text NOT NULL,
        outcome jsonb,
        claimed_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, key)
      );
      CREATE INDEX idempotency_keys_expires ON idempotency_keys (expires_at);
    `,
  },
  {
    version: 2,
    name: 'early_statuses',
    // A status update can overtake the send it belongs to (the provider calls the webhook before our insert
    // commits). It is kept here and applied by the insert; rows of messages never sent through the gateway
    // are purged after a day.
    sql: `
      CREATE TABLE early_statuses (
        message_id text NOT NULL,
        status text NOT NULL,
        at timestamptz NOT NULL,
        errors jsonb,
        received_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (message_id, status, at)
      );
      CREATE INDEX early_statuses_received ON early_statuses (received_at);
    `,
  },
  {
    version: 3,
    name: 'status_details',
    // What the provider's status updates say besides the status: the errors of a failure, the conversation
    // (id, origin, expiry) and the pricing (category, billable); each history entry keeps its own as well.
    sql: `
      ALTER TABLE messages ADD COLUMN errors jsonb;
      ALTER TABLE messages ADD COLUMN conversation jsonb;
      ALTER TABLE messages ADD COLUMN pricing jsonb;
      ALTER TABLE early_statuses ADD COLUMN conversation jsonb;
      ALTER TABLE early_statuses ADD COLUMN pricing jsonb;
    `,
  },
  {
    version: 4,
    name: 'templates',
    // The local copy of each client's message templates (the provider owns them): one row per client and
    // template, as with flows, since two clients may share a business account. Status webhooks update it by
    // business account and template id; a sync replaces a client's rows with the provider's list.
    sql: `
      CREATE TABLE templates (
        client_id text NOT NULL,
        template_id text NOT NULL,
        tenant_id text NOT NULL,
        business_account_id text NOT NULL,
        name text NOT NULL,
        language text NOT NULL,
        category text NOT NULL,
        status text NOT NULL,
        components jsonb NOT NULL,
        rejected_reason text,
        quality text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (client_id, template_id)
      );
      CREATE INDEX templates_client_name ON templates (client_id, name, language, template_id);
      CREATE INDEX templates_account ON templates (business_account_id, template_id);
    `,
  },
  {
    version: 5,
    name: 'template_parameter_format',
    // Named-parameter templates (provider-2026.md §6.1): how a send names its parameters depends on it. Rows of
    // before are the provider's default, POSITIONAL, until a sync or status update brings the provider's value.
    sql: `ALTER TABLE templates ADD COLUMN parameter_format text NOT NULL DEFAULT 'POSITIONAL';`,
  },
  {
    version: 10,
    name: 'message_recipient_and_api',
    // Sends to a business-scoped user id (provider-2026.md §2.2) may have no phone number: `to_number` becomes
    // optional and `recipient` keeps the BSUID. `api` is the endpoint used: the Cloud API's /messages or the
    // Marketing Messages API's /marketing_messages (§3); rows of before went to /messages.
    sql: `
      ALTER TABLE messages ALTER COLUMN to_number DROP NOT NULL;
      ALTER TABLE messages ADD COLUMN recipient text;
      ALTER TABLE messages ADD COLUMN api text NOT NULL DEFAULT 'cloud_api';
    `,
  },
  {
    version: 20,
    name: 'calls',
    // The record of each call (provider-2026.md §7): what the provider's calls webhooks and the tenant's actions
    // said about it, appended as they arrive (in any order, repeats included) and read as one timeline
    // (calls/record.ts). One row per client and call id; the events list is bounded.
    sql: `
      CREATE TABLE calls (
        client_id text NOT NULL,
        call_id text NOT NULL,
        tenant_id text NOT NULL,
        direction text NOT NULL DEFAULT '',
        user_id text NOT NULL DEFAULT '',
        events jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (client_id, call_id)
      );
      CREATE INDEX calls_client_created ON calls (client_id, created_at DESC, call_id DESC);
      CREATE INDEX calls_call_id ON calls (call_id);
    `,
  },
  {
    version: 40,
    name: 'messages_tenant_created',
    // GET /api/usage counts a tenant's sends per day (issue 28)
    sql: `CREATE INDEX messages_tenant_created ON messages (tenant_id, created_at);`,
  },
  {
    version: 50,
    name: 'campaigns',
    // Campaigns (issue 26): a template to many recipients of a client. Recipients are claimed by any replica
    // (claimed_by, claimed_until: a lease); one marked 'sending' before its provider call is never sent again
    // (a lease that runs out there makes it 'unknown'). number_pace holds each business number's next free send
    // slot, shared by every replica; opt_outs is each client's suppression list.
    sql: `
      CREATE TABLE campaigns (
        id text PRIMARY KEY,
        tenant_id text NOT NULL,
        client_id text NOT NULL,
        name text NOT NULL,
        template_name text NOT NULL,
        lang text NOT NULL,
        category text NOT NULL,
        components jsonb NOT NULL,
        status text NOT NULL,
        schedule_at timestamptz,
        rate_per_second integer,
        next_seq bigint NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz,
        completed_at timestamptz,
        last_send_at timestamptz
      );
      CREATE INDEX campaigns_client_created ON campaigns (client_id, created_at DESC, id DESC);
      CREATE INDEX campaigns_status ON campaigns (status);
      CREATE TABLE campaign_recipients (
        campaign_id text NOT NULL,
        seq bigint NOT NULL,
        to_user text NOT NULL,
        params jsonb,
        status text NOT NULL,
        message_id text,
        error_code text,
        reason text,
        claimed_by text,
        claimed_until timestamptz,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (campaign_id, seq),
        UNIQUE (campaign_id, to_user)
      );
      CREATE INDEX campaign_recipients_status ON campaign_recipients (campaign_id, status, seq);
      CREATE INDEX campaign_recipients_message ON campaign_recipients (message_id);
      CREATE TABLE opt_outs (
        client_id text NOT NULL,
        user_id text NOT NULL,
        source text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (client_id, user_id)
      );
      CREATE INDEX opt_outs_client_created ON opt_outs (client_id, created_at DESC, user_id DESC);
      CREATE TABLE number_pace (
        phone_number_id text PRIMARY KEY,
        next_at timestamptz NOT NULL,
        factor double precision NOT NULL DEFAULT 1
      );
    `,
  },
  // the campaign_status events, published once their campaign's change commits
  outboxMigration(51),
  {
    version: 52,
    name: 'campaign_messaging_limit',
    // The business portfolio's messaging limit (issue 26; provider-2026.md §5): portfolio_reach holds each user a
    // campaign reached per portfolio and when last (the rolling 24-hour window of unique users); portfolio_windows
    // one row per portfolio, locked while a batch takes its share of the window, so replicas count one after the
    // other. A recipient beyond the limit is 'deferred' until deferred_until.
    sql: `
      CREATE TABLE portfolio_reach (
        portfolio_id text NOT NULL,
        user_id text NOT NULL,
        last_at timestamptz NOT NULL,
        PRIMARY KEY (portfolio_id, user_id)
      );
      CREATE INDEX portfolio_reach_window ON portfolio_reach (portfolio_id, last_at);
      CREATE TABLE portfolio_windows (portfolio_id text PRIMARY KEY);
      ALTER TABLE campaign_recipients ADD COLUMN deferred_until timestamptz;
      CREATE INDEX campaign_recipients_deferred ON campaign_recipients (deferred_until) WHERE status = 'deferred';
    `,
  },
  {
    version: 53,
    name: 'opt_out_signal_times',
    // Opt-out signals (user_preferences stop/resume, stop keywords) are applied by the provider's timestamp: the
    // last one applied per client and user, so an older signal handled later changes nothing (issue 26).
    sql: `
      CREATE TABLE opt_out_signals (
        client_id text NOT NULL,
        user_id text NOT NULL,
        value text NOT NULL,
        signal_at timestamptz NOT NULL,
        PRIMARY KEY (client_id, user_id)
      );
    `,
  },
  {
    version: 30,
    name: 'conversations',
    // Issue 27: the message log holds inbound messages too (direction 'in'; kind = the provider's message type),
    // each message names its contact, and contacts keep every identity the provider gave (phone wa_id, BSUID
    // user_id; old ones stay as aliases after user_changed_number / user_changed_user_id, so history stays on one
    // contact). Columns are additive: outbound rows of before are direction 'out' without a contact.
    sql: `
      ALTER TABLE messages ADD COLUMN direction text NOT NULL DEFAULT 'out';
      ALTER TABLE messages ADD COLUMN contact_id text;
      ALTER TABLE messages ADD COLUMN from_id text;
      ALTER TABLE messages ADD COLUMN text_body text;
      ALTER TABLE messages ADD COLUMN content jsonb;
      ALTER TABLE messages ADD COLUMN context_id text;
      CREATE INDEX messages_client_log ON messages (client_id, created_at DESC, id DESC);
      CREATE INDEX messages_client_direction ON messages (client_id, direction, created_at DESC, id DESC);
      CREATE INDEX messages_client_status ON messages (client_id, status, created_at DESC, id DESC);
      CREATE INDEX messages_client_contact ON messages (client_id, contact_id, created_at DESC, id DESC);
      CREATE INDEX messages_context ON messages (context_id) WHERE context_id IS NOT NULL;
      CREATE INDEX messages_created ON messages (created_at);
      CREATE TABLE contacts (
        id text PRIMARY KEY,
        tenant_id text NOT NULL,
        client_id text NOT NULL,
        wa_id text,
        user_id text,
        parent_user_id text,
        username text,
        profile_name text,
        first_seen_at timestamptz NOT NULL,
        last_seen_at timestamptz,
        last_inbound_at timestamptz,
        last_activity_at timestamptz NOT NULL,
        last_message_id text,
        last_read_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX contacts_client_activity ON contacts (client_id, last_activity_at DESC, id DESC);
      CREATE INDEX contacts_client_created ON contacts (client_id, created_at DESC, id DESC);
      CREATE TABLE contact_identities (
        client_id text NOT NULL,
        kind text NOT NULL,
        value text NOT NULL,
        contact_id text NOT NULL,
        current boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (client_id, kind, value)
      );
      CREATE INDEX contact_identities_contact ON contact_identities (contact_id);
    `,
  },
  {
    version: 31,
    name: 'message_text_search',
    // issue 27: the log's text search (q) on PostgreSQL is full-text search over the text; this index serves it
    // (the bench's lists row: without it a rare word scans the client's rows newest first). PGlite builds it too.
    sql: `CREATE INDEX messages_text_search ON messages USING gin (to_tsvector('simple', coalesce(text_body, '')));`,
  },
  {
    version: 55,
    name: 'campaign_recipient_leases',
    // issue 26: every replica looks for run-out leases four times a second (recoverExpired); without this index
    // each look read the whole campaign_recipients table (every recipient of every campaign), the largest share of
    // PostgreSQL's time per campaign send in the bench
    sql: `CREATE INDEX campaign_recipients_leases ON campaign_recipients (claimed_until) WHERE status IN ('claimed', 'sending');`,
  },
  {
    version: 56,
    name: 'drop_messages_client_created',
    // issue 29: (client_id, created_at DESC) is the start of messages_client_log (client_id, created_at DESC, id
    // DESC), which serves every query it served; one index less to write on every send stored and on every status
    // (a status changes an indexed column, so its update writes every index of the row again)
    sql: `DROP INDEX IF EXISTS messages_client_created;`,
  },
];
