import { EXAMPLE_AUTH_TEMPLATE } from '@gateway/message-kinds';
import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import { SimControl, waitFor } from '@gateway/testing';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary provider JSON */

/*
 * Sends to a business-scoped user id (issue 24, item 2; provider-2026.md §2.2): `to`, `recipient` or both, through
 * edge → messaging → simulator, the record answering both, and the status webhooks of a BSUID send (which name the
 * user by `recipient_user_id` only) moving the right record. On both storage backends: the record is stored.
 */
describe.each(['pglite', 'postgres'] as const)('sends to a BSUID (`recipient`), storage %s', (storage) => {
  let stack: Stack;
  let api: ApiClient;
  let other: ApiClient;
  let control: SimControl;
  let phone: { phone_number_id: string; waba_id: string; access_token: string };
  let clientId: string;
  /** A username adopter: the business never sees their number. */
  let hidden: { user_id: string; parent_user_id: string | null; username: string | null };
  /** A user with a number, known by BSUID too. */
  let known: { user_id: string; wa_id: string | null };

  const messagesCalls = async () => (await control.calls(`/${phone.phone_number_id}/messages`)).filter((c) => c.method === 'POST');
  const record = async (id: string, as = api) => as.get<any>(`/api/messages/${encodeURIComponent(id)}?client_id=${clientId}`);

  beforeAll(async () => {
    if (storage === 'postgres' && !process.env.TEST_DATABASE_URL) throw new Error('TEST_DATABASE_URL is required for the PostgreSQL run');
    stack = await startStack({ services: ['tenant-directory', 'messaging', 'edge'], storage });
    control = new SimControl(stack.sim!.url);
    ({ api } = await stack.createTenant({ name: 'Sender' }));
    ({ api: other } = await stack.createTenant({ name: 'Other' }));
    phone = await control.phoneNumber();
    const c = await api.post('/api/clients/', {
      display_name: 'Shop',
      business_account_id: phone.waba_id,
      phone_number_id: phone.phone_number_id,
      access_token: phone.access_token,
    });
    clientId = (c.json as { id: string }).id;
    hidden = await control.createUser(phone.phone_number_id, { username: 'sheena.nelson', parent: true });
    known = await control.createUser(phone.phone_number_id, { phone: '16505557001' });
    // both wrote in: the 24-hour window is open for free-form sends
    const inbound = await control.inboundFromUser(phone.phone_number_id, hidden.user_id);
    // the simulator's webhook names a username adopter by BSUID only, with the username and the parent BSUID
    const value = inbound.body.entry[0].changes[0].value as any;
    expect(value.contacts).toEqual([
      { profile: { name: 'Test User', username: 'sheena.nelson' }, user_id: hidden.user_id, parent_user_id: hidden.parent_user_id },
    ]);
    expect(value.messages[0]).not.toHaveProperty('from');
    expect(value.messages[0]).toMatchObject({ from_user_id: hidden.user_id, from_parent_user_id: hidden.parent_user_id });
    await control.inboundFromUser(phone.phone_number_id, known.user_id);
  }, 180_000);
  afterAll(() => stack?.stop());
  beforeEach(() => control.reset());

  it('only `recipient`: the provider gets `recipient` and no `to`; the record has recipient and to null', async () => {
    const res = await api.post('/api/messaging/send-text', { client_id: clientId, recipient: hidden.user_id, text: 'Another color?' });
    expect(res.status).toBe(200);
    const id = res.headers.get('x-message-id')!;
    const calls = await messagesCalls();
    expect(calls).toHaveLength(1);
    expect(calls[0].body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      recipient: hidden.user_id,
      type: 'text',
      text: { body: 'Another color?', preview_url: false },
    });
    const rec = await record(id);
    expect(rec.status).toBe(200);
    expect(rec.json).toMatchObject({ id, to: null, recipient: hidden.user_id, kind: 'text', status: 'accepted', api: 'cloud_api' });
    // another tenant's view of it: not found
    expect((await record(id, other)).status).toBe(404);
  });

  it('a parent BSUID is sent as given', async () => {
    const res = await api.post('/api/messaging/send-text', { client_id: clientId, recipient: hidden.parent_user_id, text: 'hi' });
    expect(res.status).toBe(200);
    expect((await messagesCalls())[0].body).toMatchObject({ recipient: hidden.parent_user_id });
    expect(await messagesCalls().then((c) => c[0].body)).not.toHaveProperty('to');
  });

  it('both: the provider gets both (and delivers to `to`); the record has both', async () => {
    const res = await api.post('/api/messaging/send-location', {
      client_id: clientId,
      to: '+16505557001',
      recipient: known.user_id,
      latitude: 1,
      longitude: 2,
    });
    expect(res.status).toBe(200);
    const [call] = await messagesCalls();
    expect(call.body).toMatchObject({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '+16505557001',
      recipient: known.user_id,
      type: 'location',
    });
    expect((await record(res.headers.get('x-message-id')!)).json).toMatchObject({ to: '+16505557001', recipient: known.user_id });
  });

  it('neither: a 422 naming `to`, and no provider call; a malformed BSUID: a 422 naming `recipient`', async () => {
    const res = await api.post('/api/messaging/send-text', { client_id: clientId, text: 'hi' });
    expect(res.status).toBe(422);
    expect((res.json as any).detail).toEqual([expect.objectContaining({ loc: ['body', 'to'], type: 'missing' })]);
    const template = await api.post('/api/messaging/send-template', { client_id: clientId, template_name: 'hello', lang: 'en_US' });
    expect(template.status).toBe(422);
    expect((template.json as any).detail).toEqual([expect.objectContaining({ loc: ['body', 'to'], type: 'missing' })]);
    const bad = await api.post('/api/messaging/send-text', { client_id: clientId, recipient: 'us.1234', text: 'hi' });
    expect(bad.status).toBe(422);
    expect((bad.json as any).detail).toEqual([expect.objectContaining({ loc: ['body', 'recipient'] })]);
    expect(await messagesCalls()).toHaveLength(0);
  });

  it("a BSUID of no user of the portfolio is the provider's refusal 131009, a 422 provider_parameter_invalid", async () => {
    const res = await api.post('/api/messaging/send-text', { client_id: clientId, recipient: 'US.99999999999999999999', text: 'hi' });
    expect(res.status).toBe(422);
    expect(res.json).toMatchObject({ code: 'provider_parameter_invalid', provider_error: { code: 131009 } });
  });

  it('an authentication template to a BSUID is the provider refusal 131062: a 422 recipient_phone_required naming `to`', async () => {
    await control.seedTemplate(phone.waba_id, EXAMPLE_AUTH_TEMPLATE);
    const body = {
      client_id: clientId,
      template_name: EXAMPLE_AUTH_TEMPLATE.name,
      lang: EXAMPLE_AUTH_TEMPLATE.language,
      components: [
        { type: 'body', parameters: [{ type: 'text', text: '123456' }] },
        { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: '123456' }] },
      ],
    };
    const res = await api.post('/api/messaging/send-template', { ...body, recipient: hidden.user_id });
    expect(res.status).toBe(422);
    expect(res.json).toMatchObject({ code: 'recipient_phone_required', provider_error: { code: 131062 } });
    expect((await messagesCalls())[0].body).toMatchObject({ recipient: hidden.user_id, type: 'template' });
    // the same code to the user's phone number goes
    expect((await api.post('/api/messaging/send-template', { ...body, to: '+16505557001' })).status).toBe(200);
  });

  it('status webhooks naming the user by recipient_user_id only (no recipient_id) move the record of that BSUID send', async () => {
    const res = await api.post('/api/messaging/send-text', { client_id: clientId, recipient: hidden.user_id, text: 'status me' });
    const id = res.headers.get('x-message-id')!;
    const sent = (await control.sendStatuses(id, ['sent', 'delivered', 'read'])) as { sent: Array<{ status: number; body: any }> };
    for (const s of sent.sent) {
      const status = s.body.entry[0].changes[0].value.statuses[0];
      expect(status).not.toHaveProperty('recipient_id');
      expect(status).toMatchObject({ id, recipient_user_id: hidden.user_id, recipient_parent_user_id: hidden.parent_user_id });
      expect(s.body.entry[0].changes[0].value.contacts[0]).toMatchObject({ user_id: hidden.user_id, profile: { username: 'sheena.nelson' } });
      expect(s.status).toBe(200);
    }
    const rec = await waitFor(
      async () => {
        const r = (await record(id)).json;
        return r.status === 'read' && r.status_history.length === 4 ? r : undefined;
      },
      { what: 'the BSUID send read' },
    );
    expect(rec.status_history.map((h: any) => h.status)).toEqual(['accepted', 'sent', 'delivered', 'read']);
    expect(rec.pricing).toMatchObject({ pricing_model: 'PMP' });
    expect(rec).toMatchObject({ to: null, recipient: hidden.user_id });
  });
});
