import { ProviderClient, type ProviderCallObserver } from '@gateway/provider-client';
import type { FlowsConfig } from './config';

type Operation = 'createFlow' | 'getFlow' | 'listFlows' | 'downloadFlowJson' | 'uploadFlowJson' | 'publishFlow' | 'deprecateFlow' | 'deleteFlow';

/**
 * The Flows API calls this service makes (@gateway/provider-client: transport, timeouts, retries of safe
 * calls, error classification). Failures are AppErrors; a provider refusal carries `details.provider_error`.
 */
export type FlowsProvider = Pick<ProviderClient, Operation>;

/** The provider client; every call's outcome goes to `observer` (the service's provider-call metrics). */
export function connectProvider(config: FlowsConfig, observer: ProviderCallObserver): FlowsProvider & { close(): Promise<void> } {
  return new ProviderClient({ baseUrl: config.providerBaseUrl, apiVersion: config.providerApiVersion, timeoutMs: config.providerTimeoutMs, observer });
}
