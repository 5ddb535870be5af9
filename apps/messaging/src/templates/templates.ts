import { AppError } from '@gateway/errors';
import { isStorableText } from '@gateway/storable-text';
import { pageSize, takePage } from '@gateway/store';
import type { templates as tp } from '@gateway/contracts';
import type { ProviderClient, ProviderTemplate } from '@gateway/provider-client';
import type { ClientCredentialsCache } from '../client-cache';
import { authenticationCodeIssues, parameterIssues, parameterNameIssues, templateIssue } from './params';
import type { SqlTemplateRepository, TemplateCursor, TemplateKey, TemplateRecord } from './store';

interface Account extends TemplateKey {
  wabaId: string;
  token: string;
}

export const templateNotFound = () => AppError.notFound('template_not_found', 'Template not found');

/** A position in a client's list (name, language, id order); opaque to callers: the edge seals it again. */
const encodeCursor = (c: TemplateCursor) => Buffer.from(JSON.stringify([c.name, c.language, c.id])).toString('base64url');

/** The position a cursor of encodeCursor names; anything else, text PostgreSQL cannot compare (a NUL) included, is a 422 naming `cursor`. */
function decodeCursor(s: string): TemplateCursor {
  try {
    const parts = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(parts) && parts.length === 3 && parts.every((p) => typeof p === 'string' && p !== '' && isStorableText(p))) {
      const [name, language, id] = parts as string[];
      return { name, language, id };
    }
  } catch {
    // falls through to the 422
  }
  throw AppError.invalidCursor(s);
}

/**
 * Template management for a tenant's client: the provider owns templates; the local copy (its own table)
 * follows it through creates and deletes made here, `message_template_status_update` webhooks and syncs.
 */
export class Templates {
  constructor(
    private readonly credentials: ClientCredentialsCache,
    private readonly provider: ProviderClient,
    private readonly repo: SqlTemplateRepository,
  ) {}

  private async account(caller: tp.TemplateCaller | undefined): Promise<Account> {
    if (!caller?.tenantId || !caller.clientId) throw new AppError('internal', 'caller_missing', 'tenant_id and client_id are required');
    const { client, accessToken } = await this.credentials.get(caller.tenantId, caller.clientId);
    if (!client) throw AppError.notFound('client_not_found', 'Client not found');
    if (!client.isActive || !client.businessAccountId || !accessToken) {
      throw AppError.conflict(
        'client_not_active',
        `Client is not active (signup_status: ${client.signupStatus}); finish its signup before managing templates`,
        {
          signup_status: client.signupStatus,
        },
      );
    }
    return { tenantId: client.tenantId, clientId: client.id, wabaId: client.businessAccountId, token: accessToken };
  }

  private store(acc: Account, t: ProviderTemplate): Promise<TemplateRecord> {
    return this.repo.upsert({
      template_id: t.id,
      client_id: acc.clientId,
      tenant_id: acc.tenantId,
      business_account_id: acc.wabaId,
      name: t.name,
      language: t.language,
      category: t.category,
      status: t.status,
      components: t.components ?? [],
      rejected_reason: t.rejected_reason && t.rejected_reason !== 'NONE' ? t.rejected_reason : null,
      quality: t.quality_score?.score ?? null,
      parameter_format: t.parameter_format?.toUpperCase() === 'NAMED' ? 'NAMED' : 'POSITIONAL',
    });
  }

  /** Creates the template at the provider with the tenant's fields unchanged (the edge checked them), then keeps its copy. */
  async create(r: tp.CreateTemplateRequest): Promise<TemplateRecord> {
    const acc = await this.account(r.caller);
    const components = JSON.parse(r.componentsJson || '[]') as Array<Record<string, unknown>>;
    const created = await this.provider.templates.create(acc.token, acc.wabaId, {
      name: r.name,
      language: r.language,
      category: r.category,
      components,
      parameter_format: r.parameterFormat,
      message_send_ttl_seconds: r.messageSendTtlSeconds,
    });
    return this.store(acc, {
      id: created.id,
      name: r.name,
      language: r.language,
      category: created.category,
      status: created.status,
      components,
      parameter_format: r.parameterFormat,
    });
  }

  async get(r: tp.GetTemplateRequest): Promise<TemplateRecord> {
    const acc = await this.account(r.caller);
    const found = await this.repo.get(acc, r.templateId);
    if (!found) throw templateNotFound();
    return found;
  }

