import { createHmac } from 'node:crypto';
import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import { SimControl, startWebhookReceiver, waitFor, type WebhookReceiver } from '@gateway/testing';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary provider JSON */

interface SimPhone {
  phone_number_id: string;
  waba_id: string;
  access_token: string;
}

describe('inbound provider updates become events: simulator → edge → JetStream → messaging → dispatcher → receiver', () => {
  let stack: Stack;
  let receiver: WebhookReceiver;
  let api: ApiClient;
  let phone: SimPhone;
  let clientId: string;
  const to = '+16505551234';

  const sim = async (path: string, body?: unknown, method = 'POST') => (await new SimControl(stack.sim!.url).request(method, path, body)).json;
  /** The exact bytes a receiver gets for a provider body: the spec 6.1 envelope around it. */
  const chatEnvelope = (raw: string) => `{"type":"chat","client_id":${JSON.stringify(clientId)},"external_id":"shop-1","payload":${raw}}`;
  const chatsOf = (wamid: string) => receiver.byType('chat').filter((r) => r.raw.toString('utf8').includes(wamid));
  const record = async (wamid: string) => (await api.get<any>(`/api/messages/${encodeURIComponent(wamid)}?client_id=${clientId}`)).json;
  const send = async () => {
    const res = await api.post('/api/messaging/send-location', { client_id: clientId, to, latitude: 1, longitude: 2 });
    expect(res.status).toBe(200);
    return res.headers.get('x-message-id')!;
  };

  beforeAll(async () => {
    stack = await startStack({ env: { WEBHOOK_RETRY_DELAYS_MS: '200,400' } });
    receiver = await startWebhookReceiver();
    ({ api } = await stack.createTenant({ webhook_url: receiver.url }));
    phone = await sim('/_sim/phone-numbers', {});
    const c = await api.post('/api/clients/', {
      display_name: 'Shop',
      external_id: 'shop-1',
      business_account_id: phone.waba_id,
      phone_number_id: phone.phone_number_id,
      access_token: phone.access_token,
    });
    clientId = (c.json as { id: string }).id;
    // the recipient wrote in: free-form sends go (the 24-hour window)
    await sim('/_sim/inbound/message', { phone_number_id: phone.phone_number_id, from: to });
  }, 60_000);
  afterAll(async () => {
    await receiver?.close();
    await stack?.stop();
  });

  it('status updates arrive as chat events with the provider body byte for byte, and the message record moves to read', async () => {
    const wamid = await send();
    const res = await sim(`/_sim/messages/${encodeURIComponent(wamid)}/statuses`, { statuses: ['sent', 'delivered', 'read'] });
    const rawBodies = (res.sent as Array<{ status: number; body: unknown }>).map((s) => JSON.stringify(s.body));
    expect(res.sent.map((s: { status: number }) => s.status)).toEqual([200, 200, 200]);
    await waitFor(() => chatsOf(wamid).length === 3, { what: 'three chat events' });
    expect(
      chatsOf(wamid)
        .map((r) => r.raw.toString('utf8'))
        .sort(),
    ).toEqual(rawBodies.map(chatEnvelope).sort());
    const rec = await waitFor(
      async () => {
        const r = await record(wamid);
        return r.status === 'read' && r.status_history.length === 4 ? r : undefined;
      },
      { what: 'record read with its history' },
    );
    expect(rec.status_history.map((h: { status: string }) => h.status)).toEqual(['accepted', 'sent', 'delivered', 'read']);
  });

  it('a failed status keeps its errors on the record and in status_history; conversation and pricing are stored', async () => {
    const wamid = await send();
    const errors = [
      {
        code: 131026,
        title: 'Message undeliverable',
        message: 'Message undeliverable',
        error_data: { details: 'Message Undeliverable.' },
        href: 'https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/',
      },
    ];
    await sim(`/_sim/messages/${encodeURIComponent(wamid)}/statuses`, { statuses: ['sent'] });
    await sim(`/_sim/messages/${encodeURIComponent(wamid)}/statuses`, { statuses: ['failed'], errors });
    const rec = await waitFor(
      async () => {
        const r = await record(wamid);
        return r.status === 'failed' && r.status_history.length === 3 ? r : undefined;
      },
      { what: 'record failed' },
    );
    expect(rec.errors).toEqual(errors);
    expect(rec.status_history.find((h: any) => h.status === 'failed').errors).toEqual(errors);
    // a free-form reply (send-location) inside the window: priced `service`, free
    expect(rec.conversation).toEqual({ id: expect.any(String), origin_type: 'service', expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(rec.pricing).toEqual({ category: 'service', billable: false, pricing_model: 'PMP', type: 'free_customer_service' });
    expect(rec.status_history.find((h: any) => h.status === 'sent')).toMatchObject({ conversation: rec.conversation, pricing: rec.pricing });
  });

  it('a voice message read and played moves to played; a failure whose errors come only at the value level keeps them', async () => {
    const control = new SimControl(stack.sim!.url);
    const voice = await send();
    await control.sendStatuses(voice, ['sent', 'read', 'played']);
    const played = await waitFor(
      async () => {
        const r = await record(voice);
        return r.status === 'played' && r.status_history.length === 4 ? r : undefined;
      },
      { what: 'record played' },
    );
    // delivered never came (delivered and read at once): the history says what the provider said
    expect(played.status_history.map((h: { status: string }) => h.status)).toEqual(['accepted', 'sent', 'read', 'played']);

    const failed = await send();
    const errors = [{ code: 131047, title: 'Re-engagement message', message: 'Re-engagement message', error_data: { details: 'Outside the window' } }];
    await control.sendStatuses(failed, ['failed'], { errors, errorLevel: 'value' });
    const rec = await waitFor(
      async () => {
        const r = await record(failed);
        return r.status === 'failed' ? r : undefined;
      },
      { what: 'record failed' },
    );
    expect(rec.errors).toEqual(errors);
  });

  it('forwards a body exactly as the provider wrote it, whitespace included', async () => {
    const raw = `{"object": "whatsapp_business_account",  "entry": [ {"id": "${phone.waba_id}", "changes": [ {"field": "messages", "value": {"messaging_product": "whatsapp", "metadata": {"display_phone_number": "15550001", "phone_number_id": "${phone.phone_number_id}"}, "messages": [ {"from": "16505551234", "id": "wamid.spaced", "timestamp": "1750000000", "type": "text", "text": {"body": "héllo \\u00e9 ✓"}} ]}} ]} ] }`;
    expect((await sim('/_sim/inbound/raw', { body: raw })).status).toBe(200);
    await waitFor(() => chatsOf('wamid.spaced').length === 1, { what: 'chat event' });
    expect(chatsOf('wamid.spaced')[0].raw.toString('utf8')).toBe(chatEnvelope(raw));
  });

  it('a webhook of 3 MB, the most the provider sends, reaches the tenant as a chat event byte for byte; one byte more is a 413', async () => {
    const MAX = 3 * 1024 * 1024;
    // one POST may batch up to 1000 updates (provider reference 7.3): many messages, the last padded to the exact size
    const message = (i: number, text: string) => ({ from: to.slice(1), id: `wamid.big${i}`, timestamp: '1750000000', type: 'text', text: { body: text } });
    const bodyOf = (pad: number) =>
      JSON.stringify({
        object: 'whatsapp_business_account',
        entry: [
          {
            id: phone.waba_id,
            changes: [
              {
                field: 'messages',
                value: {
                  messaging_product: 'whatsapp',
                  metadata: { display_phone_number: '15550001', phone_number_id: phone.phone_number_id },
                  messages: [...Array.from({ length: 999 }, (_, i) => message(i, 'é'.repeat(1500))), message(999, 'x'.repeat(pad))],
                },
              },
            ],
          },
        ],
      });
    const body = bodyOf(MAX - Buffer.byteLength(bodyOf(0)));
    expect(Buffer.byteLength(body)).toBe(MAX);
    const post = (b: string) =>
      fetch(`${stack.baseUrl}/webhooks/provider`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${createHmac('sha256', 'sim-app-secret').update(b).digest('hex')}` },
        body: b,
      });
    expect((await post(body)).status).toBe(200);
    const chat = await waitFor(() => chatsOf('wamid.big999')[0], { what: 'the 3 MB chat event', timeoutMs: 60_000 });
    expect(chat.raw.equals(Buffer.from(chatEnvelope(body)))).toBe(true);

    const over = bodyOf(MAX - Buffer.byteLength(bodyOf(0)) + 1);
    const refused = await post(over);
    expect([refused.status, ((await refused.json()) as { code: string }).code]).toEqual([413, 'body_too_large']);
  });

  it('a 3 MB body the router cannot use reaches DEAD_LETTER whole', async () => {
    // deeper than any provider body: the router sets it aside at once
    const nested = `${'['.repeat(70)}${']'.repeat(70)}`;
    const bodyOf = (pad: number) => `{"object":"whatsapp_business_account","entry":[],"deep":${nested},"pad":"${'y'.repeat(pad)}"}`;
    const body = bodyOf(3 * 1024 * 1024 - bodyOf(0).length);
    const res = await fetch(`${stack.baseUrl}/webhooks/provider`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${createHmac('sha256', 'sim-app-secret').update(body).digest('hex')}` },
      body,
    });
    expect(res.status).toBe(200);
    const letter = await waitFor(
      async () => ((await stack.admin().get<any>('/admin/dead-letters?stream=PROVIDER_INBOUND')).json.data as any[]).find((d) => d.size === body.length),
      { what: 'the dead letter', timeoutMs: 30_000 },
    );
    expect(letter.error).toMatch(/nested deeper/);
    expect(body.startsWith(letter.data_preview.replace(/…$/, ''))).toBe(true);
  });

  it('out-of-order status updates never move a message back; a provider repeat of the same body is dropped', async () => {
    const wamid = await send();
    const read = await sim(`/_sim/messages/${encodeURIComponent(wamid)}/statuses`, { statuses: ['read'] });
    await waitFor(async () => (await record(wamid)).status === 'read', { what: 'read' });
    await sim(`/_sim/messages/${encodeURIComponent(wamid)}/statuses`, { statuses: ['sent', 'delivered'] });
    await waitFor(() => chatsOf(wamid).length === 3, { what: 'three chat events' });
    await waitFor(async () => (await record(wamid)).status_history.length === 4, { what: 'late updates recorded' });
    const rec = await record(wamid);
    expect(rec.status).toBe('read');
    expect(rec.status_history.map((h: { status: string }) => h.status).sort()).toEqual(['accepted', 'delivered', 'read', 'sent']);
    // the provider redelivers the same bytes: stored once, one chat event
    expect((await sim('/_sim/inbound/raw', { body: JSON.stringify(read.sent[0].body) })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 500));
    expect(chatsOf(wamid)).toHaveLength(3);
  });

  it('an nfm_reply produces both chat and flow_completion with the flow token and the response', async () => {
    const response = { flow_token: 'booking-42', date: '2026-12-01', guests: 2 };
    const { wamid } = await sim('/_sim/inbound/message', {
      phone_number_id: phone.phone_number_id,
      type: 'interactive',
      interactive: { type: 'nfm_reply', nfm_reply: { name: 'flow', body: 'Sent', response_json: JSON.stringify(response) } },
    });
    await waitFor(() => receiver.byType('flow_completion').some((r) => (r.body as any).payload.message_id === wamid), { what: 'flow_completion' });
    const fc = receiver.byType('flow_completion').find((r) => (r.body as any).payload.message_id === wamid)!;
    expect(fc.body).toEqual({
      type: 'flow_completion',
      client_id: clientId,
      external_id: 'shop-1',
      payload: { message_id: wamid, from: '16505551234', token: 'booking-42', response: { date: '2026-12-01', guests: 2 } },
    });
    // the two events are delivered apart (either may arrive first): the chat event is waited for too
    await waitFor(() => chatsOf(wamid).length > 0, { what: 'the chat event of the nfm_reply' });
    expect(chatsOf(wamid)).toHaveLength(1);
  });

  it('a template status update goes to every client of the business account as template_status', async () => {
    const second = await api.post('/api/clients/', {
      display_name: 'Second number',
      business_account_id: phone.waba_id,
      phone_number_id: `${phone.phone_number_id}9`,
      access_token: phone.access_token,
    });
    const secondId = (second.json as { id: string }).id;
    await sim('/_sim/inbound/template-status', {
      waba_id: phone.waba_id,
      event: 'REJECTED',
      reason: 'INVALID_FORMAT',
      template_id: 778899,
      template_name: 'promo',
      language: 'en_US',
    });
    const statuses = () => receiver.byType('template_status').filter((r) => (r.body as any).payload.template_id === '778899');
    await waitFor(() => statuses().length === 2, { what: 'two template_status events' });
    expect(
      statuses()
        .map((r) => (r.body as any).client_id)
        .sort(),
    ).toEqual([clientId, secondId].sort());
    expect(statuses()[0].body).toMatchObject({
      payload: { template_id: '778899', template_name: 'promo', language: 'en_US', status: 'REJECTED', reason: 'INVALID_FORMAT' },
    });
  });

  it('an update for an unknown phone number is dropped without harm: counted, and later updates still flow', async () => {
    const unknown = `{"object":"whatsapp_business_account","entry":[{"id":"waba-nobody","changes":[{"field":"messages","value":{"messaging_product":"whatsapp","metadata":{"display_phone_number":"1","phone_number_id":"pn-nobody"},"messages":[{"from":"1","id":"wamid.nobody","timestamp":"1","type":"text","text":{"body":"?"}}]}}]}]}`;
    expect((await sim('/_sim/inbound/raw', { body: unknown })).status).toBe(200);
    const metricsPort = stack.running.get('messaging')!.metricsPort;
    await waitFor(
      async () =>
        /inbound_updates_total\{[^}]*outcome="unknown_client"[^}]*\} [1-9]/.test(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()),
      { what: 'unknown update counted' },
    );
    const { wamid } = await sim('/_sim/inbound/message', { phone_number_id: phone.phone_number_id, text: 'still here' });
    await waitFor(() => chatsOf(wamid).length === 1, { what: 'later update delivered' });
    expect(receiver.received.some((r) => r.raw.toString('utf8').includes('wamid.nobody'))).toBe(false);
  });
});
