import { GraphError } from '../errors';
import type { Flow } from '../state';

/** What GET /{flow_id} and GET /{waba_id}/flows return without `fields` (provider reference §5). */
export const DEFAULT_FLOW_FIELDS = ['id', 'name', 'status', 'categories', 'validation_errors'];

type FieldRenderer = (f: Flow, origin: string) => unknown;

const FIELDS: Record<string, FieldRenderer> = {
  id: (f) => f.id,
  name: (f) => f.name,
  status: (f) => f.status,
  categories: (f) => f.categories,
  validation_errors: (f) => f.validationErrors,
  json_version: (f) => f.jsonVersion ?? undefined,
  data_api_version: (f) => dataApiVersion(f),
  endpoint_uri: (f) => f.endpointUri ?? undefined,
  data_channel_uri: (f) => f.endpointUri ?? undefined,
  updated_at: (f) => f.updatedAt,
  whatsapp_business_account: (f) => ({ id: f.wabaId }),
  preview: (f, origin) => ({ preview_url: `${origin}/_sim/flows/${f.id}/flow.json`, expires_at: new Date(Date.now() + 30 * 86_400_000).toISOString() }),
  health_status: (f) => {
    const can = f.status === 'BLOCKED' ? 'BLOCKED' : f.status === 'THROTTLED' ? 'LIMITED' : 'AVAILABLE';
    return { can_send_message: can, entities: [{ entity_type: 'FLOW', id: f.id, can_send_message: can }] };
  },
};

function dataApiVersion(f: Flow): string | undefined {
  if (!f.json) return undefined;
  try {
    const v = (JSON.parse(f.json) as { data_api_version?: unknown }).data_api_version;
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Parses a Graph `fields` parameter (`id,name,preview.invalidate(false),whatsapp_business_account{id}`): the
 * top-level names only. An unknown field is error 100, as Graph answers it.
 */
export function parseFields(raw: unknown): string[] {
  if (typeof raw !== 'string' || raw.trim() === '') return DEFAULT_FLOW_FIELDS;
  const names: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of `${raw},`) {
    if (ch === '{' || ch === '(') depth += 1;
    if (ch === '}' || ch === ')') depth -= 1;
    if (ch === ',' && depth === 0) {
      const name = /^\s*([a-z_]+)/.exec(current)?.[1] ?? current.trim();
      if (!FIELDS[name]) throw new GraphError(400, 100, `(#100) Tried accessing nonexisting field (${name}) on node type (Flow)`);
      names.push(name);
      current = '';
    } else current += ch;
  }
  return [...new Set(['id', ...names])];
}

/** A flow as Graph presents it: the requested fields; fields without a value are left out. */
export function presentFlow(f: Flow, fields: string[], origin: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of fields) {
    const v = FIELDS[name](f, origin);
    if (v !== undefined) out[name] = v;
  }
  return out;
}
