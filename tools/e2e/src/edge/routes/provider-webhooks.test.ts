import { createHmac } from 'node:crypto';
import { connect } from 'nats';
import { startStack, type Stack } from '@gateway/test-stack';

describe('inbound provider webhooks on the edge', () => {
  let stack: Stack;
  const secret = 'sim-app-secret';
  const sign = (body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${stack.baseUrl}/webhooks/provider`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const stored = async () => {
    const nc = await connect({ servers: stack.nats.url });
    try {
      return (await (await nc.jetstreamManager()).streams.info('PROVIDER_INBOUND')).state.messages;
    } finally {
      await nc.close();
    }
  };

  beforeAll(async () => {
    // only the edge and the directory: nothing consumes the stream, so its count is what the edge stored
    stack = await startStack({ services: ['tenant-directory', 'edge'], sim: false });
  }, 60_000);
  afterAll(() => stack?.stop());

  it('answers the verification handshake with the challenge, and 403 for a wrong token or mode', async () => {
    const ok = await fetch(`${stack.baseUrl}/webhooks/provider?hub.mode=subscribe&hub.verify_token=sim-verify-token&hub.challenge=1158201444`);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('1158201444');
    expect((await fetch(`${stack.baseUrl}/webhooks/provider?hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=1`)).status).toBe(403);
    expect((await fetch(`${stack.baseUrl}/webhooks/provider?hub.mode=unsubscribe&hub.verify_token=sim-verify-token&hub.challenge=1`)).status).toBe(403);
  });

  it('stores a signed body once, however often the provider redelivers it', async () => {
    const before = await stored();
    const body = JSON.stringify({ object: 'whatsapp_business_account', entry: [{ id: 'w', changes: [] }], n: Math.random() });
    for (let i = 0; i < 3; i++) {
      const res = await post(body, { 'x-hub-signature-256': sign(body) });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('null');
    }
    expect(await stored()).toBe(before + 1);
  });

  it.each([
    ['no signature', () => ({ body: '{"entry":[]}', headers: {} }), 401],
    ['a wrong signature', () => ({ body: '{"entry":[]}', headers: { 'x-hub-signature-256': sign('{"entry":[1]}') } }), 401],
    [
      'a signature made with another secret',
      () => ({ body: '{"entry":[]}', headers: { 'x-hub-signature-256': `sha256=${createHmac('sha256', 'other').update('{"entry":[]}').digest('hex')}` } }),
      401,
    ],
    ['a signed body that is not JSON', () => ({ body: 'entry=1', headers: { 'x-hub-signature-256': sign('entry=1') } }), 422],
    ['a signed JSON body that is not a webhook envelope', () => ({ body: '{"hello":1}', headers: { 'x-hub-signature-256': sign('{"hello":1}') } }), 422],
    [
      'a body over 3 MB',
      () => {
        const big = `{"entry":[],"pad":"${'x'.repeat(3 * 1024 * 1024)}"}`;
        return { body: big, headers: { 'x-hub-signature-256': sign(big) } };
      },
      413,
    ],
  ])('refuses %s with a 4xx in the error form and stores nothing', async (_name, make, status) => {
    const before = await stored();
    const { body, headers } = make();
    const res = await post(body, headers as Record<string, string>);
    expect(res.status).toBe(status);
    const json = (await res.json()) as { detail: unknown; code?: string };
    expect(json.detail).toBeDefined();
    if (status === 401) expect(json.code).toBe('invalid_signature');
    expect(await stored()).toBe(before);
  });

  it('answers 503 while the bus is down, so the provider retries, and stores again once it is back', async () => {
    const body = JSON.stringify({ object: 'whatsapp_business_account', entry: [], outage: true });
    await stack.nats.stop();
    try {
      const res = await post(body, { 'x-hub-signature-256': sign(body) });
      expect(res.status).toBe(503);
    } finally {
      await stack.nats.start();
    }
    const before = await stored();
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = (await post(body, { 'x-hub-signature-256': sign(body) })).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 200));
    }
    expect(status).toBe(200);
    expect(await stored()).toBe(before + 1);
  });
});
