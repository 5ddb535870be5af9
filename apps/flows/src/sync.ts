import { AppError, toAppError } from '@gateway/errors';
import type { Logger } from '@gateway/logger';
import type { ProviderFlow } from '@gateway/provider-client';
import type { Account } from './account';
import { fromProviderStatus, satisfies, wrongState, type Needed } from './flow-state';
import type { FlowsProvider } from './provider';
import { STATE_REFUSALS, isUnknownObject, providerInfo } from './provider-refusals';
import type { FlowKey, FlowRecord, FlowRepository } from './store/repository';

export const flowNotFound = () => AppError.notFound('flow_not_found', 'Flow not found');

export function keyOf(acc: Account, flowId: string): FlowKey {
  return { tenantId: acc.tenantId, clientId: acc.clientId, flowId };
}

/**
 * Keeps our records in step with the provider, which owns a flow's real state: a flow can be created,
 * published, deprecated or deleted in the provider's own tools, behind the gateway's back.
 */
export class FlowSync {
  constructor(
    private readonly provider: FlowsProvider,
    private readonly repo: FlowRepository,
    private readonly logger: Logger,
  ) {}

  /**
   * The flow as the provider has it now, stored. A flow never seen before is loaded with its JSON (first use);
   * one the provider does not know (any more), or that belongs to another business account, is not found.
   */
  async refresh(acc: Account, flowId: string): Promise<FlowRecord> {
    const pf = await this.accountFlow(acc, flowId);
    const known = await this.repo.get(keyOf(acc, flowId));
    const json = known?.flow_json === null || known?.flow_json === undefined ? await this.providerJson(acc, flowId) : undefined;
    return this.store(acc, pf, json);
  }

  /** Like refresh, without loading a new flow's JSON (one provider call): whether the account has the flow. */
  async confirm(acc: Account, flowId: string): Promise<FlowRecord> {
    return this.store(acc, await this.accountFlow(acc, flowId));
  }

  /** The flow as the provider has it, when it is the client's business account's; else not found. */
  private async accountFlow(acc: Account, flowId: string): Promise<ProviderFlow> {
    let pf: ProviderFlow;
    try {
      pf = await this.provider.getFlow(acc.token, flowId);
    } catch (e) {
      throw await this.unlessGone(keyOf(acc, flowId), toAppError(e));
    }
    const owner = pf.whatsapp_business_account?.id;
    if (owner !== undefined && owner !== acc.wabaId) throw flowNotFound();
    return pf;
  }

  /**
   * Stores every flow of the client's business account as the provider lists them now; records of vanished
   * flows go. The provider lists newest first: they are stored oldest first, so flows seen here for the first
   * time get their created_at (the time of first sight) in the provider's order.
   */
  async syncAll(acc: Account): Promise<void> {
    const listed = await this.provider.listFlows(acc.token, acc.wabaId);
    for (const pf of [...listed].reverse()) await this.store(acc, pf);
    await this.repo.deleteAllExcept(
      acc.tenantId,
      acc.clientId,
      listed.map((pf) => pf.id),
    );
  }

  store(acc: Account, pf: ProviderFlow, flowJson?: { value: unknown }): Promise<FlowRecord> {
    return this.repo.upsert(
      {
        flowId: pf.id,
        clientId: acc.clientId,
        tenantId: acc.tenantId,
        businessAccountId: acc.wabaId,
        name: pf.name ?? '',
        status: fromProviderStatus(pf.status),
        categories: pf.categories ?? [],
        validationErrors: pf.validation_errors ?? [],
      },
      flowJson,
    );
  }

  /**
   * A provider refusal of a state-changing call, as our own rule would have answered it: the provider's state
   * codes (139001–139004) become flow_not_draft / flow_not_published, an unknown flow is not found. Our record
   * is refreshed first, since the refusal means it was out of date.
   */
  async refusal(acc: Account, flowId: string, e: unknown, action: string): Promise<AppError> {
    const err = toAppError(e);
    const key = keyOf(acc, flowId);
    if (isUnknownObject(err)) return this.unlessGone(key, err);
    const info = providerInfo(err);
    const needed: Needed | undefined = info?.code === null || info?.code === undefined ? undefined : STATE_REFUSALS[info.code];
    if (!needed) return err;
    const fresh = await this.refresh(acc, flowId).catch((refreshError: unknown) => {
      this.logger.warn({ err: refreshError, flowId }, 'could not refresh a flow after a provider refusal');
      return undefined;
    });
    const details = { provider_error: info };
    if (info?.code === 139002 && fresh && satisfies(fresh.status, 'draft')) {
      // a draft the provider will not publish: its JSON has errors, or something else its message names
      if (!fresh.validation_errors.length) return err;
      return AppError.conflict('flow_has_validation_errors', 'The flow JSON has validation errors: fix them before publishing', {
        ...details,
        validation_errors: fresh.validation_errors,
      });
    }
    const conflict = wrongState(needed, fresh && !satisfies(fresh.status, needed) ? fresh.status : undefined, action);
    return AppError.conflict(conflict.code, conflict.message, { ...conflict.details, ...details });
  }

  /** The flow's JSON from the provider's FLOW_JSON asset; undefined when it has none or it cannot be read now. */
  private async providerJson(acc: Account, flowId: string): Promise<{ value: unknown } | undefined> {
    try {
      const text = await this.provider.downloadFlowJson(acc.token, flowId);
      return text === null ? undefined : { value: JSON.parse(text) as unknown };
    } catch (e) {
      // not fatal: the record keeps no JSON and the next refresh tries again
      this.logger.warn({ err: e, flowId }, 'could not load the flow JSON from the provider');
      return undefined;
    }
  }

  /** An unknown flow at the provider is gone: our record of it goes too, and the answer is not found. */
  private async unlessGone(key: FlowKey, err: AppError): Promise<AppError> {
    if (!isUnknownObject(err)) return err;
    await this.repo.delete(key);
    return flowNotFound();
  }
}
