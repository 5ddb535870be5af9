import type { tenantDirectory as td } from '@gateway/contracts';
import type { ServiceClient } from '@gateway/rpc';
import { ClientCredentialsCache } from './client-cache';

/** A directory whose client's messaging limit is `limit.value`, counting its lookups. */
function directory(limit: { value: string }) {
  const calls = { n: 0 };
  const client = {
    getClientCredentials: async () => {
      calls.n += 1;
      return { client: { id: 'c1', messagingLimit: limit.value }, accessToken: 't' } as unknown as td.GetClientCredentialsResponse;
    },
  } as unknown as ServiceClient<typeof td.TenantDirectoryService>;
  return { client, calls };
}

describe('ClientCredentialsCache', () => {
  it('serves a burst of lookups from one call to the directory', async () => {
    const limit = { value: '' };
    const dir = directory(limit);
    const cache = new ClientCredentialsCache(dir.client, 60_000);
    await Promise.all([cache.get('t1', 'c1'), cache.get('t1', 'c1'), cache.get('t1', 'c1')]);
    await cache.get('t1', 'c1');
    expect(dir.calls.n).toBe(1);
  });

  it('reads a client afresh while this process changes it, and never serves the copy from before the change after it', async () => {
    const limit = { value: '' };
    const dir = directory(limit);
    const cache = new ClientCredentialsCache(dir.client, 60_000);
    expect((await cache.get('t1', 'c1')).client?.messagingLimit).toBe('');
    let seenDuring = '';
    await cache.whileChanging('t1', 'c1', async () => {
      limit.value = '3'; // the directory committed the change; its answer has not come back yet
      seenDuring = (await cache.get('t1', 'c1')).client?.messagingLimit ?? '';
    });
    expect(seenDuring).toBe('3');
    expect((await cache.get('t1', 'c1')).client?.messagingLimit).toBe('3');
    // cached again once the change is answered
    const n = dir.calls.n;
    await cache.get('t1', 'c1');
    expect(dir.calls.n).toBe(n);
  });
});
