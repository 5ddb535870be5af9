import { isAppError, type ProviderErrorInfo } from '@gateway/errors';
import type { ProviderClient } from '@gateway/provider-client';
import type { PinVault } from './pins';

/**
 * The provider operations of embedded signup (reference §6.2): the shared ProviderClient's own (connectProvider of
 * @gateway/provider-client), behind the same kind of port as messaging and flows.
 */
export type OnboardingProvider = Pick<ProviderClient, 'exchangeCode' | 'registerPhone' | 'subscribeApp' | 'listCatalogs'>;

/** Machine words of the failing step: stored on the session and the client, and sent as `?reason=`. */
export const STEP_REASONS = {
  exchange: 'code_exchange_failed',
  register: 'phone_registration_failed',
  subscribe: 'webhook_subscription_failed',
  catalog: 'catalog_lookup_failed',
} as const;

/** A step of the signup failed; `detail` is safe to store and log (never a token, code or PIN). */
export class StepFailed extends Error {
  constructor(
    readonly reason: string,
    readonly detail: string,
    readonly providerCode: number | null,
  ) {
    super(`${reason}: ${detail}`);
  }
}

export async function step<T>(reason: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    throw failure(reason, e);
  }
}

export function failure(reason: string, e: unknown): StepFailed {
  if (e instanceof StepFailed) return e;
  if (isAppError(e)) {
    const provider = e.details.provider_error as ProviderErrorInfo | undefined;
    return new StepFailed(reason, provider?.message ?? e.message, provider?.code ?? null);
  }
  return new StepFailed(reason, 'Unexpected error', null);
}

export interface OnboardingInput {
  clientId: string;
  code: string;
  wabaId: string;
  phoneNumberId: string;
}

export interface Onboarded {
  accessToken: string;
  catalogId: string | undefined;
}

/**
 * The provider side of completing a signup, in order: the code for the business's token, the phone number
 * registered with the gateway's PIN, the app subscribed to the account's webhooks, and the linked catalog
 * (the first one, if any). The first failing step stops the rest.
 */
export async function onboard(provider: OnboardingProvider, pins: PinVault, input: OnboardingInput): Promise<Onboarded> {
  const { accessToken } = await step(STEP_REASONS.exchange, () => provider.exchangeCode(input.code));
  await step(STEP_REASONS.register, async () =>
    provider.registerPhone(accessToken, input.phoneNumberId, await pins.pinFor(input.phoneNumberId, input.clientId)),
  );
  await step(STEP_REASONS.subscribe, () => provider.subscribeApp(accessToken, input.wabaId));
  const catalogs = await step(STEP_REASONS.catalog, () => provider.listCatalogs(accessToken, input.wabaId));
  return { accessToken, catalogId: catalogs[0]?.id };
}
