import { ScalarType, toJson, type DescField, type DescMessage, type JsonObject, type MessageShape } from '@bufbuild/protobuf';
import type { JsonSchema } from '../openapi/operation';
import type { Field, Presenter } from './presenter';

/*
 * Records from the services' proto messages. The contracts name their fields as the spec names them in JSON
 * (proto field names, snake_case), so a record is its JSON form with every field present (an absent optional
 * field, nested ones too, is null), and its schema is read from the same message. A record that deviates says
 * how once, in `record(...)`: the fields it leaves out, replaces or adds, each with its schema and its value.
 */

type Json = Record<string, unknown>;

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

/** The message's fields under their proto names, absent optional ones (nested ones too) as null. */
function recordJson<Desc extends DescMessage>(schema: Desc, message: MessageShape<Desc>): Json {
  return withNulls(schema, toJson(schema, message, { useProtoFieldName: true, alwaysEmitImplicit: true }) as JsonObject);
}

const INT64 = new Set([ScalarType.INT64, ScalarType.UINT64, ScalarType.SINT64, ScalarType.FIXED64, ScalarType.SFIXED64]);
const NUMBERS = new Set([ScalarType.DOUBLE, ScalarType.FLOAT]);

function scalarSchema(t: ScalarType): JsonSchema {
  if (t === ScalarType.STRING) return { type: 'string' };
  if (t === ScalarType.BOOL) return { type: 'boolean' };
  if (t === ScalarType.BYTES) return { type: 'string', contentEncoding: 'base64' };
  if (INT64.has(t)) return { type: 'string', pattern: '^-?\\d+$' };
  if (NUMBERS.has(t)) return { type: 'number' };
  return { type: 'integer' };
}

export const nullable = (s: JsonSchema): JsonSchema => (typeof s.type === 'string' ? { ...s, type: [s.type, 'null'] } : { anyOf: [s, { type: 'null' }] });

/** The schema of `recordJson`'s value of one field. */
function fieldSchema(f: DescField): JsonSchema {
  switch (f.fieldKind) {
    case 'scalar': {
      const s = scalarSchema(f.scalar);
      return f.presence === 1 ? nullable(s) : s; // explicit presence (proto3 `optional`): null when absent
    }
    case 'enum': {
      const s = { type: 'string', enum: f.enum.values.map((v) => v.name) };
      return f.presence === 1 ? nullable(s) : s;
    }
    case 'message':
      return nullable(messageSchema(f.message));
    case 'list':
      if (f.listKind === 'scalar') return { type: 'array', items: scalarSchema(f.scalar) };
      if (f.listKind === 'enum') return { type: 'array', items: { type: 'string', enum: f.enum.values.map((v) => v.name) } };
      return { type: 'array', items: messageSchema(f.message) };
    case 'map':
      return {
        type: 'object',
        additionalProperties: f.mapKind === 'message' ? messageSchema(f.message) : f.mapKind === 'scalar' ? scalarSchema(f.scalar) : { type: 'string' },
      };
  }
}

/** The schema of `recordJson(desc, …)`: every field present and required. */
function messageSchema(desc: DescMessage): JsonSchema {
  return record(desc).schema;
}

export interface RecordOptions<Desc extends DescMessage, In> {
  /** Its name among the document's component schemas (absent: described inline). */
  name?: string;
  /** The message within the presenter's input (default: the input is the message). */
  of?: (input: In) => MessageShape<Desc> | undefined;
  /** Proto fields the record leaves out (internal ones, and those `fields` replaces under another name). */
  omit?: string[];
  /** Fields with their own schema and value: one named as a proto field replaces it in place, others come last. */
  fields?: Record<string, Field<In>>;
  /** Proto fields holding a secret. */
  secrets?: string[];
  /** Descriptions of the proto fields. */
  describe?: Record<string, string>;
}

/**
 * The record of a proto message; `null` when the service's answer lacks it. Every field name the options give
 * must be one of the message's (checked as the module loads), so a renamed proto field cannot leave a stale omit.
 */
export function record<Desc extends DescMessage, In = MessageShape<Desc>>(desc: Desc, opts: RecordOptions<Desc, In> = {}): Presenter<In | undefined> {
  const names = new Set(desc.fields.map((f) => f.name));
  for (const name of [...(opts.omit ?? []), ...(opts.secrets ?? []), ...Object.keys(opts.describe ?? {})]) {
    if (!names.has(name)) throw new Error(`${desc.typeName} has no field ${name}`);
  }
  const omit = new Set(opts.omit ?? []);
  const extra = Object.entries(opts.fields ?? {});
  const properties: Record<string, JsonSchema> = {};
  for (const f of desc.fields) if (!omit.has(f.name)) properties[f.name] = opts.fields?.[f.name]?.schema ?? fieldSchema(f);
  for (const [k, f] of extra) properties[k] = f.schema;
  for (const [k, text] of Object.entries(opts.describe ?? {})) if (properties[k]) properties[k] = { ...properties[k], description: text };
  const of = opts.of ?? ((input: In) => input as unknown as MessageShape<Desc>);
  return {
    name: opts.name,
    secret: (opts.secrets ?? []).some((s) => !omit.has(s)) || extra.some(([, f]) => f.secret),
    schema: { type: 'object', required: Object.keys(properties), additionalProperties: false, properties },
    present: (input) => {
      const message = input === undefined ? undefined : of(input);
      if (!message) return null;
      const out = recordJson(desc, message);
      for (const k of omit) delete out[k];
      for (const [k, f] of extra) out[k] = f.value(input as In);
      return out;
    },
  };
}
