import type { ProviderClient } from '@gateway/provider-client';

type Operation = 'createFlow' | 'getFlow' | 'listFlows' | 'downloadFlowJson' | 'uploadFlowJson' | 'publishFlow' | 'deprecateFlow' | 'deleteFlow';

/**
 * The Flows API calls this service makes: the shared ProviderClient's own operations (connectProvider of
 * @gateway/provider-client: transport, timeouts, retries of safe calls, error classification). Failures are
 * AppErrors; a provider refusal carries `details.provider_error`.
 */
export type FlowsProvider = Pick<ProviderClient, Operation>;
