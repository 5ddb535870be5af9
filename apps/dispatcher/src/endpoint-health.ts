import type { Db } from '@gateway/store';

/**
 * Whether a client's webhook URL has failed every attempt for too long. A failed attempt opens (or extends)
 * the URL's failing period; a success ends it. Only failing URLs have a row, and this process remembers which,
 * so a success costs a write only when it ends a failing period.
 */
export class EndpointHealth {
  private readonly failing = new Set<string>();

  private constructor(
    private readonly db: Db,
    private readonly disableAfterMs: number,
  ) {}

  static async open(db: Db, disableAfterMs: number): Promise<EndpointHealth> {
    const h = new EndpointHealth(db, disableAfterMs);
    for (const r of await db.query<{ client_id: string; url: string }>('SELECT client_id, url FROM endpoint_health')) h.failing.add(key(r.client_id, r.url));
    return h;
  }

  async succeeded(clientId: string, url: string): Promise<void> {
    const k = key(clientId, url);
    if (!this.failing.has(k)) return;
    this.failing.delete(k);
    await this.db.query('DELETE FROM endpoint_health WHERE client_id = $1 AND url = $2', [clientId, url]);
  }

  /**
   * Records a failed attempt; true when the URL has now failed every attempt for the disable period. Another
   * replica's success may not have ended the period here, so the delivery records have the last word: a
   * success since the period began starts it again from now.
   */
  async failed(tenantId: string, clientId: string, url: string): Promise<boolean> {
    this.failing.add(key(clientId, url));
    const [row] = await this.db.query<{ failing_since: Date }>(
      `INSERT INTO endpoint_health AS h (client_id, url, tenant_id, failing_since, last_failure_at) VALUES ($1, $2, $3, now(), now())
       ON CONFLICT (client_id, url) DO UPDATE SET last_failure_at = now() RETURNING h.failing_since`,
      [clientId, url, tenantId],
    );
    const since = new Date(row.failing_since);
    if (Date.now() - since.getTime() < this.disableAfterMs) return false;
    const succeeded = await this.db.query(
      // a series ends within minutes of its creation: the day before bounds the scan to the index's recent end
      `SELECT 1 FROM deliveries WHERE tenant_id = $1 AND client_id = $2 AND status = 'succeeded' AND created_at > $4::timestamptz - interval '1 day'
         AND updated_at > $4 AND url = $3 LIMIT 1`,
      [tenantId, clientId, url, since],
    );
    if (succeeded.length) {
      await this.db.query('UPDATE endpoint_health SET failing_since = now() WHERE client_id = $1 AND url = $2', [clientId, url]);
      return false;
    }
    return true;
  }

  /** The URL was disabled: its period is over (a re-enabled webhook starts afresh). */
  async reset(clientId: string, url: string): Promise<void> {
    this.failing.delete(key(clientId, url));
    await this.db.query('DELETE FROM endpoint_health WHERE client_id = $1 AND url = $2', [clientId, url]);
  }
}

function key(clientId: string, url: string): string {
  return `${clientId}\u0000${url}`;
}
