import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import { SimControl, startWebhookReceiver, waitFor, type WebhookReceiver } from '@gateway/testing';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary provider JSON */

/*
 * Every webhook field of 2026 (issue 24, item 5; provider-2026.md §8) through the whole gateway: the simulator
 * signs and posts it, the edge stores it, messaging routes it (by metadata, `recipient` or the business account)
 * and acts on it, the dispatcher delivers it: each reaches the tenant as a `chat` event carrying the provider's
 * bytes unchanged, and the template and client records follow. Both storage backends (records are written).
 */
describe.each(['pglite', 'postgres'] as const)('webhook fields of 2026, storage %s', (storage) => {
  let stack: Stack;
  let receiver: WebhookReceiver;
  let api: ApiClient;
  let other: ApiClient;
  let control: SimControl;
  let phone: { phone_number_id: string; waba_id: string; access_token: string };
  let clientId: string;

  /** The exact bytes a receiver gets for a provider body: the spec 6.1 envelope around it. */
  const chatEnvelope = (raw: string) => `{"type":"chat","client_id":${JSON.stringify(clientId)},"external_id":"shop-1","payload":${raw}}`;
  /** Sends one change of `field` and waits for its chat event: the provider's bytes, byte for byte. */
  const deliver = async (field: string, opts: Parameters<SimControl['webhookField']>[2] = {}) => {
    const sent = await control.webhookField(field, phone.phone_number_id, opts);
    expect(sent.status).toBe(200);
    const expected = chatEnvelope(sent.body);
    await waitFor(() => receiver.byType('chat').some((r) => r.raw.toString('utf8') === expected), { what: `the chat event of ${field}` });
    return JSON.parse(sent.body) as any;
  };
  const client = async () => (await api.get<any>(`/api/clients/${clientId}`)).json;

  beforeAll(async () => {
    if (storage === 'postgres' && !process.env.TEST_DATABASE_URL) throw new Error('TEST_DATABASE_URL is required for the PostgreSQL run');
    stack = await startStack({ storage });
    control = new SimControl(stack.sim!.url);
    receiver = await startWebhookReceiver();
    ({ api } = await stack.createTenant({ webhook_url: receiver.url }));
    ({ api: other } = await stack.createTenant({ name: 'Other' }));
    phone = await control.phoneNumber();
    const c = await api.post<any>('/api/clients/', {
      display_name: 'Shop',
      external_id: 'shop-1',
      business_account_id: phone.waba_id,
      phone_number_id: phone.phone_number_id,
      access_token: phone.access_token,
    });
    clientId = c.json.id;
  }, 180_000);
  afterAll(async () => {
    await receiver?.close();
    await stack?.stop();
  });

  it.each(['messages', 'account_alerts', 'user_preferences', 'standby', 'messaging_handovers', 'smb_message_echoes', 'history', 'calls'])(
    '%s reaches the tenant as a chat event with the provider body unchanged',
    async (field) => {
      const body = await deliver(field);
      expect(body.entry[0].changes[0].field).toBe(field);
    },
  );

  it('messages from a username adopter (user_id, username, no phone) and a user_changed_user_id system message arrive unchanged', async () => {
    const user = await control.createUser(phone.phone_number_id, { username: 'realsheena' });
    const inbound = await control.inboundFromUser(phone.phone_number_id, user.user_id);
    const raw = JSON.stringify(inbound.body);
    await waitFor(() => receiver.byType('chat').some((r) => r.raw.toString('utf8') === chatEnvelope(raw)), { what: 'the username message' });
    const system = await deliver('messages', { userId: user.user_id });
    expect(system.entry[0].changes[0].value.messages[0]).toMatchObject({ type: 'system', system: { type: 'user_changed_user_id' } });
    const changedNumber = {
      from: '16505551234',
      id: 'wamid.changed-number',
      timestamp: '1753851315',
      type: 'system',
      system: { body: 'User A changed from 16505551234 to 16505559999', wa_id: '16505559999', user_id: 'US.222', type: 'user_changed_number' },
    };
    const numbered = await deliver('messages', { merge: { messages: [changedNumber] } });
    expect(numbered.entry[0].changes[0].value.messages).toEqual([changedNumber]);
  });

  it('template status, quality and category updates: chat events, template_status still fires, and the template record follows', async () => {
    const seeded = await control.seedTemplate(phone.waba_id, {
      name: 'welcome_back',
      language: 'en_US',
      category: 'UTILITY',
      components: [{ type: 'BODY', text: 'Welcome back, {{1}}!', example: { body_text: [['Jo']] } }],
    });
    expect((await api.post('/api/templates/sync', { client_id: clientId })).status).toBe(200);
    const template = async () => (await api.get<any>(`/api/templates/${seeded.id}?client_id=${clientId}`)).json;
    const ids = { message_template_id: Number(seeded.id), message_template_name: 'welcome_back', message_template_language: 'en_US' };

    await deliver('message_template_status_update', { merge: { ...ids, event: 'PAUSED', reason: 'LOW_QUALITY' } });
    await waitFor(() => receiver.byType('template_status').some((r) => (r.body as any).payload.template_id === seeded.id), { what: 'template_status' });
    await waitFor(async () => (await template()).status === 'PAUSED', { what: 'the template paused' });

    await deliver('message_template_quality_update', { merge: { ...ids, previous_quality_score: 'GREEN', new_quality_score: 'RED' } });
    await waitFor(async () => (await template()).quality === 'RED', { what: 'the template quality RED' });

    // an impending recategorisation informs only; a completed one (previous_category) changes the record
    await deliver('template_category_update', {
      value: { ...ids, correct_category: 'MARKETING', new_category: 'UTILITY', category_update_timestamp: 1767000000 },
    });
    await deliver('template_category_update', { merge: { ...ids, previous_category: 'UTILITY', new_category: 'MARKETING' } });
    await waitFor(async () => (await template()).category === 'MARKETING', { what: 'the template recategorised' });
    expect(await template()).toMatchObject({ id: seeded.id, quality: 'RED', category: 'MARKETING' });
  });

  it('phone_number_quality_update and business_capability_update: the client answers quality_rating, messaging_limit and throughput', async () => {
    expect(await client()).toMatchObject({ quality_rating: null, messaging_limit: null, throughput: null });
    await deliver('phone_number_quality_update');
    await waitFor(async () => (await client()).messaging_limit === 'TIER_2K', { what: 'the 2K limit' });
    await deliver('phone_number_quality_update', { merge: { event: 'FLAGGED', old_limit: undefined } });
    await waitFor(async () => (await client()).quality_rating === 'RED', { what: 'quality RED' });
    await deliver('phone_number_quality_update', { merge: { event: 'THROUGHPUT_UPGRADE' } });
    await waitFor(async () => (await client()).throughput === 1000, { what: 'throughput 1000' });
    await deliver('business_capability_update', { merge: { max_daily_conversations_per_business: -1 } });
    await waitFor(async () => (await client()).messaging_limit === 'TIER_UNLIMITED', { what: 'the unlimited limit' });
    expect(await client()).toMatchObject({ quality_rating: 'RED', messaging_limit: 'TIER_UNLIMITED', throughput: 1000, is_active: true });
    // another tenant never sees the client
    expect((await other.get(`/api/clients/${clientId}`)).status).toBe(404);
  });

  it('account_update ACCOUNT_RESTRICTION deactivates the client with a status_reason; its sends are then a 409 client_inactive without a provider call', async () => {
    await deliver('account_update', { merge: { event: 'VOLUME_BASED_PRICING_TIER_UPDATE', restriction_info: undefined } });
    expect((await client()).is_active).toBe(true);
    await deliver('account_update');
    await waitFor(async () => (await client()).is_active === false, { what: 'the client deactivated' });
    expect(await client()).toMatchObject({ is_active: false, status_reason: 'ACCOUNT_RESTRICTION' });
    await control.reset();
    const res = await api.post<any>('/api/messaging/send-text', { client_id: clientId, to: '+16505551234', text: 'hi' });
    expect(res.status).toBe(409);
    expect(res.json).toMatchObject({ code: 'client_inactive', status_reason: 'ACCOUNT_RESTRICTION' });
    expect(await control.calls('/messages')).toHaveLength(0);
    // the tenant turns it on again (the restriction lifted): the reason goes, sends go
    const again = await api.patch<any>(`/api/clients/${clientId}`, { is_active: true });
    expect(again.json).toMatchObject({ is_active: true, status_reason: null });
    await control.inboundMessage(phone.phone_number_id, '16505551234', 'text', { body: 'hello again' });
    expect((await api.post('/api/messaging/send-text', { client_id: clientId, to: '+16505551234', text: 'hi' })).status).toBe(200);
  });
});
