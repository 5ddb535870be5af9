import { create } from '@bufbuild/protobuf';
import { campaigns as cp, messaging as m } from '@gateway/contracts';
import { AppError, type ValidationIssue } from '@gateway/errors';
import { decodePosition, encodePosition, pageSize, takePage, type Db } from '@gateway/store';
import type { Messaging } from '../messaging';
import { parameterIssues, parameterNameIssues, templateIssue } from '../templates/params';
import type { SqlTemplateRepository, TemplateRecord } from '../templates/store';
import {
  COUNT_NAMES,
  type CampaignRow,
  type Counts,
  type NewRecipient,
  type RecipientParams,
  type RecipientRow,
  type RecipientStatus,
  SqlCampaignRepository,
} from './store';
import type { CampaignEventName, CampaignEvents } from './events';

type Json = Record<string, unknown>;

/** The default send rate of a business number (per second) when its client record carries none. */
export const DEFAULT_THROUGHPUT = 80;

/**
 * The number's send rate: the client record's `throughput` (from the provider's webhooks, when the tenant
 * directory has it) else the provider's default. The one place that reads it.
 */
export function throughputOf(client: object): number {
  const t = (client as { throughput?: unknown }).throughput;
  return typeof t === 'number' && t > 0 ? t : DEFAULT_THROUGHPUT;
}

/** A user as the lists keep it: a phone number's digits (the provider's wa_id), or a BSUID as given. */
export const normalizeUser = (u: string): string => (/^\+?[\d\s().-]+$/.test(u) ? u.replace(/[^\d]/g, '') : u.trim());

const campaignNotFound = () => AppError.notFound('campaign_not_found', 'Campaign not found');
const CAMPAIGN_ID = /^[0-9a-f-]{36}$/;
const API_STATUSES: Record<string, RecipientStatus[]> = {
  queued: ['queued', 'claimed', 'sending'],
  sent: ['sent'],
  delivered: ['delivered'],
  read: ['read'],
  failed: ['failed'],
  skipped: ['skipped'],
  deferred: ['deferred'],
  unknown: ['unknown'],
};

/** A send's components: the campaign's, with the recipient's values as the body's parameters. */
export function composeComponents(base: Json[], params: RecipientParams): Json[] {
  if (params === null) return base;
  const parameters = Array.isArray(params)
    ? params.map((text) => ({ type: 'text', text }))
    : Object.entries(params).map(([parameter_name, text]) => ({ type: 'text', parameter_name, text }));
  return [...base.filter((c) => String(c.type).toLowerCase() !== 'body'), { type: 'body', parameters }];
}

/** The recipient's values as the service keeps them (positional list, named map, or none). */
function paramsOf(r: cp.RecipientInput): RecipientParams {
  if (r.positional.length) return [...r.positional];
  const named = Object.entries(r.named);
  return named.length ? Object.fromEntries(named) : null;
}

/**
 * The campaign API of the messaging service (issue 26): campaigns of a tenant's client, their recipients, and
 * the client's opt-out list. A campaign of another tenant or client is not found. Sending is the runner's.
 */
export class Campaigns {
  private readonly repo: SqlCampaignRepository;

  constructor(
    private readonly db: Db,
    private readonly templates: SqlTemplateRepository,
    private readonly messaging: Pick<Messaging, 'resolve'>,
    private readonly events?: CampaignEvents,
  ) {
    this.repo = new SqlCampaignRepository(db);
  }

  private async client(caller: cp.CampaignCaller | undefined) {
    if (!caller?.tenantId || !caller.clientId) throw new AppError('internal', 'caller_missing', 'tenant_id and client_id are required');
    const { client } = await this.messaging.resolve(create(m.CallerContextSchema, { tenantId: caller.tenantId, clientId: caller.clientId }));
    return client;
  }

  /** The tenant's campaign (the caller's client_id is not needed: a campaign id names its client). */
  private async campaign(caller: cp.CampaignCaller | undefined, id: string): Promise<CampaignRow> {
    if (!caller?.tenantId) throw new AppError('internal', 'caller_missing', 'tenant_id is required');
    const row = CAMPAIGN_ID.test(id) ? await this.repo.get(caller.tenantId, id) : undefined;
    if (!row) throw campaignNotFound();
    return row;
  }

  /** The approved template of that name and language, else a 422 naming the field. */
  private async template(tenantId: string, clientId: string, name: string, lang: string): Promise<TemplateRecord> {
    const known = await this.templates.byName({ tenantId, clientId }, name);
    if (!known.length)
      throw templateIssue(['body', 'template_name'], `Template ${name} does not exist for this client (sync the templates first)`, 'template_not_found', name);
    const t = known.find((x) => x.language === lang);
    if (!t) throw templateIssue(['body', 'lang'], `Template ${name} does not exist in ${lang}`, 'template_language_not_found', lang);
    if (t.status !== 'APPROVED')
      throw templateIssue(
        ['body', 'template_name'],
        `Template ${name} (${lang}) is ${t.status}; only APPROVED templates can be sent`,
        'template_not_approved',
        name,
        {
          status: t.status,
        },
      );
    return t;
  }

