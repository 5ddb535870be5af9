import { isStorableText } from '@gateway/storable-text';
import type { Conversation, Pricing } from '../store/messages';
import type { WebhookChange } from './webhook-body';

export interface FlowCompletion {
  message_id: string;
  from: string;
  token: string;
  response: Record<string, unknown>;
}

export interface TemplateStatus {
  template_id: string;
  template_name: string;
  language: string;
  status: string;
  reason: string | null;
}

export interface StatusUpdate {
  messageId: string;
  status: 'sent' | 'delivered' | 'read' | 'played' | 'failed';
  at: Date;
  errors?: unknown[];
  conversation?: Conversation;
  pricing?: Pricing;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * `flow_completion` payloads of a `messages` change: one per interactive `nfm_reply` whose `response_json`
 * (a JSON string) parses to an object. `token` is its `flow_token`, `response` the rest (decisions.md).
 */
export function flowCompletions(change: WebhookChange): FlowCompletion[] {
  if (change.field !== 'messages' || !Array.isArray(change.value?.messages)) return [];
  const out: FlowCompletion[] = [];
  for (const m of change.value.messages as unknown[]) {
    if (!isObj(m) || m.type !== 'interactive' || !isObj(m.interactive) || m.interactive.type !== 'nfm_reply') continue;
    const reply = m.interactive.nfm_reply;
    if (!isObj(reply) || typeof reply.response_json !== 'string') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(reply.response_json);
    } catch {
      continue;
    }
    if (!isObj(parsed)) continue;
    const { flow_token: token, ...response } = parsed;
    out.push({ message_id: String(m.id ?? ''), from: String(m.from ?? ''), token: typeof token === 'string' ? token : '', response });
  }
  return out;
}

/** `template_status` payload of a `message_template_status_update` change (provider reference 7.7). */
export function templateStatus(change: WebhookChange): TemplateStatus | undefined {
  // a value PostgreSQL cannot store (NUL, lone surrogates) cannot be any template's: left out like a wrong shape
  if (change.field !== 'message_template_status_update' || !isObj(change.value) || !isStorableJson(change.value)) return undefined;
  const v = change.value;
  const reason = typeof v.reason === 'string' && v.reason !== 'NONE' ? v.reason : null;
  return {
    template_id: v.message_template_id === undefined || v.message_template_id === null ? '' : String(v.message_template_id),
    template_name: String(v.message_template_name ?? ''),
    language: String(v.message_template_language ?? ''),
    status: String(v.event ?? ''),
    reason,
  };
}

const STATUSES = new Set(['sent', 'delivered', 'read', 'played', 'failed']);
/** A message id we could have stored: short printable ASCII (a NUL or a megabyte matches no message). */
const isMessageId = (v: unknown): v is string => typeof v === 'string' && /^[\x21-\x7e]{1,256}$/.test(v);
/** Error details are kept as jsonb: nothing PostgreSQL refuses there (NUL, lone surrogates: escaped by JSON.stringify). */
const isStorableJson = (v: unknown): boolean => !/\\u0000|\\ud[89a-f]/i.test(JSON.stringify(v));

/**
 * Status updates of our outbound messages in a `messages` change (provider reference 7.6); others are ignored. A
 * failure's errors are the status's own, else the value's `errors` (the provider puts them there too).
 */
export function statusUpdates(change: WebhookChange): StatusUpdate[] {
  if (change.field !== 'messages' || !Array.isArray(change.value?.statuses)) return [];
  const out: StatusUpdate[] = [];
  const valueErrors = Array.isArray(change.value.errors) && change.value.errors.length ? (change.value.errors as unknown[]) : undefined;
  for (const s of change.value.statuses as unknown[]) {
    if (!isObj(s) || !isMessageId(s.id) || typeof s.status !== 'string' || !STATUSES.has(s.status)) continue;
    // a timestamp that is missing, empty or not a date (the provider's are epoch seconds) means "now"
    const seconds = typeof s.timestamp === 'string' || typeof s.timestamp === 'number' ? Number(s.timestamp) : NaN;
    const given = new Date(seconds * 1000);
    const at = seconds > 0 && Number.isFinite(given.getTime()) ? given : new Date();
    const conversation = conversationOf(s.conversation);
    const pricing = pricingOf(s.pricing);
    const errors = Array.isArray(s.errors) && s.errors.length ? s.errors : s.status === 'failed' ? valueErrors : undefined;
    out.push({
      messageId: s.id,
      status: s.status as StatusUpdate['status'],
      at,
      ...(errors && isStorableJson(errors) ? { errors } : {}),
      ...(conversation ? { conversation } : {}),
      ...(pricing ? { pricing } : {}),
    });
  }
  return out;
}

/** A short string PostgreSQL can store (the provider's ids and categories are short; anything else is left out). */
const text = (v: unknown): string | null =>
  typeof v === 'string' && v && v.length <= 512 && isStorableText(v) ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : null;

/** `conversation {id, expiration_timestamp, origin {type}}` of a status; the expiry as ISO 8601. */
function conversationOf(c: unknown): Conversation | undefined {
  if (!isObj(c) || !text(c.id)) return undefined;
  const expiry = new Date(Number(c.expiration_timestamp) * 1000);
  return {
    id: text(c.id)!,
    origin_type: isObj(c.origin) ? text(c.origin.type) : null,
    expires_at: expiry.getTime() > 0 ? expiry.toISOString() : null,
  };
}

/** `pricing {billable, pricing_model, category, type}` of a status. */
function pricingOf(p: unknown): Pricing | undefined {
  if (!isObj(p)) return undefined;
  return {
    category: text(p.category),
    billable: typeof p.billable === 'boolean' ? p.billable : null,
    pricing_model: text(p.pricing_model),
    type: text(p.type),
  };
}
