import { randomUUID } from 'node:crypto';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { business } from '@gateway/contracts';
import { decodePosition, encodePosition, GroupCommit, pageSize, POSITION_AT, takePage, type Db } from '@gateway/store';

type EntryInit = MessageInitShape<typeof business.AuditEntrySchema>;

interface AuditRow {
  id: string;
  tenant_id: string | null;
  actor_kind: string;
  actor: string;
  action: string;
  method: string;
  route: string;
  target_id: string | null;
  status: number;
  code: string | null;
  request_id: string;
  created_at: Date;
  position_at: string;
}

const ENTRY_ID = /^[0-9a-f-]{36}$/;

/** The audit log (issue 28): what the edge records of every state-changing request; no body, no secret. */
export class AuditLog {
  /** Entries recorded together are written in one multi-row INSERT; each caller is answered once its row is written. */
  private readonly commits: GroupCommit<business.AuditEntry>;

  constructor(private readonly db: Db) {
    this.commits = new GroupCommit((entries) => this.write(entries), { maxBatch: 200, lanes: 4 });
  }

  record(e: business.AuditEntry): Promise<void> {
    return this.commits.add(e);
  }

  /** Writes what is waiting (at shutdown). */
  flush(): Promise<void> {
    return this.commits.flush();
  }

  private async write(entries: business.AuditEntry[]): Promise<void> {
    const params: unknown[] = [];
    const rows = entries.map((e) => {
      params.push(
        randomUUID(),
        e.tenantId || null,
        e.actorKind,
        e.actor,
        e.action,
        e.method,
        e.route,
        e.targetId || null,
        e.status,
        e.code || null,
        e.requestId,
      );
      const b = params.length - 11;
      return `(${Array.from({ length: 11 }, (_, i) => `$${b + i + 1}`).join(', ')})`;
    });
    await this.db.query(
      `INSERT INTO audit_log (id, tenant_id, actor_kind, actor, action, method, route, target_id, status, code, request_id) VALUES ${rows.join(', ')}`,
      params,
    );
  }

  async list(req: business.ListAuditLogRequest): Promise<{ entries: EntryInit[]; nextCursor?: string }> {
    const size = pageSize(req.limit);
    const params: unknown[] = [size + 1];
    const where: string[] = [];
    const add = (sql: (n: number) => string, value: unknown) => {
      params.push(value);
      where.push(sql(params.length));
    };
    // a tenant sees what its keys and sessions did (an operator's actions on it are in the operators' log)
    if (req.tenantId) {
      add((n) => `tenant_id = $${n}`, req.tenantId);
      where.push(`actor_kind <> 'operator'`);
    }
    if (req.action) add((n) => `action = $${n}`, req.action);
    if (req.actor) add((n) => `actor = $${n}`, req.actor);
    if (req.cursor) {
      const at = decodePosition(req.cursor, ENTRY_ID);
      params.push(at.at, at.id);
      where.push(`(created_at, id) < ($${params.length - 1}::timestamptz, $${params.length})`);
    }
    const rows = await this.db.query<AuditRow>(
      `SELECT *, ${POSITION_AT} AS position_at FROM audit_log ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY created_at DESC, id DESC LIMIT $1`,
      params,
    );
    const { page, nextCursor } = takePage(rows, size, (last) => encodePosition({ at: last.position_at, id: last.id }));
    return {
      entries: page.map((r) => ({
        id: r.id,
        tenantId: r.tenant_id ?? undefined,
        actorKind: r.actor_kind,
        actor: r.actor,
        action: r.action,
        method: r.method,
        route: r.route,
        targetId: r.target_id ?? undefined,
        status: r.status,
        code: r.code ?? undefined,
        requestId: r.request_id,
        createdAt: r.created_at.toISOString(),
      })),
      nextCursor,
    };
  }
}