  /** Each recipient's values against the template's variables: every issue, located at the recipient. */
  private check(t: TemplateRecord, base: Json[], recipients: cp.RecipientInput[], where: (i: number) => Array<string | number>): NewRecipient[] {
    const issues: ValidationIssue[] = [];
    const out: NewRecipient[] = [];
    recipients.forEach((r, i) => {
      const params = paramsOf(r);
      const user = r.to || r.recipient;
      if (!user) {
        issues.push({ loc: [...where(i), 'to'].map(String), msg: 'to is required', type: 'any.required', input: null, ctx: {} });
        return;
      }
      const components = composeComponents(base, params);
      const found = [...parameterIssues(t, components), ...parameterNameIssues(t, components)];
      for (const issue of found.slice(0, 1)) issues.push({ ...issue, loc: [...where(i), 'parameters'].map(String), msg: `${issue.msg} (recipient ${i + 1})` });
      out.push({ to: normalizeUser(user), params });
    });
    if (issues.length) throw new AppError('validation', issues[0].type, issues[0].msg, { details: { detail: issues } });
    return out;
  }

  async create(r: cp.CreateCampaignRequest): Promise<cp.Campaign> {
    const client = await this.client(r.caller);
    const t = await this.template(client.tenantId, client.id, r.templateName, r.lang);
    const base = JSON.parse(r.componentsJson || '[]') as Json[];
    const recipients = this.check(t, base, r.recipients, (i) => ['body', 'recipients', i]);
    const scheduleAt = r.scheduleAt ? new Date(r.scheduleAt) : null;
    const row = await this.repo.create({
      tenantId: client.tenantId,
      clientId: client.id,
      name: r.name,
      templateName: t.name,
      lang: t.language,
      category: t.category.toUpperCase(),
      components: base,
      status: scheduleAt ? 'scheduled' : 'draft',
      scheduleAt,
      ratePerSecond: r.ratePerSecond ?? null,
    });
    await this.repo.addRecipients(row.id, recipients);
    return this.present(row);
  }

  async addRecipients(r: cp.AddRecipientsRequest): Promise<{ added: number; duplicates: number; total: number }> {
    const c = await this.campaign(r.caller, r.campaignId);
    if (c.status === 'completed' || c.status === 'cancelled')
      throw AppError.conflict('campaign_finished', `The campaign is ${c.status}; recipients can no longer be added`, { status: c.status });
    const t = await this.template(c.tenant_id, c.client_id, c.template_name, c.lang);
    const recipients = this.check(t, c.components, r.recipients, (i) => (r.firstRow ? ['body', 'row', r.firstRow + i] : ['body', i]));
    const res = await this.repo.addRecipients(c.id, recipients);
    // a CSV chunk (first_row set) is one of many: counting the campaign after each would read it whole each time
    // (quadratic in the file's length); the edge reads the total once, after the last chunk
    return { ...res, total: r.firstRow ? 0 : (await this.repo.counts(c.id)).total };
  }

  async get(r: cp.GetCampaignRequest): Promise<cp.Campaign> {
    return this.present(await this.campaign(r.caller, r.campaignId));
  }

  async list(r: cp.ListCampaignsRequest): Promise<{ campaigns: cp.Campaign[]; nextCursor?: string }> {
    const client = await this.clientRecord(r.caller);
    const limit = pageSize(r.limit);
    const rows = await this.repo.list(client.tenantId, client.clientId, limit + 1, r.cursor ? decodePosition(r.cursor, CAMPAIGN_ID) : undefined);
    const { page, nextCursor } = takePage(rows, limit, (last) => encodePosition({ at: last.position_at, id: last.id }));
    return { campaigns: await Promise.all(page.map((c) => this.present(c))), nextCursor };
  }

  /** The caller's client, existing and the tenant's (active or not: lists of a deactivated client stay readable). */
  private async clientRecord(caller: cp.CampaignCaller | undefined): Promise<{ tenantId: string; clientId: string }> {
    if (!caller?.tenantId || !caller.clientId) throw new AppError('internal', 'caller_missing', 'tenant_id and client_id are required');
    try {
      await this.client(caller);
    } catch (e) {
      if (!(e instanceof AppError && e.code === 'client_not_active')) throw e;
    }
    return { tenantId: caller.tenantId, clientId: caller.clientId };
  }

