import { isObj, type WebhookBody, type WebhookChange } from './webhook-body';

/** Who a change concerns: the client of its phone number, or every client of the entry's business account. */
export type ChangeTarget = { phoneNumberId: string } | { businessAccountId: string };

/** Provider ids are short printable ASCII; anything else (a NUL, a megabyte) belongs to no client and is never looked up. */
export const isProviderId = (v: unknown): v is string => typeof v === 'string' && /^[\x21-\x7e]{1,128}$/.test(v);

export function targetOf(entryId: string | undefined, change: WebhookChange): ChangeTarget | undefined {
  const metadata = change.value?.metadata;
  const phoneNumberId = isObj(metadata) ? metadata.phone_number_id : undefined;
  if (phoneNumberId !== undefined && phoneNumberId !== null && phoneNumberId !== '') return isProviderId(phoneNumberId) ? { phoneNumberId } : undefined;
  // values without metadata (provider-2026.md §8): `messaging_handovers` name the number in `recipient`, a partner's
  // `account_update` the business account in `waba_info`; the rest route by the entry's business account
  const recipient = change.value?.recipient;
  if (isObj(recipient) && isProviderId(recipient.phone_number_id)) return { phoneNumberId: recipient.phone_number_id };
  const waba = change.value?.waba_info;
  if (isObj(waba) && isProviderId(waba.waba_id)) return { businessAccountId: waba.waba_id };
  if (isProviderId(entryId)) return { businessAccountId: entryId };
  return undefined;
}

export interface ClientShare<C> {
  client: C;
  /** The body this client receives: the raw bytes when every change concerns it, else only its entries and changes. */
  body: string;
  /** Whether `body` is the provider's body byte for byte. */
  whole: boolean;
  /** The changes of this client, in body order. */
  changes: Array<{ entryId: string | undefined; change: WebhookChange }>;
}

/**
 * Splits a webhook body by client (decisions.md, `chat`): a client receives the provider's bytes unchanged
 * when every change of the body concerns it; otherwise a body of the same shape holding only its entries and
 * changes (entry fields such as `id` and `time` kept). Changes nobody claims are returned apart.
 */
export function splitByClient<C extends { id: string }>(
  raw: string,
  body: WebhookBody,
  clientsOf: (target: ChangeTarget) => C[],
  /** Parts of the body left out for their shape: the raw bytes then never go to anyone whole. */
  skipped = 0,
): { shares: Array<ClientShare<C>>; unrouted: Array<{ entryId: string | undefined; change: WebhookChange }> } {
  const byClient = new Map<string, { client: C; entries: Map<number, number[]> }>();
  const unrouted: Array<{ entryId: string | undefined; change: WebhookChange }> = [];
  let total = 0;
  body.entry.forEach((entry, ei) => {
    (entry.changes ?? []).forEach((change, ci) => {
      total += 1;
      const target = targetOf(entry.id, change);
      const clients = target ? clientsOf(target) : [];
      if (clients.length === 0) unrouted.push({ entryId: entry.id, change });
      for (const client of clients) {
        const share = byClient.get(client.id) ?? { client, entries: new Map<number, number[]>() };
        byClient.set(client.id, share);
        const list = share.entries.get(ei) ?? [];
        list.push(ci);
        share.entries.set(ei, list);
      }
    });
  });

  const shares = [...byClient.values()].map(({ client, entries }) => {
    const changes: ClientShare<C>['changes'] = [];
    let count = 0;
    const kept = [...entries.entries()].map(([ei, cis]) => {
      const entry = body.entry[ei];
      count += cis.length;
      const picked = cis.map((ci) => entry.changes![ci]);
      for (const change of picked) changes.push({ entryId: entry.id, change });
      return { ...entry, changes: picked };
    });
    const whole = count === total && skipped === 0;
    return { client, whole, changes, body: whole ? raw : JSON.stringify({ ...body, entry: kept }) };
  });
  return { shares, unrouted };
}
