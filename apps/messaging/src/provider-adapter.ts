import { ProviderClient, type ProviderCallObserver } from '@gateway/provider-client';
import type { MessagingConfig } from './config';
import type { BlockOutcome, ProviderPort } from './provider';

/**
 * The messaging service's provider calls over @gateway/provider-client (transport, timeouts, error classification).
 * `observer` is told each call's outcome (provider_calls_total).
 */
export function connectProvider(config: MessagingConfig, observer?: ProviderCallObserver): ProviderPort & { close(): Promise<void> } {
  const client = new ProviderClient({ baseUrl: config.providerBaseUrl, apiVersion: config.providerApiVersion, timeoutMs: config.providerTimeoutMs, observer });
  return {
    async sendMessage(_operation, c, payload) {
      return (await client.sendMessage(c.accessToken, c.phoneNumberId, payload)).messageId;
    },
    async markRead(_operation, c, payload) {
      const p = payload as { message_id: string; typing_indicator?: unknown };
      await client.markRead(c.accessToken, c.phoneNumberId, p.message_id, p.typing_indicator !== undefined);
    },
    async blockUsers(_operation, c, payload, block): Promise<BlockOutcome> {
      const users = (payload as { block_users: Array<{ user: string }> }).block_users.map((u) => u.user);
      const res = await client.blockUsers(c.accessToken, c.phoneNumberId, users, block);
      return { done: res.done.map((d) => d.input), failed: res.failed.map((f) => ({ user: f.input, errors: f.errors })) };
    },
    async call(_operation, c, payload) {
      await client.callAction(c.accessToken, c.phoneNumberId, payload);
    },
    close: () => client.close(),
  };
}
