import type { Migration } from '@gateway/store';

export const migrations: Migration[] = [
  {
    version: 1,
    name: 'flows',
    // One row per flow and owning client: two clients of a tenant may share a business account, and each
    // sees the account's flows as its own. The provider's flow id is the flow's identity there.
    sql: `
      CREATE TABLE flows (
        client_id text NOT NULL,
        flow_id text NOT NULL,
        tenant_id text NOT NULL,
        business_account_id text NOT NULL,
        name text NOT NULL,
        status text NOT NULL,
        categories jsonb NOT NULL,
        -- the flow JSON object as last uploaded through the gateway (or loaded from the provider); null if none
        flow_json jsonb,
        -- the provider's validation errors of that JSON
        validation_errors jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (client_id, flow_id)
      );
      CREATE INDEX flows_tenant_client_created ON flows (tenant_id, client_id, created_at DESC);
    `,
  },
  {
    version: 2,
    name: 'flows_by_flow_id',
    // send-flow asks which business accounts a flow id is known under
    sql: 'CREATE INDEX flows_flow_id ON flows (flow_id)',
  },
  {
    version: 3,
    name: 'flows_page_order',
    // the list pages newest first by (created_at, flow_id): the index holds that whole order, so a page is
    // one index range (the index of version 1 stops at created_at and sorted ties at every page)
    sql: `
      CREATE INDEX flows_tenant_client_page ON flows (tenant_id, client_id, created_at DESC, flow_id DESC);
      DROP INDEX flows_tenant_client_created;
    `,
  },
];
