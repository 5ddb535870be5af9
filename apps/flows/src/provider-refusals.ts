import type { AppError, ProviderErrorInfo } from '@gateway/errors';
import type { Needed } from './flow-state';

/**
 * The provider's Flows API refusals that mean "the flow is not in the state this needs" (provider reference
 * §5.1): 139001 can't update (not a draft), 139002 can't publish (not a draft, or a draft that is not
 * publishable), 139003 can't deprecate (not published), 139004 can't delete (not a draft).
 */
export const STATE_REFUSALS: Record<number, Needed> = { 139001: 'draft', 139002: 'draft', 139003: 'published', 139004: 'draft' };

/** The provider's error behind an AppError of the provider client (whatever status it maps to), if any. */
export function providerInfo(e: AppError): ProviderErrorInfo | undefined {
  return e.details.provider_error as ProviderErrorInfo | undefined;
}

/** Graph's "Object with ID … does not exist, cannot be loaded due to missing permissions" (100, subcode 33). */
export function isUnknownObject(e: AppError): boolean {
  const info = providerInfo(e);
  return info?.code === 100 && info.subcode === 33;
}
