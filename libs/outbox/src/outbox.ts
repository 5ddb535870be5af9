import { HEADER_REQUEST_ID, type Bus } from '@gateway/bus';
import type { GatewayEvent } from '@gateway/events';
import { currentRequestId, type Logger } from '@gateway/logger';
import { extractTraceContext, traceHeaders, withContext } from '@gateway/telemetry';
import type { Db, Migration, Queryable } from '@gateway/store';

/**
 * Transactional outbox: an event generated alongside a state change is inserted in the same transaction,
 * and the relay publishes it to JetStream afterwards (Nats-Msg-Id = event id, so a re-publish after a crash
 * is a no-op). A bus outage delays events; it never loses them.
 *
 * The request id and the W3C trace context of the transaction that enqueued a message are stored with it, so
 * the message published later by the relay belongs to the request and the trace that caused it.
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
  await enqueueMessages(q, [event]);
}

/** Any bus message (an event, a change notice, a redelivery), published once the transaction commits. */
export interface OutboxMessage {
  /** Nats-Msg-Id: a repeat within the stream's duplicate window is dropped. */
  id: string;
  subject: string;
  headers: Record<string, string>;
  body: string;
}

/** Many messages in few statements (a bulk replay enqueues thousands). */
export async function enqueueMessages(q: Queryable, messages: OutboxMessage[]): Promise<void> {
  const ROWS = 1000; // 4 parameters a row, far below PostgreSQL's 65535
  for (let i = 0; i < messages.length; i += ROWS) {
    const chunk = messages.slice(i, i + ROWS);
    const params: unknown[] = [];
    const requestId = currentRequestId();
    const trace = traceHeaders();
    const values = chunk.map((m) => {
      // the enqueuing request's id unless the message names one; the active trace context over a copied one
      const headers = requestId || trace.traceparent ? { ...(requestId ? { [HEADER_REQUEST_ID]: requestId } : {}), ...m.headers, ...trace } : m.headers;
      params.push(m.id, m.subject, JSON.stringify(headers), m.body);
      const b = params.length - 4;
      return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4})`;
    });
    await q.query(`INSERT INTO outbox (id, subject, headers, body) VALUES ${values.join(', ')} ON CONFLICT (id) DO NOTHING`, params);
  }
}

export interface OutboxRelay {
  /** Publish pending events now (call after a commit that enqueued some). */
  kick(): void;
  /**
   * Publishes what is pending now and resolves once it is on the bus, or after `maxWaitMs` (the bus may be
   * down: the relay keeps trying in the background). For changes whose notice must be out before the caller
   * is answered.
   */
  flush(maxWaitMs?: number): Promise<void>;
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
      const rows = await opts.db.query<Pending>('SELECT id, subject, headers, body FROM outbox WHERE published_at IS NULL ORDER BY created_at, id LIMIT $1', [
        opts.batch ?? 100,
      ]);
      if (!rows.length) return;
      for (const r of rows) {
        // published in the trace of the transaction that enqueued it (its stored traceparent), not the relay's
        const stored = r.headers;
        await withContext(
          extractTraceContext((k) => stored[k]),
          () => opts.bus.publish(r.subject, r.body, { msgId: r.id, headers: stored, timeoutMs: 3000 }),
        );
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

  const settled = async () => {
    run();
    while (running) await running;
  };

  return {
    kick: run,
    async flush(maxWaitMs = 3000) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([settled(), new Promise<void>((r) => (timer = setTimeout(r, maxWaitMs)))]);
      clearTimeout(timer);
    },
    pending: async () => Number((await opts.db.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL'))[0].n),
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
