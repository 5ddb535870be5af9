import type { DeadLetter } from '@gateway/bus';
import { toJson, type DescMessage, type JsonObject, type MessageShape } from '@bufbuild/protobuf';
import { dispatcher as d, flows as fl, messaging as m, templates as tp, tenantDirectory as td } from '@gateway/contracts';

/*
 * Every response body the edge writes, from the services' records. The contracts name their fields as the
 * spec names them in JSON (proto field names, snake_case), so a record is its JSON form with every field
 * present: an absent optional field is null. Records that deviate say how.
 */

type Json = Record<string, unknown>;

/** The record's fields under their proto names, absent optional ones (nested ones too) as null. */
function recordJson<Desc extends DescMessage>(schema: Desc, message: MessageShape<Desc>): Json {
  return withNulls(schema, toJson(schema, message, { useProtoFieldName: true, alwaysEmitImplicit: true }) as JsonObject);
}

function withNulls(schema: DescMessage, json: JsonObject): Json {
  const out: Json = { ...json };
  for (const field of schema.fields) {
    const value = out[field.name];
    if (value === undefined) out[field.name] = null;
    else if (field.fieldKind === 'message') out[field.name] = withNulls(field.message, value as JsonObject);
    else if (field.fieldKind === 'list' && field.listKind === 'message') out[field.name] = (value as JsonObject[]).map((v) => withNulls(field.message, v));
  }
  return out;
}

const parsed = (text: string): unknown => JSON.parse(text) as unknown;

/** Tenant record of spec 2.1. */
export function tenantJson(t: td.Tenant | undefined) {
  return t ? recordJson(td.TenantSchema, t) : null;
}

/** Answer of POST /api/tenants/webhook-secret/rotate: `webhook_secret`, `previous_secret_expires_at`. */
export function secretRotationJson(r: td.RotateWebhookSecretResponse) {
  return recordJson(td.RotateWebhookSecretResponseSchema, r);
}

/** Client record of spec 2.2 (the contract never carries the access token; the failure reason stays internal). */
export function clientJson(c: td.Client | undefined) {
  if (!c) return null;
  const { signup_failure_reason: _internal, ...client } = recordJson(td.ClientSchema, c);
  return client;
}

/** Flow record of decisions.md (`POST /api/flows`, `GET /api/flows[/{flow_id}]`); JSON fields travel serialized. */
export function flowJson(f: fl.Flow | undefined) {
  if (!f) return null;
  const { tenant_id: _tenant, validation_errors_json: _errors, ...flow } = recordJson(fl.FlowSchema, f);
  return { ...flow, flow_json: f.flowJson ? parsed(f.flowJson) : null, validation_errors: f.validationErrorsJson ? parsed(f.validationErrorsJson) : [] };
}

/** Message record of decisions.md "Message status": errors, conversation and pricing of a status only where it has some. */
export function messageJson(r: m.MessageRecord | undefined) {
  if (!r) return null;
  const { tenant_id: _tenant, errors_json: _e, conversation_json: _c, pricing_json: _p, ...message } = recordJson(m.MessageRecordSchema, r);
  return {
    ...message,
    status_history: r.statusHistory.map((h) => ({
      status: h.status,
      at: h.at,
      ...(h.errorsJson ? { errors: parsed(h.errorsJson) } : {}),
      ...(h.conversationJson ? { conversation: parsed(h.conversationJson) } : {}),
      ...(h.pricingJson ? { pricing: parsed(h.pricingJson) } : {}),
    })),
    // what the provider's status updates said: the errors of a failure, the latest conversation and pricing
    errors: r.errorsJson ? parsed(r.errorsJson) : null,
    conversation: r.conversationJson ? parsed(r.conversationJson) : null,
    pricing: r.pricingJson ? parsed(r.pricingJson) : null,
  };
}

/** The delivery record of decisions.md ("Events and delivery"), attempts included. */
export function deliveryJson(r: d.Delivery | undefined) {
  return r ? recordJson(d.DeliverySchema, r) : null;
}

const DEAD_LETTER_PREVIEW_CHARS = 4096;

/** A dead letter for the operator API: where it came from, why it failed, its headers and the start of its body. */
export function deadLetterJson(letter: DeadLetter) {
  return {
    seq: letter.seq,
    source: letter.source,
    error: letter.error,
    dead_lettered_at: letter.at,
    headers: letter.headers,
    size: Buffer.byteLength(letter.data),
    data_preview: letter.data.length > DEAD_LETTER_PREVIEW_CHARS ? `${letter.data.slice(0, DEAD_LETTER_PREVIEW_CHARS)}…` : letter.data,
  };
}

/** A dashboard session as the page sees it (never its token: that lives only in the HttpOnly cookie). */
export function sessionJson(s: td.Session | undefined) {
  return s ? recordJson(td.SessionSchema, s) : null;
}

/** An API key as its tenant sees it: never the key, only its prefix; `current` marks the caller's own. */
export function apiKeyJson(k: td.ApiKeyInfo, currentPrefix: string | undefined) {
  return { ...recordJson(td.ApiKeyInfoSchema, k), current: k.prefix === currentPrefix };
}

/** Template record (issue 12): the local copy of a provider template; its components travel serialized. */
export function templateJson(t: tp.Template | undefined) {
  if (!t) return null;
  const { components_json: _components, ...template } = recordJson(tp.TemplateSchema, t);
  return { ...template, components: t.componentsJson ? parsed(t.componentsJson) : [] };
}

/** An uploaded media (issue 19): the provider's media id, with the type the provider was told and the bytes' hash and size. */
export function mediaJson(m: { id: string; mimeType: string; sha256: string; size: number }) {
  return { id: m.id, mime_type: m.mimeType, sha256: m.sha256, file_size: m.size };
}
