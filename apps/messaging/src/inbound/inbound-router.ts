import { deterministicUuid, sha256Hex } from '@gateway/crypto';
import { buildEvent, type EventInput, type GatewayEvent } from '@gateway/events';
import { callUpdates, type CallUpdate } from '../calls/derive';
import { accountUpdate, templateUpdate, type AccountUpdate, type TemplateUpdate } from './account-updates';
import { optOutSignals, type OptOutSignal } from '../campaigns/opt-out-signals';
import { ClientLookup, type RoutedClient } from './client-lookup';
import { flowCompletions, statusUpdates, templateStatus, type StatusUpdate, type TemplateStatus } from './derive';
import { splitByClient, targetOf, type ChangeTarget } from './split';
import { parseWebhookBody } from './webhook-body';
import type { IdentityChange, LoggedMessage } from '../store/conversations';
import { loggedMessages, userIdUpdates } from './log';

export interface RoutedUpdate {
  events: GatewayEvent[];
  statuses: StatusUpdate[];
  /** What the `calls` changes say about each client's calls (its call records follow them). */
  calls: Array<CallUpdate & { tenantId: string; clientId: string }>;
  /** Template status changes, with the business account they belong to (the local template copy follows them). */
  templateStatuses: Array<TemplateStatus & { businessAccountId: string }>;
  /** What account webhooks say of each client concerned (tenant directory fields: issue 24, item 5). */
  accountUpdates: Array<{ client: RoutedClient; update: AccountUpdate }>;
  /** Template quality and category changes, with the business account they belong to. */
  templateUpdates: Array<TemplateUpdate & { businessAccountId: string }>;
  /** Changes whose phone number or business account belongs to no client. */
  unrouted: number;
  /** Why the body cannot be used at all (not a webhook envelope): it is dead-lettered. */
  unusable?: string;
  /** Entries and changes of a usable body left out for their shape. */
  malformed: number;
  /** Stop texts and `user_preferences` changes, per client (the client's opt-out list follows them). */
  optOuts?: Array<OptOutSignal & { clientId: string }>;
  /** Messages for the clients' logs (issue 27): inbound messages and echoes, per client. */
  logged: LoggedMessage[];
  /** BSUID changes of `user_id_update` changes, per client. */
  identityUpdates: Array<{ tenantId: string; clientId: string; change: IdentityChange }>;
}

/**
 * A deterministic event id (UUID-shaped) from the inbound body's digest and the event's place in it: when
 * the same provider body is processed again (redelivery, a provider retry past the dedupe window), the same
 * events get the same ids, so JetStream drops repeats and receivers can dedupe on X-Event-Id.
 */
export function derivedEventId(bodyDigest: string, ...parts: string[]): string {
  return deterministicUuid(bodyDigest, ...parts);
}

/**
 * Turns one stored provider body into the gateway's events (decisions.md, "Events and delivery"): `chat`
 * for every client it concerns (the raw body, split per client), `flow_completion` for each `nfm_reply`,
 * `template_status` for each template status change (to every client of that business account), and the
 * status updates that move message records forward.
 */
export async function routeInbound(raw: string, lookup: ClientLookup, now = new Date()): Promise<RoutedUpdate> {
  const parsed = parseWebhookBody(raw);
  if ('unusable' in parsed)
    return {
      events: [],
      statuses: [],
      calls: [],
      templateStatuses: [],
      accountUpdates: [],
      templateUpdates: [],
      unrouted: 0,
      malformed: 0,
      unusable: parsed.unusable,
      logged: [],
      identityUpdates: [],
    };
  const { body, skipped } = parsed;
  const digest = sha256Hex(raw);

  const targets: ChangeTarget[] = [];
  for (const entry of body.entry)
    for (const change of entry.changes!) {
      const t = targetOf(entry.id, change);
      if (t) targets.push(t);
    }
  const resolved = await lookup.resolve(targets);
  const { shares, unrouted } = splitByClient<RoutedClient>(raw, body, (t) => resolved.get(ClientLookup.key(t)) ?? [], skipped);

  const events: GatewayEvent[] = [];
  const statuses: StatusUpdate[] = [];
  const calls: RoutedUpdate['calls'] = [];
  const optOuts: NonNullable<RoutedUpdate['optOuts']> = [];
  const emit = (client: RoutedClient, type: EventInput['type'], payload: EventInput['payload'], ...idParts: string[]) =>
    events.push(
      buildEvent({
        type,
        tenantId: client.tenantId,
        clientId: client.id,
        externalId: client.externalId,
        payload,
        id: derivedEventId(digest, type, client.id, ...idParts),
      }),
    );

  const accountUpdates: RoutedUpdate['accountUpdates'] = [];
  const logged: LoggedMessage[] = [];
  const identityUpdates: RoutedUpdate['identityUpdates'] = [];
  for (const share of shares) {
    emit(share.client, 'chat', { raw: share.body });
    for (const { change } of share.changes) {
      const update = accountUpdate(change);
      if (update) accountUpdates.push({ client: share.client, update });
    }
    share.changes.forEach(({ change }, i) => {
      logged.push(...loggedMessages(change, share.client, now));
      for (const u of userIdUpdates(change)) identityUpdates.push({ tenantId: share.client.tenantId, clientId: share.client.id, change: u });
      flowCompletions(change).forEach((fc, j) => emit(share.client, 'flow_completion', { ...fc }, String(i), String(j)));
      const ts = templateStatus(change);
      if (ts) emit(share.client, 'template_status', { ...ts }, String(i));
      for (const u of callUpdates(change)) calls.push({ ...u, tenantId: share.client.tenantId, clientId: share.client.id });
      for (const o of optOutSignals(change, share.client.stopKeywords)) optOuts.push({ ...o, clientId: share.client.id });
    });
  }
  // status updates concern message records, once per change whoever else receives it
  for (const entry of body.entry) for (const change of entry.changes!) statuses.push(...statusUpdates(change));
  const templateStatuses: RoutedUpdate['templateStatuses'] = [];
  const templateUpdates: RoutedUpdate['templateUpdates'] = [];
  for (const entry of body.entry) {
    for (const change of entry.changes!) {
      const ts = templateStatus(change);
      if (ts && typeof entry.id === 'string' && ts.template_id) templateStatuses.push({ ...ts, businessAccountId: entry.id });
      const tu = templateUpdate(change);
      if (tu && typeof entry.id === 'string') templateUpdates.push({ ...tu, businessAccountId: entry.id });
    }
  }
  return {
    events,
    statuses,
    calls,
    templateStatuses,
    accountUpdates,
    templateUpdates,
    unrouted: unrouted.length,
    malformed: skipped,
    optOuts,
    logged,
    identityUpdates,
  };
}
