import type { Bus } from '@gateway/bus';
import type { GatewayEvent } from '@gateway/events';
import type { Logger } from '@gateway/logger';
import type { Db, Migration, Queryable } from '@gateway/store';

/**
 * Transactional outbox: an event generated alongside a state change is inserted in the same transaction,
 * and the relay publishes it to JetStream afterwards (Nats-Msg-Id = event id, so a re-publish after a crash
 * is a no-op). A bus outage delays events; it never loses them.
 */
export function outboxMigration(version: number): Migration {
  return {
    version,
    name: 'outbox',
    sql: `CREATE TABLE outbox (
      id text PRIMARY KEY,
      subject text NOT NULL,
      headers jsonb NOT NULL,
      body text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      published_at timestamptz
    );
    CREATE INDEX outbox_pending ON outbox (created_at) WHERE published_at IS NULL;`,
  };
}

export async function enqueueEvent(q: Queryable, event: GatewayEvent): Promise<void> {
  await q.query('INSERT INTO outbox (id, subject, headers, body) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING', [
    event.id,
    event.subject,
    JSON.stringify(event.headers),
    event.body,
  ]);
}

export interface OutboxRelay {
  /** Publish pending events now (call after a commit that enqueued some). */
  kick(): void;
  pending(): Promise<number>;
  stop(): Promise<void>;
}

interface Pending {
  id: string;
  subject: string;
  headers: Record<string, string>;
  body: string;
}

export function startOutboxRelay(opts: { db: Db; bus: Bus; logger: Logger; intervalMs?: number; batch?: number }): OutboxRelay {
  const intervalMs = opts.intervalMs ?? 1000;
  let stopped = false;
  let running: Promise<void> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;

  const drain = async () => {
    for (;;) {
      const rows = await opts.db.query<Pending>(
        'SELECT id, subject, headers, body FROM outbox WHERE published_at IS NULL ORDER BY created_at, id LIMIT $1',
        [opts.batch ?? 100],
      );
      if (!rows.length) return;
      for (const r of rows) {
        await opts.bus.publish(r.subject, r.body, { msgId: r.id, headers: r.headers, timeoutMs: 3000 });
        await opts.db.query('UPDATE outbox SET published_at = now() WHERE id = $1', [r.id]);
      }
    }
  };

  const run = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = drain()
      .catch((e) => opts.logger.warn({ err: e }, 'outbox relay could not publish; will retry'))
      .then(async () => {
        // forget what was published a day ago; the stream has it
        await opts.db.query("DELETE FROM outbox WHERE published_at < now() - interval '1 day'").catch(() => undefined);
      })
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          run();
        }
      });
  };

  const tick = () => {
    run();
    if (!stopped) timer = setTimeout(tick, intervalMs);
  };
  tick();

  return {
    kick: run,
    pending: async () => Number((await opts.db.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL'))[0].n),
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
