import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { parse } from 'yaml';

/**
 * Request-body validators from the provider's own OpenAPI description, v23 as published by the provider,
 * kept in the repo (tools/testing/contract) so the contract tests run on any clean clone. Used by the
 * contract tests only.
 */
export const OPENAPI_FILE = resolve(__dirname, '../contract/provider-openapi-v23.yaml');

type Node = Record<string, unknown>;

/**
 * The file closes each `allOf` branch with `additionalProperties: false`, which in JSON Schema rejects the
 * properties of the sibling branches (e.g. `messaging_product`, `to` of BaseMessageProperties): no message
 * could ever validate. The intent is "no properties beyond those of all branches", which JSON Schema 2020-12
 * spells `unevaluatedProperties: false` on the composed schema. This rewrites exactly that pattern.
 */
function closeAllOfProperly(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(closeAllOfProperly);
  if (!node || typeof node !== 'object') return;
  const n = node as Node;
  if (Array.isArray(n.allOf)) {
    let closed = false;
    for (const branch of n.allOf as Node[]) {
      if (branch && typeof branch === 'object' && branch.additionalProperties === false) {
        delete branch.additionalProperties;
        closed = true;
      }
    }
    if (closed) n.unevaluatedProperties = false;
  }
  for (const v of Object.values(n)) closeAllOfProperly(v);
}

let doc: Node | undefined;
let ajv: Ajv2020 | undefined;

function load(): { doc: Node; ajv: Ajv2020 } {
  if (!doc || !ajv) {
    doc = parse(readFileSync(OPENAPI_FILE, 'utf8')) as Node;
    closeAllOfProperly(doc.components);
    closeAllOfProperly(doc.paths);
    ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema({ $id: 'openapi.json', ...(doc as object), components: doc.components }, 'openapi.json');
  }
  return { doc, ajv };
}

const pointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** The validator of an operation's request body, by path template and method, for a content type. */
export function requestValidator(path: string, method: string, contentType = 'application/json'): ValidateFunction {
  const { doc, ajv } = load();
  const op = ((doc.paths as Node)[path] as Node | undefined)?.[method] as Node | undefined;
  const schema = (((op?.requestBody as Node | undefined)?.content as Node | undefined)?.[contentType] as Node | undefined)?.schema;
  if (!schema) throw new Error(`no ${contentType} request schema for ${method.toUpperCase()} ${path} in ${OPENAPI_FILE}`);
  return ajv.compile({ $ref: `openapi.json#/paths/${pointer(path)}/${method}/requestBody/content/${pointer(contentType)}/schema` });
}

/** A named component schema's validator. */
export function componentValidator(name: string): ValidateFunction {
  const { doc, ajv } = load();
  if (!((doc.components as Node).schemas as Node)[name]) throw new Error(`no component schema ${name}`);
  return ajv.compile({ $ref: `openapi.json#/components/schemas/${pointer(name)}` });
}

/**
 * The message schema picks its branch by `type` (an OpenAPI discriminator, which JSON Schema's plain `oneOf`
 * ignores): validating against the mapped branch gives the precise errors of that branch.
 */
export function messageValidator(type: string): ValidateFunction {
  const { doc } = load();
  const message = ((doc.components as Node).schemas as Node).Message as { discriminator: { mapping: Record<string, string> } };
  const target = message.discriminator.mapping[type];
  if (!target) throw new Error(`the Message discriminator has no mapping for type ${type}`);
  return componentValidator(target.split('/').pop()!);
}

/** The content types an operation's request body may have in the file. */
export function requestContentTypes(path: string, method: string): string[] {
  const { doc } = load();
  const op = ((doc.paths as Node)[path] as Node | undefined)?.[method] as Node | undefined;
  return Object.keys(((op?.requestBody as Node | undefined)?.content as Node | undefined) ?? {});
}

/** A named example of an operation's request body (for requests the file describes only by example). */
export function requestExample(path: string, method: string, name: string): unknown {
  const { doc } = load();
  const op = ((doc.paths as Node)[path] as Node)[method] as Node;
  const examples = ((((op.requestBody as Node).content as Node)['application/json'] as Node).examples ?? {}) as Record<string, { value: unknown }>;
  if (!examples[name]) throw new Error(`no example "${name}" for ${method.toUpperCase()} ${path}`);
  return examples[name].value;
}
