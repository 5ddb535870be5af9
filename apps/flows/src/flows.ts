import { AppError, isAppError, toAppError } from '@gateway/errors';
import type { flows as f, tenantDirectory as td } from '@gateway/contracts';
import type { Logger } from '@gateway/logger';
import type { ServiceClient } from '@gateway/rpc';
import { decodePosition, encodePosition, pageSize, takePage } from '@gateway/store';
import { resolveAccount, type Account } from './account';
import { isPast, satisfies, wrongState, type Needed } from './flow-state';
import type { FlowsProvider } from './provider';
import { providerInfo } from './provider-refusals';
import type { FlowRecord, FlowRepository } from './store/repository';
import { flowNotFound, keyOf, type FlowSync } from './sync';
import { flowValidationIssues } from './validation-issues';

/** Provider flow ids are numeric strings; anything else cannot name a flow (and must not reach a URL path). */
function checkFlowId(flowId: string): string {
  if (!/^\d{1,64}$/.test(flowId)) throw flowNotFound();
  return flowId;
}

function parseFlowJson(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw AppError.validation([{ loc: ['body', 'flow_json'], msg: 'flow_json must be a JSON object', type: 'object_type', input: null, ctx: {} }]);
  }
  return value as Record<string, unknown>;
}

/** The provider's flow ids: digits. */
const FLOW_ID = /^\d{1,64}$/;

/**
 * The file uploaded to the provider. Pretty-printed: the provider reports line/column ranges in this text,
 * and with one property per line they point at the property itself.
 */
const fileText = (flowJson: unknown) => JSON.stringify(flowJson, null, 2);

/**
 * Flow operations of spec 4.5 and decisions.md. The provider owns a flow's real state; the state rules of
 * spec 3.1 are checked against it (refreshed before every state-changing call) before any change is asked
 * for, and the provider's own refusals are answered the same way. Each change the provider made is logged
 * (`flow created`, `flow published`...), with the request's id and trace.
 */
export class Flows {
  constructor(
    private readonly directory: ServiceClient<typeof td.TenantDirectoryService>,
    private readonly provider: FlowsProvider,
    private readonly repo: FlowRepository,
    private readonly sync: FlowSync,
    private readonly logger: Logger,
  ) {}

  /** A new draft under the client's business account; validation errors of its JSON are kept on the record. */
  async create(r: f.CreateFlowRequest): Promise<FlowRecord> {
    const acc = await resolveAccount(this.directory, r.caller);
    const flowJson = r.flowJson ? parseFlowJson(r.flowJson) : undefined;
    // the source of a clone must be this account's flow, like any flow the caller names
    const source = r.cloneFlowId ? await this.sync.refresh(acc, checkFlowId(r.cloneFlowId)) : undefined;
    const created = await this.provider
      .createFlow(acc.token, acc.wabaId, {
        name: r.name,
        categories: r.categories,
        flowJson: flowJson === undefined ? undefined : fileText(flowJson),
        cloneFlowId: source?.flow_id,
        endpointUri: r.endpointUri,
      })
      .catch(async (e: unknown) => {
        throw await this.nameTaken(acc, r.name, e);
      });
    this.logged(acc, created.id, 'created');
    if (flowJson === undefined && source) {
      // a clone without JSON of its own: the provider copied the source's, and knows its verdict on it
      return this.sync.store(acc, await this.provider.getFlow(acc.token, created.id), { value: source.flow_json });
    }
    return this.sync.store(
      acc,
      { id: created.id, name: r.name, status: 'DRAFT', categories: r.categories, validation_errors: created.validationErrors },
      { value: flowJson ?? null },
    );
  }

  async get(r: f.GetFlowRequest): Promise<FlowRecord> {
    const acc = await resolveAccount(this.directory, r.caller);
    return this.sync.refresh(acc, checkFlowId(r.flowId));
  }

  /**
   * send-flow's check (issues 14 and 23): the client may send only a flow of its own business account, and a
   * flow of another tenant or account is refused exactly like one that exists nowhere (404 flow_not_found, the
   * same provider call for both), so an answer never tells them apart. A flow recorded for this client passes
   * without a provider call; any other is asked of the provider with the client's token (which does not show
   * another account's flows) and recorded when it is the account's (made in the provider's own tools). A
   * client without its business account is messaging's to refuse.
   */
  async checkUse(r: f.CheckFlowUseRequest): Promise<void> {
    if (!FLOW_ID.test(r.flowId)) throw flowNotFound();
    const acc = await resolveAccount(this.directory, r.caller).catch((e: unknown) => {
      if (isAppError(e) && e.code === 'client_not_active') return undefined;
      throw e;
    });
    if (!acc || (await this.repo.get(keyOf(acc, r.flowId)))) return;
    await this.sync.confirm(acc, r.flowId);
  }

