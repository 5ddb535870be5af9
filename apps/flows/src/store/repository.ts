import type { FlowValidationError } from '@gateway/provider-client';
import { POSITION_AT, type ListPosition, type Queryable } from '@gateway/store';

/**
 * Lifecycle states (spec 3.1) in lower case, plus the provider's monitoring states of a published flow
 * (`blocked`, `throttled`).
 */
export type FlowStatus = 'draft' | 'published' | 'deprecated' | 'blocked' | 'throttled';

export interface FlowRecord {
  flow_id: string;
  client_id: string;
  tenant_id: string;
  business_account_id: string;
  name: string;
  status: FlowStatus;
  categories: string[];
  flow_json: unknown;
  validation_errors: FlowValidationError[];
  created_at: Date;
  updated_at: Date;
}

export interface FlowKey {
  tenantId: string;
  clientId: string;
  flowId: string;
}

/** Where a record sits in the list order (`@gateway/store`'s ListPosition: created_at to the microsecond, flow id). */
export type FlowPosition = ListPosition;

/** What the provider says about a flow; stored as is on every refresh. */
export interface ProviderState {
  flowId: string;
  clientId: string;
  tenantId: string;
  businessAccountId: string;
  name: string;
  status: FlowStatus;
  categories: string[];
  validationErrors: FlowValidationError[];
}

/**
 * Flow records, owned by the flows service, keyed by owning client and provider flow id; every read is
 * scoped to the tenant too. The SQL implementation runs on PGlite and PostgreSQL.
 */
export interface FlowRepository {
  get(key: FlowKey): Promise<FlowRecord | undefined>;
  /**
   * Up to `limit` of the client's flows, newest first (created_at, then flow_id), after `after` when given
   * (keyset: a record written meanwhile shifts nothing), each with its own position.
   */
  list(tenantId: string, clientId: string, limit: number, after?: FlowPosition): Promise<Array<{ record: FlowRecord; position: FlowPosition }>>;
  /**
   * Inserts the flow or updates what the provider owns (name, status, categories, validation errors).
   * `flowJson` is written only when given (a refresh does not know the JSON); `updated_at` moves only when
   * something changed.
   */
  upsert(state: ProviderState, flowJson?: { value: unknown }): Promise<FlowRecord>;
  /** The JSON just uploaded and the provider's verdict on it. */
  setJson(key: FlowKey, flowJson: unknown, validationErrors: FlowValidationError[]): Promise<FlowRecord | undefined>;
  setStatus(key: FlowKey, status: FlowStatus): Promise<FlowRecord | undefined>;
  delete(key: FlowKey): Promise<boolean>;
  /** Removes the client's records of flows the provider no longer has (`keep` = the ids it listed). */
  deleteAllExcept(tenantId: string, clientId: string, keep: string[]): Promise<number>;
}

/**
 * Text as PostgreSQL can hold it: NUL (refused in text and jsonb) and unpaired surrogates (refused in jsonb)
 * become U+FFFD. The edge refuses them, but the provider may hold such text (set through another channel) and
 * what it holds is written here on every sync: a record we could not write or read back would break the flow
 * for good.
 */
const storableText = (t: string): string =>
  t
    .split('\u0000')
    .join('\ufffd')
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
function storable(v: unknown): unknown {
  if (typeof v === 'string') return storableText(v);
  if (Array.isArray(v)) return v.map(storable);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [storableText(k), storable(x)]));
  return v;
}
const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(storable(v)));

export class SqlFlowRepository implements FlowRepository {
  constructor(private readonly q: Queryable) {}

  async get(k: FlowKey): Promise<FlowRecord | undefined> {
    const rows = await this.q.query<FlowRecord>('SELECT * FROM flows WHERE tenant_id = $1 AND client_id = $2 AND flow_id = $3', [
      k.tenantId,
      k.clientId,
      k.flowId,
    ]);
    return rows[0];
  }

