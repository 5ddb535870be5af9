import { jsonDepthExceeds } from '@gateway/storable-text';
/** The provider's webhook envelope (provider reference 7.4), as far as routing needs it. */
export interface WebhookChange {
  field?: string;
  value?: Record<string, unknown> & { metadata?: { phone_number_id?: string } };
}

export interface WebhookEntry {
  id?: string;
  changes?: WebhookChange[];
  [k: string]: unknown;
}

export interface WebhookBody {
  object?: string;
  entry: WebhookEntry[];
}

export interface ParsedWebhook {
  /** The envelope with only the entries and changes routing can use (objects where objects belong). */
  body: WebhookBody;
  /** Entries and changes left out because of their shape: counted, never thrown on. */
  skipped: number;
}

/** Deeper than any provider body: such a body could not be split or serialised again. */
export const MAX_BODY_DEPTH = 64;

type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * Parses a stored inbound body into what routing can use. A body that is not a webhook envelope at all is
 * `{ unusable: reason }` (the consumer dead-letters it); inside an envelope, an entry or change of the wrong
 * shape (`null`, a number, `changes` that is not a list, a `value` that is not an object) is left out and
 * counted, so the rest of the body is still routed.
 */
export function parseWebhookBody(raw: string): ParsedWebhook | { unusable: string } {
  if (jsonDepthExceeds(raw, MAX_BODY_DEPTH)) return { unusable: `body is nested deeper than ${MAX_BODY_DEPTH} levels` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return { unusable: 'body is not JSON' };
  }
  if (!isObj(parsed) || !Array.isArray(parsed.entry)) return { unusable: 'body is not a webhook envelope (no entry list)' };
  let skipped = 0;
  const entry: WebhookEntry[] = [];
  for (const e of parsed.entry as unknown[]) {
    if (!isObj(e)) {
      skipped++;
      continue;
    }
    const changes: WebhookChange[] = [];
    if (e.changes !== undefined && !Array.isArray(e.changes)) skipped++;
    for (const c of Array.isArray(e.changes) ? (e.changes as unknown[]) : []) {
      if (isObj(c) && (c.field === undefined || typeof c.field === 'string') && (c.value === undefined || isObj(c.value))) changes.push(c as WebhookChange);
      else skipped++;
    }
    entry.push({ ...e, id: typeof e.id === 'string' ? e.id : undefined, changes });
  }
  return { body: { ...(parsed as Obj), entry } as WebhookBody, skipped };
}