  /**
   * A page of the client's flows, newest first. The first page (no cursor) syncs the records with the
   * provider's list first; the next pages read the records after the cursor only (no provider call), so a walk
   * sees one consistent order: a flow created meanwhile sorts before the walk's position and shifts nothing.
   */
  async list(r: f.ListFlowsRequest): Promise<{ flows: FlowRecord[]; nextCursor?: string }> {
    const size = pageSize(r.limit);
    const after = r.cursor === undefined ? undefined : decodePosition(r.cursor, FLOW_ID);
    const acc = await resolveAccount(this.directory, r.caller);
    if (!after) await this.sync.syncAll(acc);
    const rows = await this.repo.list(acc.tenantId, acc.clientId, size + 1, after);
    const { page, nextCursor } = takePage(rows, size, (last) => encodePosition(last.position));
    return { flows: page.map((p) => p.record), nextCursor };
  }

  /**
   * Replaces a draft's JSON. The provider keeps a JSON with validation errors (so does our record); they are
   * answered as a 422 with one detail item per error.
   */
  async updateJson(r: f.UpdateFlowJsonRequest): Promise<FlowRecord> {
    const acc = await resolveAccount(this.directory, r.caller);
    const flowId = checkFlowId(r.flowId);
    const flowJson = parseFlowJson(r.flowJson);
    await this.current(acc, flowId, 'draft', 'updated');
    const errors = await this.provider.uploadFlowJson(acc.token, flowId, fileText(flowJson)).catch(async (e: unknown) => {
      throw await this.sync.refusal(acc, flowId, e, 'updated');
    });
    const record = await this.repo.setJson(keyOf(acc, flowId), flowJson, errors);
    if (!record) throw flowNotFound();
    if (errors.length) {
      throw AppError.validation(
        flowValidationIssues(errors, flowJson),
        `The provider reported ${errors.length} validation error(s) in the flow JSON; the draft keeps it`,
      );
    }
    return record;
  }

  async publish(r: f.PublishFlowRequest): Promise<FlowRecord> {
    const acc = await resolveAccount(this.directory, r.caller);
    const flowId = checkFlowId(r.flowId);
    const current = await this.current(acc, flowId, 'draft', 'published');
    if (current.validation_errors.length) {
      throw AppError.conflict('flow_has_validation_errors', 'The flow JSON has validation errors: fix them before publishing', {
        validation_errors: current.validation_errors,
      });
    }
    await this.provider.publishFlow(acc.token, flowId).catch(async (e: unknown) => {
      throw await this.sync.refusal(acc, flowId, e, 'published');
    });
    this.logged(acc, flowId, 'published');
    return this.changed(acc, flowId, 'published');
  }

  async deprecate(r: f.DeprecateFlowRequest): Promise<FlowRecord> {
    const acc = await resolveAccount(this.directory, r.caller);
    const flowId = checkFlowId(r.flowId);
    await this.current(acc, flowId, 'published', 'deprecated');
    await this.provider.deprecateFlow(acc.token, flowId).catch(async (e: unknown) => {
      throw await this.sync.refusal(acc, flowId, e, 'deprecated');
    });
    this.logged(acc, flowId, 'deprecated');
    return this.changed(acc, flowId, 'deprecated');
  }

  async delete(r: f.DeleteFlowRequest): Promise<void> {
    const acc = await resolveAccount(this.directory, r.caller);
    const flowId = checkFlowId(r.flowId);
    await this.current(acc, flowId, 'draft', 'deleted');
    await this.provider.deleteFlow(acc.token, flowId).catch(async (e: unknown) => {
      throw await this.sync.refusal(acc, flowId, e, 'deleted');
    });
    this.logged(acc, flowId, 'deleted');
    await this.repo.delete(keyOf(acc, flowId));
  }

  /**
   * The provider refuses a duplicate name with its generic invalid-parameter code (100); only then is the
   * account's list read, to answer that case as the 409 it is.
   */
  private async nameTaken(acc: Account, name: string, e: unknown): Promise<AppError> {
    const err = toAppError(e);
    if (providerInfo(err)?.code !== 100) return err;
    const existing = await this.provider.listFlows(acc.token, acc.wabaId).catch(() => []);
    if (!existing.some((pf) => pf.name === name)) return err;
    return AppError.conflict('flow_name_taken', `A flow named "${name}" already exists in this business account`, { provider_error: providerInfo(err) });
  }

  /**
   * The flow in the state the operation needs, or a 409. A record already past that state is refused without
   * any provider call (publishing and deprecating are irreversible); otherwise the provider's real state is
   * read first, so a change made behind our back is seen.
   */
  private async current(acc: Account, flowId: string, needed: Needed, action: string): Promise<FlowRecord> {
    const known = await this.repo.get(keyOf(acc, flowId));
    if (known && isPast(known.status, needed)) throw wrongState(needed, known.status, action);
    const fresh = await this.sync.refresh(acc, flowId);
    if (!satisfies(fresh.status, needed)) throw wrongState(needed, fresh.status, action);
    return fresh;
  }

  /** The provider made a change: worth a line (publishing and deprecating cannot be undone). */
  private logged(acc: Account, flowId: string, change: 'created' | 'published' | 'deprecated' | 'deleted'): void {
    this.logger.info({ client_id: acc.clientId, flow_id: flowId }, `flow ${change}`);
  }

  private async changed(acc: Account, flowId: string, status: 'published' | 'deprecated'): Promise<FlowRecord> {
    const record = await this.repo.setStatus(keyOf(acc, flowId), status);
    if (!record) throw flowNotFound();
    return record;
  }
}
