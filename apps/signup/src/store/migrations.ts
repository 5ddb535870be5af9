import type { Migration } from '@gateway/store';

export const migrations: Migration[] = [
  {
    version: 1,
    name: 'sessions_and_pins',
    sql: `
      CREATE TABLE sessions (
        id text PRIMARY KEY,
        client_id text NOT NULL,
        tenant_id text NOT NULL,
        state_hash text NOT NULL UNIQUE,
        status text NOT NULL,
        failure_reason text,
        failure_detail text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz,
        expires_at timestamptz NOT NULL
      );
      CREATE INDEX sessions_client ON sessions (client_id, created_at DESC);
      -- at most one completion in flight per client: two tabs finishing at once cannot both call the provider
      CREATE UNIQUE INDEX sessions_one_completing ON sessions (client_id) WHERE status = 'completing';
      -- the two-step verification PIN the gateway chose for a phone number, encrypted (SecretBox)
      CREATE TABLE phone_pins (
        phone_number_id text PRIMARY KEY,
        client_id text NOT NULL,
        pin_enc text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
];