  async recipients(r: cp.ListRecipientsRequest): Promise<{ recipients: cp.CampaignRecipient[]; nextCursor?: string }> {
    const c = await this.campaign(r.caller, r.campaignId);
    const limit = pageSize(r.limit);
    let afterSeq: string | undefined;
    if (r.cursor) {
      afterSeq = Buffer.from(r.cursor, 'base64url').toString('utf8');
      if (!/^\d{1,18}$/.test(afterSeq)) throw AppError.invalidCursor(r.cursor);
    }
    const rows = await this.repo.recipients(c.id, { statuses: r.status ? API_STATUSES[r.status] : undefined, limit: limit + 1, afterSeq });
    const { page, nextCursor } = takePage(rows, limit, (last) => Buffer.from(String(last.seq)).toString('base64url'));
    return { recipients: page.map(presentRecipient), nextCursor };
  }

  async control(r: cp.ControlCampaignRequest): Promise<cp.Campaign> {
    const c = await this.campaign(r.caller, r.campaignId);
    const moves: Record<string, { from: CampaignRow['status'][]; to: CampaignRow['status']; event: CampaignEventName }> = {
      start: { from: ['draft', 'scheduled'], to: 'running', event: 'started' },
      pause: { from: ['running', 'scheduled'], to: 'paused', event: 'paused' },
      resume: { from: ['paused'], to: 'running', event: 'resumed' },
      cancel: { from: ['draft', 'scheduled', 'running', 'paused'], to: 'cancelled', event: 'cancelled' },
    };
    const move = moves[r.action];
    if (!move) throw AppError.validation([{ loc: ['path', 'action'], msg: `unknown action ${r.action}`, type: 'any.only', input: r.action, ctx: {} }]);
    // an inactive client cannot send
    if (r.action === 'start' || r.action === 'resume') await this.client({ ...r.caller!, clientId: c.client_id });
    const externalId = (await this.events?.externalId(c)) ?? null;
    // the change, what it does to the recipients and its campaign_status event: one transaction
    const moved = await this.db.tx(async (q) => {
      const repo = new SqlCampaignRepository(q);
      const row = await repo.transition(c.id, move.from, move.to);
      if (!row) return undefined;
      if (r.action === 'pause') await repo.release(c.id);
      if (r.action === 'cancel') await repo.release(c.id, 'cancelled');
      await this.events?.enqueue(q, row, await repo.counts(c.id), move.event, externalId);
      return row;
    });
    if (!moved) {
      throw AppError.conflict('campaign_state_conflict', `A ${c.status} campaign cannot be ${r.action === 'start' ? 'started' : `${r.action}d`}`, {
        status: c.status,
      });
    }
    this.events?.kick();
    return this.present(moved);
  }

  async listOptOuts(r: cp.ListOptOutsRequest): Promise<{ optOuts: cp.OptOut[]; nextCursor?: string }> {
    const { clientId } = await this.clientRecord(r.caller);
    const limit = pageSize(r.limit);
    const rows = await this.repo.listOptOuts(clientId, limit + 1, r.cursor ? decodePosition(r.cursor, /^.{1,256}$/s) : undefined);
    const { page, nextCursor } = takePage(rows, limit, (last) => encodePosition({ at: last.position_at, id: last.user_id }));
    return {
      optOuts: page.map((o) => create(cp.OptOutSchema, { user: o.user_id, source: o.source, createdAt: new Date(o.created_at).toISOString() })),
      nextCursor,
    };
  }

  async addOptOuts(r: cp.AddOptOutsRequest): Promise<number> {
    const { clientId } = await this.clientRecord(r.caller);
    return this.repo.addOptOuts(clientId, [...new Set(r.users.map(normalizeUser))], 'api');
  }

  async removeOptOuts(r: cp.RemoveOptOutsRequest): Promise<number> {
    const { clientId } = await this.clientRecord(r.caller);
    return this.repo.removeOptOuts(clientId, [...new Set(r.users.map(normalizeUser))]);
  }

  async present(c: CampaignRow): Promise<cp.Campaign> {
    return presentCampaign(c, await this.repo.counts(c.id));
  }
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : undefined);

export function presentCampaign(c: CampaignRow, counts: Counts): cp.Campaign {
  return create(cp.CampaignSchema, {
    id: c.id,
    clientId: c.client_id,
    name: c.name,
    templateName: c.template_name,
    lang: c.lang,
    status: c.status,
    scheduleAt: iso(c.schedule_at),
    ratePerSecond: c.rate_per_second ?? undefined,
    counts: Object.fromEntries(COUNT_NAMES.map((k) => [k, counts[k]])),
    createdAt: iso(c.created_at)!,
    updatedAt: iso(c.updated_at)!,
    startedAt: iso(c.started_at),
    completedAt: iso(c.completed_at),
  });
}

function presentRecipient(r: RecipientRow): cp.CampaignRecipient {
  const status = r.status === 'claimed' || r.status === 'sending' ? 'queued' : r.status;
  return create(cp.CampaignRecipientSchema, {
    id: String(r.seq),
    to: r.to_user,
    status,
    messageId: r.message_id ?? undefined,
    errorCode: r.error_code ?? undefined,
    reason: r.reason ?? undefined,
    updatedAt: new Date(r.updated_at).toISOString(),
  });
}
