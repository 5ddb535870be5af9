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

/** Parses a stored inbound body; anything not shaped like a webhook envelope is undefined (logged and skipped). */
export function parseWebhookBody(raw: string): WebhookBody | undefined {
  try {
    const body = JSON.parse(raw) as unknown;
    if (!body || typeof body !== 'object' || !Array.isArray((body as WebhookBody).entry)) return undefined;
    return body as WebhookBody;
  } catch {
    return undefined;
  }
}
