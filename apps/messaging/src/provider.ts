import type { ProviderClient } from '@gateway/provider-client';

export interface Credentials {
  phoneNumberId: string;
  accessToken: string;
}

/**
 * The provider calls messaging makes: the shared ProviderClient's own operations (connectProvider of
 * @gateway/provider-client), behind the same kind of port as flows and signup. Failures are AppErrors
 * (rate_limited with Retry-After, provider_rejected with provider_error, timeout, unavailable); provider call
 * metrics come from the client's observer.
 */
export type MessagingProvider = Pick<ProviderClient, 'sendMessage' | 'markRead' | 'blockUsers' | 'calling'>;