  async list(tenantId: string, clientId: string, limit: number, after?: FlowPosition): Promise<Array<{ record: FlowRecord; position: FlowPosition }>> {
    const rows = await this.q.query<FlowRecord & { position_at: string }>(
      `SELECT *, ${POSITION_AT} AS position_at FROM flows
       WHERE tenant_id = $1 AND client_id = $2 ${after ? 'AND (created_at, flow_id) < ($4::timestamptz, $5)' : ''}
       ORDER BY created_at DESC, flow_id DESC LIMIT $3`,
      after ? [tenantId, clientId, limit, after.at, after.id] : [tenantId, clientId, limit],
    );
    return rows.map(({ position_at, ...record }) => ({ record, position: { at: position_at, id: record.flow_id } }));
  }

  async upsert(s: ProviderState, flowJson?: { value: unknown }): Promise<FlowRecord> {
    const rows = await this.q.query<FlowRecord>(
      `INSERT INTO flows (client_id, flow_id, tenant_id, business_account_id, name, status, categories, flow_json, validation_errors)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9::jsonb)
       ON CONFLICT (client_id, flow_id) DO UPDATE SET
         name = EXCLUDED.name,
         status = EXCLUDED.status,
         categories = EXCLUDED.categories,
         validation_errors = EXCLUDED.validation_errors,
         flow_json = CASE WHEN $10::boolean THEN EXCLUDED.flow_json ELSE flows.flow_json END,
         updated_at = CASE
           WHEN (flows.name, flows.status, flows.categories, flows.validation_errors) IS DISTINCT FROM
                (EXCLUDED.name, EXCLUDED.status, EXCLUDED.categories, EXCLUDED.validation_errors)
             OR ($10::boolean AND flows.flow_json IS DISTINCT FROM EXCLUDED.flow_json)
           THEN now() ELSE flows.updated_at END
       RETURNING *`,
      [
        s.clientId,
        s.flowId,
        s.tenantId,
        s.businessAccountId,
        storableText(s.name),
        s.status,
        json(s.categories),
        json(flowJson?.value),
        json(s.validationErrors),
        flowJson !== undefined,
      ],
    );
    return rows[0];
  }

  async setJson(k: FlowKey, flowJson: unknown, validationErrors: FlowValidationError[]): Promise<FlowRecord | undefined> {
    const rows = await this.q.query<FlowRecord>(
      `UPDATE flows SET flow_json = $4::jsonb, validation_errors = $5::jsonb, updated_at = now()
       WHERE tenant_id = $1 AND client_id = $2 AND flow_id = $3 RETURNING *`,
      [k.tenantId, k.clientId, k.flowId, json(flowJson), json(validationErrors)],
    );
    return rows[0];
  }

  async setStatus(k: FlowKey, status: FlowStatus): Promise<FlowRecord | undefined> {
    const rows = await this.q.query<FlowRecord>(
      'UPDATE flows SET status = $4, updated_at = now() WHERE tenant_id = $1 AND client_id = $2 AND flow_id = $3 RETURNING *',
      [k.tenantId, k.clientId, k.flowId, status],
    );
    return rows[0];
  }

  async delete(k: FlowKey): Promise<boolean> {
    const rows = await this.q.query('DELETE FROM flows WHERE tenant_id = $1 AND client_id = $2 AND flow_id = $3 RETURNING flow_id', [
      k.tenantId,
      k.clientId,
      k.flowId,
    ]);
    return rows.length > 0;
  }

  async deleteAllExcept(tenantId: string, clientId: string, keep: string[]): Promise<number> {
    const rows = await this.q.query(
      'DELETE FROM flows WHERE tenant_id = $1 AND client_id = $2 AND flow_id NOT IN (SELECT jsonb_array_elements_text($3::jsonb)) RETURNING flow_id',
      [tenantId, clientId, JSON.stringify(keep)],
    );
    return rows.length;
  }
}
