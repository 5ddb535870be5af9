import type { Queryable } from '@gateway/store';

export interface TemplateRecord {
  template_id: string;
  client_id: string;
  tenant_id: string;
  business_account_id: string;
  name: string;
  language: string;
  category: string;
  status: string;
  components: Array<Record<string, unknown>>;
  rejected_reason: string | null;
  quality: string | null;
  /** `POSITIONAL` or `NAMED`. */
  parameter_format: string;
  updated_at: Date;
}

export type TemplateRow = Omit<TemplateRecord, 'updated_at'>;

export interface TemplateKey {
  tenantId: string;
  clientId: string;
}

/** Keyset position in a client's list (name, language, id order). */
export interface TemplateCursor {
  name: string;
  language: string;
  id: string;
}

/** The local copy of the templates, owned by the messaging service. */
export class SqlTemplateRepository {
  constructor(private readonly q: Queryable) {}

  async upsert(t: TemplateRow): Promise<TemplateRecord> {
    const [row] = await this.q.query<TemplateRecord>(
      `INSERT INTO templates (client_id, template_id, tenant_id, business_account_id, name, language, category, status, components, rejected_reason, quality,
         parameter_format)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11, $12)
       ON CONFLICT (client_id, template_id) DO UPDATE SET name = $5, language = $6, category = $7, status = $8, components = $9::jsonb,
         rejected_reason = $10, quality = COALESCE($11, templates.quality), parameter_format = $12,
         updated_at = CASE WHEN (templates.status, templates.category, templates.components, templates.rejected_reason, templates.parameter_format)
           IS NOT DISTINCT FROM ($8, $7, $9::jsonb, $10, $12) THEN templates.updated_at ELSE now() END
       RETURNING *`,
      [
        t.client_id,
        t.template_id,
        t.tenant_id,
        t.business_account_id,
        t.name,
        t.language,
        t.category,
        t.status,
        JSON.stringify(t.components),
        t.rejected_reason,
        t.quality,
        t.parameter_format,
      ],
    );
    return row;
  }

  async get(k: TemplateKey, templateId: string): Promise<TemplateRecord | undefined> {
    const [row] = await this.q.query<TemplateRecord>('SELECT * FROM templates WHERE tenant_id = $1 AND client_id = $2 AND template_id = $3', [
      k.tenantId,
      k.clientId,
      templateId,
    ]);
    return row;
  }

  /** Every language of a name, for the send-template pre-check. */
  byName(k: TemplateKey, name: string): Promise<TemplateRecord[]> {
    return this.q.query<TemplateRecord>('SELECT * FROM templates WHERE tenant_id = $1 AND client_id = $2 AND name = $3', [k.tenantId, k.clientId, name]);
  }

  list(k: TemplateKey, f: { status?: string; name?: string; limit: number; after?: TemplateCursor }): Promise<TemplateRecord[]> {
    return this.q.query<TemplateRecord>(
      `SELECT * FROM templates WHERE tenant_id = $1 AND client_id = $2
         AND ($3::text IS NULL OR status = $3) AND ($4::text IS NULL OR strpos(name, $4) > 0)
         AND ($5::text IS NULL OR (name, language, template_id) > ($5, $6, $7))
       ORDER BY name, language, template_id LIMIT $8`,
      [k.tenantId, k.clientId, f.status ?? null, f.name ?? null, f.after?.name ?? null, f.after?.language ?? null, f.after?.id ?? null, f.limit],
    );
  }

  /** A status change from the provider's webhook, for every client of the business account that knows the template. */
  async applyStatus(businessAccountId: string, templateId: string, status: string, reason: string | null): Promise<number> {
    if (status === 'DELETED') {
      return (
        await this.q.query('DELETE FROM templates WHERE business_account_id = $1 AND template_id = $2 RETURNING client_id', [businessAccountId, templateId])
      ).length;
    }
    const rows = await this.q.query(
      `UPDATE templates SET status = $3, rejected_reason = $4, updated_at = now() WHERE business_account_id = $1 AND template_id = $2 RETURNING client_id`,
      [businessAccountId, templateId, status, reason],
    );
    return rows.length;
  }

  /** A quality score or a completed recategorisation from the provider's webhooks (provider-2026.md §6.3). */
  async applyUpdate(businessAccountId: string, templateId: string, u: { quality?: string; category?: string }): Promise<number> {
    const rows = await this.q.query(
      `UPDATE templates SET quality = COALESCE($3, quality), category = COALESCE($4, category), updated_at = now()
       WHERE business_account_id = $1 AND template_id = $2 RETURNING client_id`,
      [businessAccountId, templateId, u.quality ?? null, u.category ?? null],
    );
    return rows.length;
  }

  /** Removes templates the provider no longer has: by account (a delete through the gateway) or a client's rows outside a list (sync). */
  async deleteByName(businessAccountId: string, name: string, templateId?: string): Promise<number> {
    const rows = await this.q.query(
      'DELETE FROM templates WHERE business_account_id = $1 AND name = $2 AND ($3::text IS NULL OR template_id = $3) RETURNING template_id',
      [businessAccountId, name, templateId ?? null],
    );
    return rows.length;
  }

  async deleteAllExcept(k: TemplateKey, keep: string[]): Promise<number> {
    const rows = await this.q.query(
      'DELETE FROM templates WHERE tenant_id = $1 AND client_id = $2 AND NOT (template_id = ANY($3::text[])) RETURNING template_id',
      [k.tenantId, k.clientId, keep],
    );
    return rows.length;
  }
}
