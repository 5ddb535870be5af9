import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import { SimControl, waitFor } from '@gateway/testing';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary provider JSON */

/*
 * The Marketing Messages API (issue 24, item 3; provider-2026.md §3): a MARKETING template of a client onboarded
 * to it (learned from the provider's account_update MM_LITE_TERMS_SIGNED) goes to /marketing_messages with the
 * product_policy given; anything else to /messages; the record says which. Storage is touched (the client's
 * onboarding, the record's api): both backends.
 */
describe.each(['pglite', 'postgres'] as const)('Marketing Messages API routing, storage %s', (storage) => {
  let stack: Stack;
  let api: ApiClient;
  let other: ApiClient;
  let control: SimControl;
  const to = '+16505558001';
  const clients: Record<'onboarded' | 'plain', { id: string; phone: { phone_number_id: string; waba_id: string; access_token: string } }> = {} as never;

  const MARKETING = {
    name: 'fall_sale',
    language: 'en_US',
    category: 'MARKETING',
    components: [{ type: 'BODY', text: 'Our fall sale starts now, {{1}}!', example: { body_text: [['Jo']] } }],
  };
  const UTILITY = {
    name: 'order_update',
    language: 'en_US',
    category: 'UTILITY',
    components: [{ type: 'BODY', text: 'Your order {{1}} shipped.', example: { body_text: [['SKB-1']] } }],
  };
  const send = (clientId: string, template: typeof MARKETING, extra: Record<string, unknown> = {}) =>
    api.post('/api/messaging/send-template', {
      client_id: clientId,
      to,
      template_name: template.name,
      lang: template.language,
      components: [{ type: 'body', parameters: [{ type: 'text', text: 'Jo' }] }],
      ...extra,
    });
  const callsTo = async (pnid: string) =>
    (await control.calls(`/${pnid}/`)).filter((c) => c.method === 'POST').map((c) => ({ path: c.path, body: c.body as any }));
  const record = async (clientId: string, id: string) => (await api.get<any>(`/api/messages/${encodeURIComponent(id)}?client_id=${clientId}`)).json;

  beforeAll(async () => {
    if (storage === 'postgres' && !process.env.TEST_DATABASE_URL) throw new Error('TEST_DATABASE_URL is required for the PostgreSQL run');
    stack = await startStack({ services: ['tenant-directory', 'messaging', 'edge'], storage });
    control = new SimControl(stack.sim!.url);
    ({ api } = await stack.createTenant({ name: 'Marketer' }));
    ({ api: other } = await stack.createTenant({ name: 'Other' }));
    for (const key of ['onboarded', 'plain'] as const) {
      const phone = await control.phoneNumber();
      const c = await api.post<any>('/api/clients/', {
        display_name: key,
        business_account_id: phone.waba_id,
        phone_number_id: phone.phone_number_id,
        access_token: phone.access_token,
      });
      expect(c.json).toMatchObject({ marketing_messages: 'auto', marketing_messages_onboarded: false });
      clients[key] = { id: c.json.id, phone };
      // the gateway knows each template's category from its local copy (a sync of the provider's list)
      for (const t of [MARKETING, UTILITY]) await control.seedTemplate(phone.waba_id, t);
      expect((await api.post('/api/templates/sync', { client_id: c.json.id })).status).toBe(200);
    }
    // the business of one client accepts the terms: the provider says so with account_update MM_LITE_TERMS_SIGNED
    const onboard = await control.onboardMarketingMessages(clients.onboarded.phone.waba_id);
    expect(onboard.status).toBe(200);
    await waitFor(async () => (await api.get<any>(`/api/clients/${clients.onboarded.id}`)).json.marketing_messages_onboarded === true, {
      what: 'the client onboarded from the account_update webhook',
    });
    expect((await api.get<any>(`/api/clients/${clients.plain.id}`)).json.marketing_messages_onboarded).toBe(false);
  }, 180_000);
  afterAll(() => stack?.stop());
  beforeEach(() => control.reset());

  it('a marketing template to an onboarded client goes to /marketing_messages with product_policy; the record says marketing_messages', async () => {
    const { id, phone } = clients.onboarded;
    const res = await send(id, MARKETING, { product_policy: 'STRICT' });
    expect(res.status).toBe(200);
    const calls = await callsTo(phone.phone_number_id);
    expect(calls).toEqual([{ path: expect.stringMatching(new RegExp(`^/v25\\.0/${phone.phone_number_id}/marketing_messages$`)), body: expect.any(Object) }]);
    expect(calls[0].body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to,
      type: 'template',
      template: { name: 'fall_sale', language: { code: 'en_US' }, components: [{ type: 'body', parameters: [{ type: 'text', text: 'Jo' }] }] },
      product_policy: 'STRICT',
    });
    const messageId = res.headers.get('x-message-id')!;
    expect(await record(id, messageId)).toMatchObject({ id: messageId, kind: 'template', api: 'marketing_messages' });
    // its statuses are priced marketing_lite and stored
    await control.sendStatuses(messageId, ['sent']);
    await waitFor(async () => (await record(id, messageId)).pricing?.category === 'marketing_lite', { what: 'marketing_lite pricing stored' });
    // without product_policy none is sent (the provider's default applies)
    await control.reset();
    expect((await send(id, MARKETING)).status).toBe(200);
    expect((await callsTo(phone.phone_number_id))[0].body).not.toHaveProperty('product_policy');
  });

  it('a utility template to the same client goes to /messages; the record says cloud_api', async () => {
    const { id, phone } = clients.onboarded;
    const res = await send(id, UTILITY);
    expect(res.status).toBe(200);
    const calls = await callsTo(phone.phone_number_id);
    expect(calls.map((c) => c.path)).toEqual([`/v25.0/${phone.phone_number_id}/messages`]);
    expect(calls[0].body).not.toHaveProperty('product_policy');
    const messageId = res.headers.get('x-message-id')!;
    expect(await record(id, messageId)).toMatchObject({ api: 'cloud_api' });
    // priced per message by its category: a utility template is billable
    await control.sendStatuses(messageId, ['sent']);
    await waitFor(async () => (await record(id, messageId)).pricing?.category === 'utility', { what: 'utility pricing stored' });
    expect((await record(id, messageId)).pricing).toEqual({ category: 'utility', billable: true, pricing_model: 'PMP', type: 'regular' });
  });

  it('a marketing template to a client that is not onboarded goes to /messages, product_policy or not', async () => {
    const { id, phone } = clients.plain;
    const res = await send(id, MARKETING, { product_policy: 'STRICT' });
    expect(res.status).toBe(200);
    const calls = await callsTo(phone.phone_number_id);
    expect(calls.map((c) => c.path)).toEqual([`/v25.0/${phone.phone_number_id}/messages`]);
    expect(calls[0].body).not.toHaveProperty('product_policy');
    const messageId = res.headers.get('x-message-id')!;
    expect(await record(id, messageId)).toMatchObject({ api: 'cloud_api' });
    await control.sendStatuses(messageId, ['sent', 'delivered']);
    await waitFor(async () => (await record(id, messageId)).status === 'delivered', { what: 'delivered' });
    expect((await record(id, messageId)).pricing).toEqual({ category: 'marketing', billable: true, pricing_model: 'PMP', type: 'regular' });
  });

  it('PATCH marketing_messages: "cloud_api" keeps marketing on /messages, "auto" brings it back; another tenant cannot; a bad value is a 422', async () => {
    const { id, phone } = clients.onboarded;
    const patched = await api.patch<any>(`/api/clients/${id}`, { marketing_messages: 'cloud_api' });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ marketing_messages: 'cloud_api', marketing_messages_onboarded: true });
    await waitFor(
      async () => {
        await control.reset();
        expect((await send(id, MARKETING)).status).toBe(200);
        return (await callsTo(phone.phone_number_id))[0].path.endsWith('/messages');
      },
      { what: 'marketing on /messages once the client chose cloud_api' },
    );
    expect((await api.patch<any>(`/api/clients/${id}`, { marketing_messages: 'auto' })).json.marketing_messages).toBe('auto');
    await waitFor(
      async () => {
        await control.reset();
        expect((await send(id, MARKETING)).status).toBe(200);
        return (await callsTo(phone.phone_number_id))[0].path.endsWith('/marketing_messages');
      },
      { what: 'marketing on /marketing_messages again' },
    );
    expect((await other.patch(`/api/clients/${id}`, { marketing_messages: 'cloud_api' })).status).toBe(404);
    const bad = await api.patch<any>(`/api/clients/${id}`, { marketing_messages: 'sometimes' });
    expect(bad.status).toBe(422);
    expect(bad.json.detail[0]).toMatchObject({ loc: ['body', 'marketing_messages'] });
  });

  it('errors of /marketing_messages are classified like the others (134101: a 409 template_syncing)', async () => {
    const { id, phone } = clients.onboarded;
    await control.failWith('POST', `/${phone.phone_number_id}/marketing_messages`, 134101, { status: 400, message: '(#134101) Template is syncing' });
    const res = await send(id, MARKETING);
    expect(res.status).toBe(409);
    expect(res.json).toMatchObject({ code: 'template_syncing', provider_error: { code: 134101 } });
  });
});
