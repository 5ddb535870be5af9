import { AppError } from '@gateway/errors';
import type { FlowStatus } from './store/repository';

/** The state an operation needs (spec 3.1): update JSON, publish and delete need a draft; deprecate a published flow. */
export type Needed = 'draft' | 'published';

const PROVIDER_STATUS: Record<string, FlowStatus> = {
  DRAFT: 'draft',
  PUBLISHED: 'published',
  DEPRECATED: 'deprecated',
  BLOCKED: 'blocked',
  THROTTLED: 'throttled',
};

export function fromProviderStatus(status: string | undefined): FlowStatus {
  const s = PROVIDER_STATUS[status ?? ''];
  if (!s) throw new AppError('unavailable', 'provider_bad_response', `The provider reported an unknown flow status ${JSON.stringify(status)}`);
  return s;
}

/** Blocked and throttled are set by the provider's health monitoring on a published flow: still published. */
export function satisfies(status: FlowStatus, needed: Needed): boolean {
  return needed === 'draft' ? status === 'draft' : status === 'published' || status === 'blocked' || status === 'throttled';
}

/**
 * Whether a flow in `status` can never again be in the `needed` state. Publishing and deprecating cannot be
 * undone at the provider, so a flow past draft is never a draft again and a deprecated one never published.
 * Such an operation is refused from our record alone, without asking the provider.
 */
export function isPast(status: FlowStatus, needed: Needed): boolean {
  return needed === 'draft' ? status !== 'draft' : status === 'deprecated';
}

/** The 409 of spec 3.1; `status` is left out when only the provider's refusal tells us the state is wrong. */
export function wrongState(needed: Needed, status: FlowStatus | undefined, action: string): AppError {
  const now = status ? `The flow is ${status}` : 'The provider refused';
  return needed === 'draft'
    ? AppError.conflict('flow_not_draft', `${now}: only a draft can be ${action}`, status ? { status } : {})
    : AppError.conflict('flow_not_published', `${now}: only a published flow can be ${action}`, status ? { status } : {});
}
