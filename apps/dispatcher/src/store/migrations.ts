import { outboxMigration } from '@gateway/outbox';
import type { Migration } from '@gateway/store';

export const migrations: Migration[] = [
  {
    version: 1,
    name: 'deliveries',
    sql: `
      CREATE TABLE deliveries (
        id text PRIMARY KEY,
        tenant_id text NOT NULL,
        client_id text NOT NULL,
        event_id text NOT NULL,
        event_type text NOT NULL,
        -- 0 for the event's own series, 1, 2... for manual retries
        series integer NOT NULL,
        url text,
        status text NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        response_code integer,
        last_error text,
        -- the exact envelope bytes and the bus subject, so a manual retry sends the same event again
        subject text NOT NULL,
        body text NOT NULL,
        -- every attempt of the series: [{number, at, duration_ms, response_code, error}]
        attempt_log jsonb NOT NULL DEFAULT '[]'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (event_id, series)
      );
      CREATE INDEX deliveries_client_created ON deliveries (tenant_id, client_id, created_at DESC, id DESC);
    `,
  },
  outboxMigration(2),
  {
    version: 3,
    name: 'endpoint_health',
    sql: `
      -- webhook targets whose every attempt has failed since failing_since (a success deletes the row)
      CREATE TABLE endpoint_health (
        client_id text NOT NULL,
        url text NOT NULL,
        tenant_id text NOT NULL,
        failing_since timestamptz NOT NULL,
        last_failure_at timestamptz NOT NULL,
        PRIMARY KEY (client_id, url)
      );
      -- bulk replay: the latest series of each event of a client in a time range
      CREATE INDEX deliveries_client_status_created ON deliveries (tenant_id, client_id, status, created_at);
    `,
  },
  {
    version: 30,
    name: 'deliveries_retention',
    // issue 27: retention deletes the oldest deliveries in small batches
    sql: `CREATE INDEX deliveries_created ON deliveries (created_at);`,
  },
];
