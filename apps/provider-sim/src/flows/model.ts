import type { Flow, FlowStatus, SimState } from '../state';
import { flowCantBeUpdated, flowParameter } from './errors';
import { validateFlowJson, type FlowValidationError } from './validate-flow-json';

export const FLOW_CATEGORIES = [
  'SIGN_UP',
  'SIGN_IN',
  'APPOINTMENT_BOOKING',
  'LEAD_GENERATION',
  'CONTACT_US',
  'CUSTOMER_SUPPORT',
  'SURVEY',
  'OTHER',
  'SHOPPING',
] as const;

/** Flow JSON files are limited to 10 MB (provider reference §5). */
const MAX_FLOW_JSON_BYTES = 10 * 1024 * 1024;

/** Published variants: health monitoring sets BLOCKED / THROTTLED on a published flow. */
export function isPublished(status: FlowStatus): boolean {
  return status === 'PUBLISHED' || status === 'BLOCKED' || status === 'THROTTLED';
}

export function createFlow(state: SimState, wabaId: string, input: { name: string; categories: string[]; endpointUri?: string | null; id?: string }): Flow {
  assertNameFree(state, wabaId, input.name);
  const now = new Date().toISOString();
  const flow: Flow = {
    id: input.id ?? state.newId(16),
    wabaId,
    name: input.name,
    categories: input.categories,
    status: 'DRAFT',
    json: null,
    validationErrors: [],
    jsonVersion: null,
    endpointUri: input.endpointUri ?? null,
    createdAt: now,
    updatedAt: now,
  };
  state.flows.set(flow.id, flow);
  return flow;
}

/** Names are unique per business account (error 100 otherwise). */
export function assertNameFree(state: SimState, wabaId: string, name: string, exceptId?: string): void {
  for (const f of state.flows.values()) {
    if (f.wabaId === wabaId && f.name === name && f.id !== exceptId) {
      throw flowParameter(`A Flow named "${name}" already exists in this WhatsApp Business Account`, 'Flow name is not unique');
    }
  }
}

/** Stores the JSON even when it has errors, as the provider does: the flow stays a draft until they are fixed. */
export function setFlowJson(flow: Flow, text: string): FlowValidationError[] {
  if (Buffer.byteLength(text, 'utf8') > MAX_FLOW_JSON_BYTES) throw flowParameter('The Flow JSON file must not exceed 10 MB');
  const { errors, version } = validateFlowJson(text);
  flow.json = text;
  flow.validationErrors = errors;
  flow.jsonVersion = version;
  flow.updatedAt = new Date().toISOString();
  return errors;
}

/**
 * Whether the flow's JSON or metadata may change. A published flow is immutable (139001) unless the newer
 * provider behaviour is on, where editing moves it back to DRAFT. A deprecated flow never changes.
 */
export function beforeEdit(flow: Flow, publishedEditable: boolean): void {
  if (flow.status === 'DRAFT') return;
  if (isPublished(flow.status) && publishedEditable) {
    flow.status = 'DRAFT';
    return;
  }
  throw flowCantBeUpdated(`The Flow is ${flow.status.toLowerCase()}; only draft Flows can be updated. Clone it to make changes.`);
}

export function parseCategories(raw: unknown): string[] {
  let value = raw;
  // multipart bodies carry the list as a JSON string, e.g. '["OTHER"]'
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      throw flowParameter('categories must be a JSON array of strings');
    }
  }
  if (!Array.isArray(value) || value.length === 0) throw flowParameter('categories must be a non-empty array');
  for (const c of value) {
    if (typeof c !== 'string' || !(FLOW_CATEGORIES as readonly string[]).includes(c)) {
      throw flowParameter(`Invalid category ${JSON.stringify(c)}; allowed: ${FLOW_CATEGORIES.join(', ')}`);
    }
  }
  return [...new Set(value as string[])];
}

/** Full view of a flow for the simulator's control API (includes the JSON text, which Graph never returns). */
export function controlView(f: Flow) {
  return {
    id: f.id,
    waba_id: f.wabaId,
    name: f.name,
    categories: f.categories,
    status: f.status,
    flow_json: f.json,
    validation_errors: f.validationErrors,
    json_version: f.jsonVersion,
    endpoint_uri: f.endpointUri,
    created_at: f.createdAt,
    updated_at: f.updatedAt,
  };
}
