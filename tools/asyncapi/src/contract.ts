import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Parser, type AsyncAPIDocumentInterface, type Diagnostic } from '@asyncapi/parser';
import Ajv, { type ValidateFunction } from 'ajv';
import { ASYNCAPI_FILE, REPO_ROOT } from './document';

/**
 * Checks bus messages against the AsyncAPI document as `@asyncapi/parser` reads it (not against the code that
 * generated it): the channel whose address matches the subject, then its message's headers and payload schemas.
 */

export const ROOT = REPO_ROOT;

export async function parseAsyncApi(
  text = readFileSync(join(ROOT, ASYNCAPI_FILE), 'utf8'),
): Promise<{ document?: AsyncAPIDocumentInterface; diagnostics: Diagnostic[] }> {
  const { document, diagnostics } = await new Parser().parse(text);
  return { document, diagnostics };
}

/** Diagnostics that mean the document is wrong (0 error, 1 warning; 2 info and 3 hint are advice). */
export const problems = (diagnostics: Diagnostic[]) => diagnostics.filter((d) => d.severity <= 1).map((d) => `${d.code}: ${d.message} at ${d.path.join('/')}`);

/** The parser marks every schema with `x-parser-*` keys; they are not JSON Schema. */
function withoutParserKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutParserKeys);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => !k.startsWith('x-parser-'))
        .map(([k, x]) => [k, withoutParserKeys(x)]),
    );
  return v;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

/** Ajv's errors with what they are about (the undocumented property, the allowed values...). */
function describe(what: string, errors: ValidateFunction['errors']): string {
  return (errors ?? []).map((e) => `${what}${e.instancePath} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`).join(', ');
}

export interface MessageCheck {
  /** The channel's id in the document, when a channel address matches the subject. */
  channel?: string;
  /** The channel parameters read from the subject. */
  parameters: Record<string, string>;
  /** The message the data matched. */
  message?: string;
  /** Why nothing matched (per candidate message), empty when one did. */
  errors: string[];
}

export class BusContract {
  /** AsyncAPI schemas are draft-07 JSON Schema (a superset); the formats used are checked, not ignored. */
  private readonly ajv = new Ajv({ strict: true, allErrors: true });
  private readonly channels: Array<{
    id: string;
    pattern: RegExp;
    names: string[];
    messages: Array<{ id: string; headers?: ValidateFunction; payload?: ValidateFunction }>;
  }> = [];

  constructor(readonly document: AsyncAPIDocumentInterface) {
    this.ajv.addFormat('uuid', UUID);
    this.ajv.addFormat('date-time', { validate: (s: string) => DATE_TIME.test(s) && !Number.isNaN(Date.parse(s)) });
    for (const channel of document.channels().all()) {
      const names: string[] = [];
      const address = channel.address() ?? '';
      const source = address
        .split(/(\{[^}]+\})/)
        .map((part) => {
          const m = /^\{([^}]+)\}$/.exec(part);
          if (!m) return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
          names.push(m[1]);
          return '([^.]+)';
        })
        .join('');
      const messages = channel
        .messages()
        .all()
        .map((m) => ({
          id: m.id(),
          headers: m.hasHeaders() ? this.ajv.compile(withoutParserKeys(m.headers()!.json()) as object) : undefined,
          payload: m.hasPayload() ? this.ajv.compile(withoutParserKeys(m.payload()!.json()) as object) : undefined,
        }));
      this.channels.push({ id: channel.id(), pattern: new RegExp(`^${source}$`), names, messages });
    }
  }

  static async load(text?: string): Promise<BusContract> {
    const { document, diagnostics } = await parseAsyncApi(text);
    if (!document) throw new Error(`the AsyncAPI document does not parse: ${problems(diagnostics).join('; ')}`);
    return new BusContract(document);
  }

  /** Which channel a subject is on, and whether headers and body match one of its messages. */
  check(subject: string, headers: Record<string, string>, body: Uint8Array | string, contentType = 'application/json'): MessageCheck {
    const channel = this.channels.find((c) => c.pattern.test(subject));
    if (!channel) return { parameters: {}, errors: [`no channel of the document has an address matching ${subject}`] };
    const values = channel.pattern.exec(subject)!.slice(1);
    const parameters = Object.fromEntries(channel.names.map((n, i) => [n, values[i]]));
    const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
    let payload: unknown = text;
    if (contentType === 'application/json') {
      try {
        payload = JSON.parse(text);
      } catch {
        payload = text;
      }
    }
    const errors: string[] = [];
    for (const m of channel.messages) {
      const wrong: string[] = [];
      if (m.headers && !m.headers(headers)) wrong.push(`headers: ${describe('headers', m.headers.errors)}`);
      if (m.payload && !m.payload(payload)) wrong.push(`payload: ${describe('payload', m.payload.errors)}`);
      if (wrong.length === 0) return { channel: channel.id, parameters, message: m.id, errors: [] };
      errors.push(`${m.id}: ${wrong.join('; ')}`);
    }
    return { channel: channel.id, parameters, errors };
  }
}