  async list(r: tp.ListTemplatesRequest): Promise<{ records: TemplateRecord[]; nextCursor?: string }> {
    const acc = await this.account(r.caller);
    const limit = pageSize(r.limit);
    const rows = await this.repo.list(acc, { status: r.status, name: r.name, limit: limit + 1, after: r.cursor ? decodeCursor(r.cursor) : undefined });
    const { page, nextCursor } = takePage(rows, limit, (last) => encodeCursor({ name: last.name, language: last.language, id: last.template_id }));
    return { records: page, nextCursor };
  }

  /** Deletes every language of a name, or one template (its name read from the local copy) at the provider, then locally. */
  async delete(r: tp.DeleteTemplatesRequest): Promise<number> {
    const acc = await this.account(r.caller);
    let name = r.name;
    if (r.templateId) {
      const known = await this.repo.get(acc, r.templateId);
      if (!known || (name && known.name !== name)) throw templateNotFound();
      name = known.name;
    } else if (!(await this.repo.byName(acc, name)).length) {
      throw templateNotFound();
    }
    await this.provider.templates.delete(acc.token, acc.wabaId, name, r.templateId).catch(async (e: unknown) => {
      // the provider no longer has it (deleted elsewhere): the local copy follows, and the answer is not found
      if (e instanceof AppError && e.kind === 'validation' && (e.details.provider_error as { subcode?: number } | undefined)?.subcode === 2593002) {
        await this.repo.deleteByName(acc.wabaId, name, r.templateId);
        throw templateNotFound();
      }
      throw e;
    });
    return this.repo.deleteByName(acc.wabaId, name, r.templateId);
  }

  async sync(r: tp.SyncTemplatesRequest): Promise<{ synced: number; removed: number }> {
    const acc = await this.account(r.caller);
    const listed = await this.provider.templates.list(acc.token, acc.wabaId);
    for (const t of listed) await this.store(acc, t);
    const removed = await this.repo.deleteAllExcept(
      acc,
      listed.map((t) => t.id),
    );
    return { synced: listed.length, removed };
  }

  /** A `message_template_status_update` from the provider, applied to every client's copy of that template. */
  applyStatus(businessAccountId: string, templateId: string, status: string, reason: string | null): Promise<number> {
    return this.repo.applyStatus(businessAccountId, templateId, status, reason);
  }

  /**
   * The send-template check against the local copy, before any provider call: a language the name does not
   * exist in, a template that is not APPROVED, parameters that do not match its body, header and buttons in
   * number, or in name (a NAMED template's `parameter_name`s) are a 422 naming the field. A name the copy does
   * not know is left to the provider.
   */
  /** A template's quality or category as the provider's webhooks changed it, for every client of the account. */
  applyUpdate(businessAccountId: string, u: { templateId: string; quality?: string; category?: string }): Promise<number> {
    return this.repo.applyUpdate(businessAccountId, u.templateId, u);
  }

  async checkSend(k: TemplateKey, name: string, language: string, components: unknown): Promise<string | undefined> {
    const known = await this.repo.byName(k, name);
    if (!known.length) return undefined;
    const t = known.find((x) => x.language === language);
    if (!t) {
      throw templateIssue(
        ['body', 'lang'],
        `Template ${name} does not exist in ${language} (it exists in ${known
          .map((x) => x.language)
          .sort()
          .join(', ')})`,
        'template_language_not_found',
        language,
        {
          languages: known.map((x) => x.language).sort(),
        },
      );
    }
    if (t.status !== 'APPROVED') {
      throw templateIssue(
        ['body', 'template_name'],
        `Template ${name} (${language}) is ${t.status}; only APPROVED templates can be sent`,
        'template_not_approved',
        name,
        {
          status: t.status,
          ...(t.rejected_reason ? { rejected_reason: t.rejected_reason } : {}),
        },
      );
    }
    const issues = parameterIssues(t, components);
    if (issues.length) throw new AppError('validation', 'template_param_count_mismatch', issues[0].msg, { details: { detail: issues } });
    const names = parameterNameIssues(t, components);
    if (names.length) throw new AppError('validation', 'template_param_name_mismatch', names[0].msg, { details: { detail: names } });
    const code = authenticationCodeIssues(t, components);
    if (code.length) throw new AppError('validation', 'template_param_value_invalid', code[0].msg, { details: { detail: code } });
    return t.category;
  }
}

export function presentTemplate(t: TemplateRecord) {
  return {
    id: t.template_id,
    clientId: t.client_id,
    name: t.name,
    language: t.language,
    category: t.category,
    status: t.status,
    componentsJson: JSON.stringify(t.components),
    rejectedReason: t.rejected_reason ?? undefined,
    quality: t.quality ?? undefined,
    parameterFormat: t.parameter_format,
    updatedAt: new Date(t.updated_at).toISOString(),
  };
}
