import { AppError } from '@gateway/errors';
import { directoryChangeMessage } from '@gateway/directory-changes';
import { enqueueMessages } from '@gateway/outbox';
import { decodePosition, encodePosition, pageSize, POSITION_AT, takePage, type Db } from '@gateway/store';
import type { business } from '@gateway/contracts';
import { TENANT_COLUMNS, type TenantRow } from '../store/repository';
import { checkPlan, type Tenants } from '../tenants';
import type { PlanCatalogue } from './plans';

const TENANT_ID = /^[0-9a-f-]{36}$/;
const notFound = () => AppError.notFound('tenant_not_found', 'Tenant not found');
const likePattern = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The operator's side of tenants (issue 28): list and search, change, suspend and resume, erase. Suspension
 * writes a change notice (the dispatcher's cached delivery targets follow it: events are held at once);
 * the edge reads it on every request (BusinessService.Admit), so keys and sessions are refused at once.
 */
export class TenantAdmin {
  constructor(
    private readonly db: Db,
    private readonly tenants: Tenants,
    private readonly plans: PlanCatalogue,
    private readonly published: () => Promise<void>,
  ) {}

  async list(req: business.ListTenantsRequest) {
    const size = pageSize(req.limit);
    const params: unknown[] = [size + 1];
    const where: string[] = [];
    if (req.query) {
      params.push(likePattern(req.query));
      where.push(`(t.name ILIKE $${params.length} OR t.email ILIKE $${params.length})`);
    }
    if (req.cursor) {
      const at = decodePosition(req.cursor, TENANT_ID);
      params.push(at.at, at.id);
      where.push(`(t.created_at, t.id) < ($${params.length - 1}::timestamptz, $${params.length})`);
    }
    const rows = await this.db.query<TenantRow & { position_at: string }>(
      `SELECT ${TENANT_COLUMNS}, ${POSITION_AT.replace('created_at', 't.created_at')} AS position_at FROM tenants t
       ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY t.created_at DESC, t.id DESC LIMIT $1`,
      params,
    );
    const { page, nextCursor } = takePage(rows, size, (last) => encodePosition({ at: last.position_at, id: last.id }));
    return { tenants: page.map(({ position_at: _p, ...r }) => this.tenants.present(r)), nextCursor };
  }

  /** One statement and its change notice in one transaction, answered once the notice is out. */
  private async change(tenantId: string, sql: string, params: unknown[]): Promise<Record<string, unknown> | undefined> {
    const row = await this.db.tx(async (q) => {
      const rows = await q.query<Record<string, unknown>>(sql, params);
      if (rows.length) await enqueueMessages(q, [directoryChangeMessage({ kind: 'tenant', tenantId })]);
      return rows[0];
    });
    if (row) await this.published();
    return row;
  }

  async update(req: business.UpdateTenantRequest) {
    if (req.plan !== undefined) checkPlan(this.plans, req.plan);
    const sets: string[] = [];
    const params: unknown[] = [req.tenantId];
    const set = (column: string, value: string | undefined) => {
      if (value === undefined) return;
      params.push(value);
      sets.push(`${column} = $${params.length}`);
    };
    set('name', req.name);
    set('email', req.email);
    set('plan', req.plan);
    set('billing_customer_id', req.billingCustomerId);
    set('billing_subscription_id', req.billingSubscriptionId);
    const found = sets.length
      ? await this.change(req.tenantId, `UPDATE tenants SET ${sets.join(', ')} WHERE id = $1 RETURNING id`, params)
      : await this.tenants.row(req.tenantId);
    if (!found) throw notFound();
    return { tenant: await this.tenants.get(req.tenantId) };
  }

  async suspend(tenantId: string) {
    const found = await this.change(tenantId, 'UPDATE tenants SET suspended_at = coalesce(suspended_at, now()) WHERE id = $1 RETURNING id', [tenantId]);
    if (!found) throw notFound();
    return { tenant: await this.tenants.get(tenantId) };
  }

  /** Ends the suspension; answers since when it lasted (the last one's start again when repeated, so held events can be replayed again). */
  async resume(tenantId: string) {
    const row = await this.change(
      tenantId,
      `UPDATE tenants SET last_suspended_at = coalesce(suspended_at, last_suspended_at), suspended_at = NULL WHERE id = $1
       RETURNING last_suspended_at`,
      [tenantId],
    );
    if (!row) throw notFound();
    const since = row.last_suspended_at as Date | null;
    return { tenant: await this.tenants.get(tenantId), suspendedSince: since ? since.toISOString() : undefined };
  }
}
