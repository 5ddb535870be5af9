import { AppError } from '@gateway/errors';
import type { ProviderHttp } from './http';

/** A template as the provider lists it (supplement §4). */
export interface ProviderTemplate {
  id: string;
  name: string;
  language: string;
  status: string;
  category: string;
  components: Array<Record<string, unknown>>;
  rejected_reason?: string;
  quality_score?: { score?: string };
  /** `POSITIONAL` or `NAMED` (provider-2026.md §6.1); absent on templates of before named parameters. */
  parameter_format?: string;
}

/** A template to create, as the tenant wrote it: passed on unchanged. */
export interface NewTemplate {
  name: string;
  language: string;
  category: string;
  components: Array<Record<string, unknown>>;
  /** `POSITIONAL` (the provider's default) or `NAMED`, in the tenant's case. */
  parameter_format?: string;
  message_send_ttl_seconds?: number;
}

const FIELDS = 'id,name,language,status,category,components,rejected_reason,quality_score,parameter_format';
/** A business account has at most a few thousand templates: more pages than this means the paging is broken. */
const MAX_PAGES = 100;

/** The template management API of a business account (supplement §4); one request body built here per call. */
export class TemplateCalls {
  constructor(private readonly http: ProviderHttp) {}

  /** POST /{waba_id}/message_templates → `{id, status, category}`; never repeated (it would create a second one). */
  async create(token: string, wabaId: string, t: NewTemplate): Promise<{ id: string; status: string; category: string }> {
    const res = await this.http.call<{ id?: string; status?: string; category?: string }>({
      method: 'POST',
      path: `${wabaId}/message_templates`,
      token,
      json: {
        name: t.name,
        language: t.language,
        category: t.category,
        ...(t.parameter_format === undefined ? {} : { parameter_format: t.parameter_format }),
        ...(t.message_send_ttl_seconds === undefined ? {} : { message_send_ttl_seconds: t.message_send_ttl_seconds }),
        components: t.components,
      },
      idempotent: false,
    });
    if (!res.id) throw new AppError('unavailable', 'provider_bad_response', 'The provider created the template but returned no id');
    return { id: String(res.id), status: res.status ?? 'PENDING', category: res.category ?? t.category.toUpperCase() };
  }

  /** Every template of the business account (all pages). */
  async list(token: string, wabaId: string): Promise<ProviderTemplate[]> {
    const out: ProviderTemplate[] = [];
    let after: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const res = await this.http.call<{ data?: ProviderTemplate[]; paging?: { next?: string; cursors?: { after?: string } } }>({
        method: 'GET',
        path: `${wabaId}/message_templates`,
        token,
        query: { fields: FIELDS, limit: '100', ...(after ? { after } : {}) },
        idempotent: true,
      });
      out.push(...(res.data ?? []).map((t) => ({ ...t, id: String(t.id) })));
      after = res.paging?.cursors?.after;
      if (!res.paging?.next || !after) return out;
    }
    throw new AppError('unavailable', 'provider_bad_response', `The provider listed more than ${MAX_PAGES} pages of templates`);
  }

  get(token: string, templateId: string): Promise<ProviderTemplate> {
    return this.http.call<ProviderTemplate>({ method: 'GET', path: templateId, token, query: { fields: FIELDS }, idempotent: true });
  }

  /** DELETE /{waba_id}/message_templates?name= (every language), or with the id only that one (`hsm_id`). */
  async delete(token: string, wabaId: string, name: string, templateId?: string): Promise<void> {
    await this.http.call({
      method: 'DELETE',
      path: `${wabaId}/message_templates`,
      token,
      query: { name, ...(templateId ? { hsm_id: templateId } : {}) },
      idempotent: true,
    });
  }
}
