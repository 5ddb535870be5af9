import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseErrorTableDoc } from '@gateway/provider-client';
import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import { SimControl } from '@gateway/testing';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON */

const rows = parseErrorTableDoc(readFileSync(resolve(__dirname, '../../../../docs/provider-errors.md'), 'utf8'));

/**
 * docs/provider-errors.md drives this test: for every row the simulator answers a send with that provider
 * code, and the tenant's answer through real HTTP must be the row's status, code, Retry-After and
 * provider_error, after as many provider calls as the row says the gateway makes.
 */
describe('every classified provider error, as the tenant gets it (docs/provider-errors.md)', () => {
  let stack: Stack;
  let api: ApiClient;
  let clientId: string;
  let phoneNumberId: string;
  const sim = async (path: string, body?: unknown, method = 'POST') => (await new SimControl(stack.sim!.url).request(method, path, body)).json;

  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'messaging', 'edge'] });
    ({ api } = await stack.createTenant({ name: 'Errors' }));
    const phone = await sim('/_sim/phone-numbers', {});
    phoneNumberId = phone.phone_number_id;
    const c = await api.post('/api/clients/', {
      display_name: 'Shop',
      business_account_id: phone.waba_id,
      phone_number_id: phone.phone_number_id,
      access_token: phone.access_token,
    });
    clientId = (c.json as { id: string }).id;
  }, 60_000);
  afterAll(() => stack?.stop());

  it('the table is not empty', () => {
    expect(rows.length).toBeGreaterThan(50);
  });

  it.each(rows.map((r, i) => [`${r.code}${r.subcode === null ? '' : `/${r.subcode}`} → ${r.status} ${r.tenantCode}`, r, i] as const))(
    '%s',
    async (_name, row, i) => {
      const code = row.code === 'other' ? 987654 : row.code === '200–299' ? 250 : Number(row.code);
      const error = {
        code,
        message: `(#${code}) Simulated`,
        type: 'OAuthException',
        ...(row.subcode !== null ? { error_subcode: row.subcode } : {}),
        error_data: { details: `details of ${code}` },
        error_user_title: 'Title for the user',
        error_user_msg: `Message for the user about ${code}`,
        fbtrace_id: `trace-${i}`,
      };
      await sim('/_sim/requests', undefined, 'DELETE');
      await sim('/_sim/faults', undefined, 'DELETE');
      await sim('/_sim/faults', { match: { path_contains: '/messages' }, status: 400, error, times: 10 });
      // a recipient of its own per row: the pair rate limit's 4^n backoff starts at n = 0
      const to = `+1650555${String(1000 + i)}`;
      const res = await api.post('/api/messaging/send-location', { client_id: clientId, to, latitude: 1, longitude: 2 });
      const body = res.json as any;
      expect([res.status, body.code]).toEqual([row.status, row.tenantCode]);
      expect(body.provider_error).toEqual({
        code,
        subcode: row.subcode,
        message: `(#${code}) Simulated`,
        type: 'OAuthException',
        trace_id: `trace-${i}`,
        details: `details of ${code}`,
        user_title: 'Title for the user',
        user_message: `Message for the user about ${code}`,
      });
      expect(body.retryable).toBe(row.retryable);
      const retryAfter = res.headers.get('retry-after');
      expect(retryAfter).toBe(row.retryAfter === undefined ? null : row.retryAfter === '4^n' ? '1' : String(row.retryAfter));
      if (row.status === 422) expect(body.detail).toEqual([expect.objectContaining({ loc: row.field ?? ['body'], type: row.tenantCode })]);
      else expect(typeof body.detail).toBe('string');
      const calls = await sim(`/_sim/requests?path_contains=${encodeURIComponent(`/${phoneNumberId}/messages`)}`, undefined, 'GET');
      expect(calls).toHaveLength(row.transient ? 3 : 1);
    },
  );
});
