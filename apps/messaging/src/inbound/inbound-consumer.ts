import { runConsumer, ACK, deadLetterNow, STREAMS, type Bus, type RunningConsumer } from '@gateway/bus';
import type { Logger } from '@gateway/logger';
import type { Metrics } from '@gateway/runtime';
import type { SqlCallRepository } from '../calls/store';
import type { CampaignInbound } from '../campaigns/inbound';
import type { MessageRepository } from '../store/messages';
import type { SqlConversations } from '../store/conversations';
import type { LiveUpdates } from '../live';
import type { Clock } from '../clock';
import type { Templates } from '../templates/templates';
import type { AccountUpdate } from './account-updates';
import type { ClientLookup, RoutedClient } from './client-lookup';
import { routeInbound } from './inbound-router';
import { InboundWriter } from './inbound-writer';
import type { Db } from '@gateway/store';

export const INBOUND_DURABLE = 'messaging-inbound-router';

/**
 * The durable consumer of PROVIDER_INBOUND. Each stored provider body is routed, its events published with
 * their derived ids (a redelivery republishes the same ids, which JetStream drops), and its status updates
 * applied; only then is it acked. A failure (directory or bus down) naks it for a later try (bounded: then
 * DEAD_LETTER). Shapes it cannot use are data, not exceptions: parts of the wrong shape are counted and the
 * rest routed; a body that is no envelope at all goes to DEAD_LETTER at once. Bodies that concern no client
 * are acked and counted: they stay in the stream (limits retention) for inspection.
 */
export async function startInboundConsumer(deps: {
  bus: Bus;
  lookup: ClientLookup;
  messages: MessageRepository;
  /** The database of `messages` and `conversations`: the logged messages of a batch are written in one transaction. */
  db?: Db;
  templates?: Pick<Templates, 'applyStatus' | 'applyUpdate'>;
  /** The call records (calls/store.ts): absent in tests of the routing alone. */
  calls?: Pick<SqlCallRepository, 'append'>;
  /** Applies what an account webhook says of a client (the tenant directory's ApplyProviderAccountUpdate). */
  /** Campaign recipients follow their messages' statuses; opt-out signals update the clients' lists. */
  campaigns?: CampaignInbound;
  applyAccountUpdate?: (client: RoutedClient, update: AccountUpdate) => Promise<void>;
  /** The message log (issue 27): inbound messages are stored, and told to the live stream, before the ack. */
  conversations?: SqlConversations;
  live?: LiveUpdates;
  clock?: Clock;
  logger: Logger;
  metrics: Metrics;
}): Promise<RunningConsumer> {
  const { bus, lookup, messages, templates, calls, campaigns, applyAccountUpdate, conversations, live, clock, logger, metrics } = deps;
  // statuses and logged messages of the webhooks handled at once are written together; each handler acks after its batch commits
  const writer = new InboundWriter(messages, conversations, deps.db, logger, campaigns);
  const updates = metrics.counter('inbound_updates_total', 'Provider webhook changes by outcome', ['outcome']);
  const emitted = metrics.counter('events_emitted_total', 'Events published from provider webhooks, by type', ['type']);
  return runConsumer({
    bus,
    stream: STREAMS.providerInbound.name,
    durable: INBOUND_DURABLE,
    logger,
    concurrency: 32,
    config: { max_ack_pending: 1000 },
    lag: metrics.consumerLag,
    deadLettered: metrics.deadLettered,
    handle: async (m) => {
      const routed = await routeInbound(m.string(), lookup, clock?.now());
      if (routed.unusable) {
        updates.inc({ outcome: 'unusable' });
        logger.warn({ seq: m.seq, reason: routed.unusable }, 'inbound body cannot be used; dead-lettered');
        return deadLetterNow(routed.unusable);
      }
      if (routed.malformed) {
        updates.inc({ outcome: 'malformed' }, routed.malformed);
        logger.warn({ seq: m.seq, parts: routed.malformed }, 'inbound entries or changes of an unexpected shape; the rest is routed');
      }
      // the local template copy first: a tenant told by template_status finds the record already changed
      for (const t of routed.templateStatuses) await templates?.applyStatus(t.businessAccountId, t.template_id, t.status, t.reason);
      // the call records too: a tenant told of a call by its chat event finds the record, and may act on it at once
      for (const c of routed.calls) await calls?.append(c);
      // so are template quality and category, and what account webhooks say of the clients (quality, limits, onboarding, deactivation)
      for (const t of routed.templateUpdates) await templates?.applyUpdate(t.businessAccountId, t);
      for (const a of routed.accountUpdates) await applyAccountUpdate?.(a.client, a.update);
      for (const e of routed.events) {
        await bus.publish(e.subject, e.body, { msgId: e.id, headers: e.headers });
        emitted.inc({ type: e.type });
      }
      // the log before the events' redelivery could matter: a redelivered body stores nothing twice
      if (conversations) {
        const stored = routed.logged.length ? await writer.storeLogged(routed.logged) : [];
        for (const u of routed.identityUpdates) {
          const contactId = await conversations.contactFor(u.tenantId, u.clientId, u.change.previous, clock?.now() ?? new Date());
          if (contactId) await conversations.changeIdentity(u.clientId, contactId, u.change);
        }
        for (const l of stored) {
          const owner = await conversations.ownerOf(l.id);
          await live?.publish(l.tenantId, l.clientId, {
            type: 'message',
            message_id: l.id,
            contact_id: owner?.contact_id ?? null,
            direction: l.direction,
            status: owner?.status ?? 'received',
          });
        }
      }
      const owners = routed.statuses.length
        ? await writer.recordStatuses(
            routed.statuses.map((s) => ({
              messageId: s.messageId,
              status: s.status,
              at: s.at,
              errors: s.errors,
              conversation: s.conversation,
              pricing: s.pricing,
            })),
          )
        : [];
      for (const [i, s] of routed.statuses.entries()) {
        const owner = owners[i];
        if (owner && conversations)
          await live?.publish(owner.tenant_id, owner.client_id, {
            type: 'status',
            message_id: s.messageId,
            contact_id: owner.contact_id,
            direction: 'out',
            status: s.status,
          });
      }
      // the statuses' campaign recipients were moved with the statuses' batch (the writer)
      if (campaigns && routed.optOuts?.length) await campaigns.applyOptOuts(routed.optOuts);
      if (routed.unrouted) {
        updates.inc({ outcome: 'unknown_client' }, routed.unrouted);
        logger.warn({ seq: m.seq, changes: routed.unrouted }, 'inbound changes for a phone number or business account of no client; skipped');
      }
      updates.inc({ outcome: 'routed' }, routed.events.filter((e) => e.type === 'chat').length);
      return ACK;
    },
  });
}
