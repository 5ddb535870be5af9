export interface Credentials {
  phoneNumberId: string;
  accessToken: string;
}

export interface BlockOutcome {
  /** Users the provider blocked (or unblocked). */
  done: string[];
  /** Users it could not, each with the provider's errors. */
  failed: Array<{ user: string; errors: unknown[] }>;
}

/**
 * The provider calls messaging makes. Failures are AppErrors (rate_limited with Retry-After,
 * provider_rejected with provider_error, timeout, unavailable). `operation` names the messaging operation
 * (send_buttons, mark_read...); provider call metrics come from the provider client's observer.
 */
export interface ProviderPort {
  /** POST /{phone_number_id}/messages with a message; the provider's message id. */
  sendMessage(operation: string, c: Credentials, payload: Record<string, unknown>): Promise<string>;
  /** POST /{phone_number_id}/messages with a read receipt (and typing indicator). */
  markRead(operation: string, c: Credentials, payload: Record<string, unknown>): Promise<void>;
  /** POST (block) or DELETE (unblock) /{phone_number_id}/block_users. */
  blockUsers(operation: string, c: Credentials, payload: Record<string, unknown>, block: boolean): Promise<BlockOutcome>;
  /** POST /{phone_number_id}/calls. */
  call(operation: string, c: Credentials, payload: Record<string, unknown>): Promise<void>;
}
