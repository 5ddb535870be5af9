import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import { SimControl, startWebhookReceiver, waitFor, type WebhookReceiver } from '@gateway/testing';
import { Gateway, GatewayError, listAll, newIdempotencyKey, verifyWebhook, WebhookVerificationError } from '@gateway/sdk';

describe('@gateway/sdk against a real stack', () => {
  let stack: Stack;
  let receiver: WebhookReceiver;
  let sim: SimControl;
  let tenant: { webhook_secret: string };
  let api: ApiClient;
  let gw: Gateway;

  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'messaging', 'dispatcher', 'edge'] });
    sim = new SimControl(stack.sim!.url);
    receiver = await startWebhookReceiver();
    const created = await stack.createTenant();
    tenant = created.tenant;
    api = created.api;
    // the SDK as a tenant's code constructs it; its answers pass the tests' OpenAPI check too (the api client's fetch)
    gw = api.sdk;
    expect(new Gateway({ baseUrl: stack.baseUrl, apiKey: created.apiKey })).toBeInstanceOf(Gateway);
  }, 120_000);
  afterAll(async () => {
    await receiver?.close();
    await stack?.stop();
  });

  it('registers a client, sends with an idempotency key (a retry replays), pages through deliveries and verifies a received webhook', async () => {
    const phone = await sim.phoneNumber();
    const { data: client } = await gw.api.POST('/api/clients', {
      body: {
        display_name: 'SDK shop',
        webhook_url: receiver.url,
        business_account_id: phone.waba_id,
        phone_number_id: phone.phone_number_id,
        access_token: phone.access_token,
      },
    });
    expect(client!.is_active).toBe(true);
    const clientId = client!.id;

    // the customer-service window opens when the user writes first: that inbound message is also a chat event
    expect((await sim.request('POST', '/_sim/inbound/message', { phone_number_id: phone.phone_number_id, from: '16505551234', text: 'hi' })).status).toBe(200);

    const key = newIdempotencyKey();
    const body = {
      client_id: clientId,
      to: '+16505551234',
      body: { type: 'text' as const, text: 'Pick one' },
      buttons: [
        { id: 'yes', title: 'Yes' },
        { id: 'no', title: 'No' },
      ],
    };
    const first = await gw.send('/api/messaging/send-buttons', body, { idempotencyKey: key });
    expect(first.messageId).toMatch(/^wamid\./);
    const again = await gw.send('/api/messaging/send-buttons', body, { idempotencyKey: key });
    expect(again.messageId).toBe(first.messageId);
    const sent = (await sim.calls('messages')).filter((c) => JSON.stringify(c.body).includes('Pick one'));
    expect(sent).toHaveLength(1);
    const { data: message } = await gw.api.GET('/api/messages/{message_id}', {
      params: { path: { message_id: first.messageId }, query: { client_id: clientId } },
    });
    expect(message!.id).toBe(first.messageId);

    // test events make several deliveries; page through them two at a time
    for (let i = 0; i < 3; i++) await gw.api.POST('/api/clients/{id}/webhook/test', { params: { path: { id: clientId } } });
    await waitFor(() => receiver.byType('test').length >= 3 && receiver.byType('chat').length >= 1, { what: 'three test events and the chat event' });
    const pages: number[] = [];
    const all = await listAll(async (cursor) => {
      const { data } = await gw.api.GET('/api/clients/{id}/webhook/deliveries', { params: { path: { id: clientId }, query: { limit: 2, cursor } } });
      pages.push(data!.data.length);
      return data!;
    });
    expect(pages.length).toBeGreaterThanOrEqual(2);
    expect(all.filter((d) => d.event_type === 'test')).toHaveLength(3);
    const viaIterator: string[] = [];
    for await (const d of gw.deliveries(clientId, { event_type: 'test', limit: 1 })) viaIterator.push(d.id);
    expect(viaIterator).toHaveLength(3);

    // a received webhook verifies with the tenant's secret, and not once altered or signed with another secret
    const hook = receiver.byType('test')[0];
    const event = verifyWebhook(tenant.webhook_secret, hook.headers as Record<string, string>, hook.raw);
    expect(event).toMatchObject({ type: 'test', client_id: clientId });
    const chat = receiver.byType('chat')[0];
    expect(verifyWebhook(tenant.webhook_secret, chat.headers as Record<string, string>, chat.raw).type).toBe('chat');
    expect(() => verifyWebhook(tenant.webhook_secret, hook.headers as Record<string, string>, Buffer.concat([hook.raw, Buffer.from(' ')]))).toThrow(
      WebhookVerificationError,
    );
    expect(() => verifyWebhook(`whsec_${Buffer.alloc(24, 7).toString('base64')}`, hook.headers as Record<string, string>, hook.raw)).toThrow(
      WebhookVerificationError,
    );
  });

  it('throws typed errors carrying the status, code and detail', async () => {
    const missing = await gw.api.GET('/api/clients/{id}', { params: { path: { id: '00000000-0000-4000-8000-000000000000' } } }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(GatewayError);
    expect(missing).toMatchObject({ status: 404, code: 'client_not_found' });
    const invalid = (await gw.api.POST('/api/clients', { body: { display_name: '' } }).catch((e: unknown) => e)) as GatewayError;
    expect(invalid).toMatchObject({ status: 422, code: 'validation_failed' });
    expect(invalid.issues[0]).toMatchObject({ loc: ['body', 'display_name'] });
    expect(typeof invalid.requestId).toBe('string');
    const noKey = (await new Gateway({ baseUrl: stack.baseUrl, apiKey: 'gw_wrong' }).api.GET('/api/tenants/me').catch((e: unknown) => e)) as GatewayError;
    expect(noKey).toMatchObject({ status: 401 });
  });
});
