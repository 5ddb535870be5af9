import { randomUUID } from 'node:crypto';
import { directoryChangeSubject, STREAMS, type Bus } from '@gateway/bus';
import type { Logger } from '@gateway/logger';
import type { OutboxMessage } from '@gateway/outbox';
import { DeliverPolicy } from 'nats';

/**
 * What changed in the tenant directory, for the processes that cache its data (edge API keys, messaging
 * credentials and inbound routing, dispatcher delivery targets):
 * - `tenant`: its webhook URL or secret; every cached value of the tenant goes.
 * - `api_key`: a key of the tenant was revoked; the tenant's cached keys go.
 * - `client`: anything of one client (URL, events, webhook status, activation, token, ids); its phone number
 *   and business account ids, before and after, name the inbound routes that may hold it.
 */
export const DIRECTORY_CHANGE_KINDS = ['tenant', 'api_key', 'client'] as const;

export interface DirectoryChange {
  kind: (typeof DIRECTORY_CHANGE_KINDS)[number];
  tenantId: string;
  clientId?: string;
  phoneNumberIds?: string[];
  businessAccountIds?: string[];
}

/**
 * JSON Schema of a notice's body (draft 2020-12 and draft-07 alike; no refs), for the AsyncAPI document of
 * the bus. Closed: a field added to `DirectoryChange` without it fails the notices test.
 */
export const directoryChangeSchema: { readonly [keyword: string]: unknown } = Object.freeze({
  title: 'DirectoryChange',
  description: 'What changed in the tenant directory; a process caching its data drops what the notice names.',
  type: 'object',
  required: ['kind', 'tenantId'],
  additionalProperties: false,
  properties: {
    kind: {
      type: 'string',
      enum: [...DIRECTORY_CHANGE_KINDS],
      description:
        "`tenant`: its webhook URL or secret (drop every cached value of the tenant); `api_key`: a key was revoked (drop the tenant's cached keys); `client`: anything of one client.",
    },
    tenantId: { type: 'string', description: 'The tenant concerned.' },
    clientId: { type: 'string', description: 'The client concerned (`client` notices).' },
    phoneNumberIds: { type: 'array', items: { type: 'string' }, description: "The client's phone number ids before and after the change (`client` notices)." },
    businessAccountIds: {
      type: 'array',
      items: { type: 'string' },
      description: "The client's business account ids before and after the change (`client` notices).",
    },
  },
});

/** The notice as an outbox message: written in the transaction of the change, so it is never lost. */
export function directoryChangeMessage(change: DirectoryChange): OutboxMessage {
  const id = `change-${randomUUID()}`;
  return { id, subject: directoryChangeSubject(change.kind, change.tenantId), headers: {}, body: JSON.stringify(change) };
}

export interface DirectoryChangeFollower {
  stop(): Promise<void>;
}

/**
 * Every notice published from now on, in order, to `onChange` (each process reads them all: an ordered
 * consumer, not a shared durable). After a reconnect, notices may have been missed while away: `onGap`
 * then drops everything (the caches' TTLs are the fallback while the bus is unreachable).
 */
export async function followDirectoryChanges(opts: {
  bus: Bus;
  logger: Logger;
  onChange(change: DirectoryChange): void;
  onGap(): void;
}): Promise<DirectoryChangeFollower> {
  let stopping = false;
  let current: { stop(): void } | undefined;
  const started = new Promise<void>((resolve) => {
    const loop = async () => {
      while (!stopping) {
        try {
          const consumer = await opts.bus.js.consumers.get(STREAMS.directoryChanges.name, { deliver_policy: DeliverPolicy.New });
          const messages = await consumer.consume();
          current = messages;
          resolve();
          for await (const m of messages) {
            try {
              opts.onChange(JSON.parse(m.string()) as DirectoryChange);
            } catch (e) {
              opts.logger.warn({ err: e, subject: m.subject }, 'unreadable directory change notice; ignored');
            }
          }
        } catch (e) {
          if (stopping) break;
          opts.logger.warn({ err: e }, 'directory change notices interrupted; resuming');
        }
        if (!stopping) {
          opts.onGap();
          await new Promise((r) => setTimeout(r, 500));
        }
      }
      resolve();
    };
    void loop();
  });
  void (async () => {
    for await (const s of opts.bus.nc.status()) {
      if (s.type === 'reconnect') opts.onGap();
    }
  })().catch(() => undefined);
  await started;
  return {
    async stop() {
      stopping = true;
      current?.stop();
    },
  };
}
