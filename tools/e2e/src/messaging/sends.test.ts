import {
  EXAMPLE_AUTH_TEMPLATE,
  EXAMPLE_CLIENT,
  EXAMPLE_FLOWS,
  EXAMPLE_MEDIA_ID,
  EXAMPLE_NAMED_TEMPLATE,
  EXAMPLE_TEMPLATE,
  EXAMPLE_TO,
  MESSAGE_KINDS,
  messageKind,
  type MessageKind,
} from '@gateway/message-kinds';
import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import { SimControl, waitFor } from '@gateway/testing';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary provider JSON */

interface SimPhone {
  phone_number_id: string;
  waba_id: string;
  access_token: string;
  catalog_id: string | null;
}

describe('messaging operations end to end: edge → messaging → provider simulator', () => {
  let stack: Stack;
  let api: ApiClient;
  let other: ApiClient;
  let phone: SimPhone;
  let clientId: string;
  const to = EXAMPLE_TO;
  const kinds: readonly MessageKind[] = MESSAGE_KINDS;

  const sim = async (path: string, body?: unknown, method = 'POST') => (await new SimControl(stack.sim!.url).request(method, path, body)).json;
  const recorded = async (part: string): Promise<any[]> => sim(`/_sim/requests?path_contains=${encodeURIComponent(part)}`, undefined, 'GET');
  const clearRecorded = () => sim('/_sim/requests', undefined, 'DELETE');

  beforeAll(async () => {
    // a provider deadline of 5 s, which no answering simulator nears on a loaded machine; the timeout tests below
    // hold the simulator's answer well beyond it
    stack = await startStack({ services: ['tenant-directory', 'messaging', 'edge'], env: { PROVIDER_TIMEOUT_MS: '5000' } });
    ({ api } = await stack.createTenant({ name: 'Sender' }));
    ({ api: other } = await stack.createTenant({ name: 'Other' }));
    // the world of the kinds' examples: this catalog linked, this media of the number, these templates approved
    phone = await sim('/_sim/phone-numbers', { catalog_id: EXAMPLE_CLIENT.catalogId });
    const client = await api.post('/api/clients/', {
      display_name: 'Shop',
      business_account_id: phone.waba_id,
      phone_number_id: phone.phone_number_id,
      access_token: phone.access_token,
      catalog_id: phone.catalog_id,
    });
    clientId = (client.json as { id: string }).id;
    // every recipient of the examples wrote in (the 24-hour window is open); one sent the media
    await sim('/_sim/inbound/media', { phone_number_id: phone.phone_number_id, from: to, type: 'image', media_id: EXAMPLE_MEDIA_ID });
    for (const recipient of new Set(kinds.flatMap((k) => k.examples.valid.map((e) => e.body.to)))) {
      await sim('/_sim/inbound/message', { phone_number_id: phone.phone_number_id, from: recipient });
    }
    for (const template of [EXAMPLE_TEMPLATE, EXAMPLE_NAMED_TEMPLATE, EXAMPLE_AUTH_TEMPLATE])
      await sim('/_sim/templates', { waba_id: phone.waba_id, ...template });
    // the provider sends only flows of the sender's business account
    await sim('/_sim/flows', { waba_id: phone.waba_id, id: EXAMPLE_FLOWS.published, name: 'Published', status: 'PUBLISHED' });
    await sim('/_sim/flows', { waba_id: phone.waba_id, id: EXAMPLE_FLOWS.draft, name: 'Draft', status: 'DRAFT' });
  });
  afterAll(() => stack.stop());
  beforeEach(async () => {
    await clearRecorded();
    await sim('/_sim/faults', undefined, 'DELETE');
    // every example goes to the same recipient: a fresh pair-rate budget (burst 45) for each test
    await sim('/_sim/rate-limits', {}, 'PUT');
  });

  const examples = kinds.flatMap((kind) => kind.examples.valid.map((example) => [`${kind.path} ${example.name}`, kind, example] as const));

  it.each(examples)('%s: the provider gets exactly the example payload and the tenant 200 null with X-Message-Id', async (_name, kind, example) => {
    const request = { client_id: clientId, ...example.body };
    const res = await api.post(`/api/messaging/${kind.path}`, request);
    expect(res.status).toBe(200);
    expect(res.text).toBe('null');
    const messageId = res.headers.get('x-message-id');
    expect(messageId).toMatch(/^wamid\./);
    for (const h of kind.answerHeaders) expect(res.headers.get(h.name)).toEqual(h.value(kind.parse(request)) || expect.stringMatching(/./));
    const calls = await recorded(`/${phone.phone_number_id}/messages`);
    expect(calls).toHaveLength(1);
    expect(calls[0].method).toBe('POST');
    expect(calls[0].body).toEqual(example.payload);
    const record = await api.get(`/api/messages/${messageId}?client_id=${clientId}`);
    expect(record.status).toBe(200);
    expect(record.json).toMatchObject({ id: messageId, client_id: clientId, to: example.body.to, kind: example.recordKind ?? kind.name, status: 'accepted' });
  });

  it('send-flow without a token: one is generated, sent, answered in X-Flow-Token, and replayed under the same key', async () => {
    const request = { client_id: clientId, to, body: 'Book', button_text: 'Book now', flow_id: EXAMPLE_FLOWS.published };
    const headers = { 'idempotency-key': 'flow-token-1' };
    const first = await api.post(`/api/messaging/${messageKind('flow').path}`, request, headers);
    expect(first.status).toBe(200);
    const token = first.headers.get('x-flow-token');
    expect(token).toMatch(/^ft_[0-9a-f-]{36}$/);
    const [call] = await recorded(`/${phone.phone_number_id}/messages`);
    expect(call.body.interactive.action.parameters.flow_token).toBe(token);
    const again = await api.post('/api/messaging/send-flow', request, headers);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('x-flow-token')).toBe(token);
    expect(again.headers.get('x-message-id')).toBe(first.headers.get('x-message-id'));
    expect(await recorded('/messages')).toHaveLength(1);
  });

  it('mark-read and indicate-typing send read receipts (with the typing indicator)', async () => {
    const inbound = await sim('/_sim/inbound/message', { phone_number_id: phone.phone_number_id, from: '16505550100', type: 'text', text: { body: 'hi' } });
    expect((await api.post('/api/messaging/mark-read', { client_id: clientId, message_id: inbound.wamid })).status).toBe(200);
    expect((await api.post('/api/messaging/indicate-typing', { client_id: clientId, message_id: inbound.wamid })).status).toBe(200);
    const calls = await recorded('/messages');
    expect(calls.map((c) => c.body)).toEqual([
      { messaging_product: 'whatsapp', status: 'read', message_id: inbound.wamid },
      { messaging_product: 'whatsapp', status: 'read', message_id: inbound.wamid, typing_indicator: { type: 'text' } },
    ]);
  });

  it('block-users and unblock-users; a partial failure is a 502 naming the failed users', async () => {
    await sim('/_sim/inbound/message', { phone_number_id: phone.phone_number_id, from: '16505550200', type: 'text' });
    const ok = await api.post('/api/messaging/block-users', { client_id: clientId, users: ['+16505550200'] });
    expect(ok.status).toBe(200);
    expect(ok.text).toBe('null');
    const partial = await api.post('/api/messaging/block-users', { client_id: clientId, users: ['+16505550200', '+16505550299'] });
    expect(partial.status).toBe(502);
    expect(partial.json).toMatchObject({
      code: 'block_users_partial_failure',
      added_users: ['+16505550200'],
      failed_users: [
        { user: '+16505550299', code: 131047, reason: expect.stringMatching(/last 24 hours/), errors: [expect.objectContaining({ code: 131047 })] },
      ],
    });
    // every user failing is the provider's error 139100 carrying the list: still each user and reason
    const all = await api.post('/api/messaging/block-users', { client_id: clientId, users: ['+16505550298', '+16505550299'] });
    expect(all.status).toBe(502);
    expect(all.json).toMatchObject({ code: 'block_users_partial_failure', added_users: [] });
    expect((all.json as any).failed_users.map((f: any) => [f.user, f.code])).toEqual([
      ['+16505550298', 131047],
      ['+16505550299', 131047],
    ]);
    expect((await api.post('/api/messaging/unblock-users', { client_id: clientId, users: ['+16505550200'] })).status).toBe(200);
    const calls = await recorded('/block_users');
    expect(calls.map((c) => [c.method, c.body])).toEqual([
      ['POST', { messaging_product: 'whatsapp', block_users: [{ user: '+16505550200' }] }],
      ['POST', { messaging_product: 'whatsapp', block_users: [{ user: '+16505550200' }, { user: '+16505550299' }] }],
      ['POST', { messaging_product: 'whatsapp', block_users: [{ user: '+16505550298' }, { user: '+16505550299' }] }],
      ['DELETE', { messaging_product: 'whatsapp', block_users: [{ user: '+16505550200' }] }],
    ]);
  });

  it('is refused by the provider for a flow of another business account or none: 422 provider_parameter_invalid (this stack has no flows service)', async () => {
    const other = (await sim('/_sim/phone-numbers')) as SimPhone;
    const foreign = ((await sim('/_sim/flows', { waba_id: other.waba_id, status: 'PUBLISHED' })) as { id: string }).id;
    for (const flow of [foreign, '9'.repeat(16)]) {
      const res = await api.post(`/api/messaging/${messageKind('flow').path}`, { client_id: clientId, to, body: 'Book', button_text: 'Open', flow_id: flow });
      expect([res.status, (res.json as { code: string }).code]).toEqual([422, 'provider_parameter_invalid']);
    }
  });

  it('call accept sends the SDP answer for the call id', async () => {
    const { call_id } = await sim('/_sim/inbound/call', { phone_number_id: phone.phone_number_id, from: '16505550300' });
    const res = await api.post('/api/call/accept', { client_id: clientId, call_id, sdp: 'v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\n' });
    expect(res.status).toBe(200);
    expect(res.text).toBe('null');
    const calls = await recorded('/calls');
    expect(calls[0].body).toEqual({
      messaging_product: 'whatsapp',
      call_id,
      action: 'accept',
      session: { sdp_type: 'answer', sdp: 'v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\n' },
    });
  });

  const buttons = () => ({ client_id: clientId, to, body: { type: 'text', text: 'Pick' }, buttons: [{ id: 'a', title: 'A' }] });

  it.each([
    ['130429 (throughput)', { code: 130429, message: '(#130429) Rate limit hit' }, 429, 'provider_throughput_limited'],
    ['131056 (pair rate)', { code: 131056, message: '(#131056) pair rate limit hit' }, 429, 'pair_rate_limited'],
    ['190 (token)', { code: 190, message: 'Invalid OAuth access token' }, 502, 'provider_token_invalid'],
    ['100 (invalid parameter)', { code: 100, message: '(#100) Invalid parameter' }, 422, 'provider_invalid_parameter'],
  ])('maps provider error %s by code (the whole table: provider-errors.test.ts)', async (_name, error, status, code) => {
    await sim('/_sim/faults', { match: { path_contains: '/messages' }, status: 400, error });
    const res = await api.post('/api/messaging/send-buttons', buttons());
    expect(res.status).toBe(status);
    expect(res.json).toMatchObject({ code, provider_error: { code: error.code, message: error.message } });
    if (status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('answers 504 provider_outcome_unknown when the provider hangs or drops the connection after the send, never hanging', async () => {
    await sim('/_sim/faults', { match: { path_contains: '/messages' }, delay_ms: 15_000 });
    // a 504 is the gateway's own deadline: had it waited for the provider, it would have answered its 200
    const slow = await api.post('/api/messaging/send-buttons', buttons());
    expect(slow.status).toBe(504);
    expect(slow.json).toMatchObject({ code: 'provider_outcome_unknown', outcome: 'unknown' });
    await sim('/_sim/faults', undefined, 'DELETE');
    await sim('/_sim/faults', { match: { path_contains: '/messages' }, drop: true });
    const dropped = await api.post('/api/messaging/send-buttons', buttons());
    expect(dropped.status).toBe(504);
    expect(dropped.json).toMatchObject({ code: 'provider_outcome_unknown' });
    expect(await recorded('/messages')).toHaveLength(2);
  });

  it('never sends twice after a timeout: the same Idempotency-Key replays the same 504 without calling the provider', async () => {
    await sim('/_sim/faults', { match: { path_contains: '/messages' }, delay_ms: 15_000, times: 5 });
    const headers = { 'idempotency-key': 'unknown-outcome-1' };
    const first = await api.post('/api/messaging/send-buttons', buttons(), headers);
    expect(first.status).toBe(504);
    const again = await api.post('/api/messaging/send-buttons', buttons(), headers);
    const concurrent = await Promise.all(Array.from({ length: 5 }, () => api.post('/api/messaging/send-buttons', buttons(), headers)));
    for (const r of [again, ...concurrent]) {
      expect(r.status).toBe(504);
      expect(r.json).toEqual(first.json);
    }
    expect((first.json as any).detail).toMatch(/new Idempotency-Key/);
    expect(await recorded('/messages')).toHaveLength(1);
  });

  it('retries a transient provider error inside the request and answers with the outcome of the retry', async () => {
    await sim('/_sim/faults', { match: { path_contains: '/messages' }, status: 500, error: { code: 131000, message: 'Something went wrong' }, times: 1 });
    const res = await api.post('/api/messaging/send-buttons', buttons(), { 'idempotency-key': 'transient-1' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-message-id')).toMatch(/^wamid\./);
    expect(await recorded('/messages')).toHaveLength(2);
  });

  it('a provider that refuses a send outside the 24-hour window at once (the synchronous switch) is a 409 customer_service_window_closed; after the user writes in it goes', async () => {
    const control = new SimControl(stack.sim!.url);
    await control.setWindow('sync');
    try {
      const closed = await api.post('/api/messaging/send-buttons', { ...buttons(), to: '+16505559001' });
      expect(closed.status).toBe(409);
      expect(closed.json).toMatchObject({
        code: 'customer_service_window_closed',
        retryable: false,
        provider_error: { code: 131047, details: expect.stringMatching(/24 hours/) },
      });
      await control.inboundMessage(phone.phone_number_id, '16505559001', 'text', { body: 'hi' });
      expect((await api.post('/api/messaging/send-buttons', { ...buttons(), to: '+16505559001' })).status).toBe(200);
    } finally {
      await control.setWindow('async');
    }
  });

  it("outside the 24-hour window the provider's usual answer: the send is accepted, then a failed status with 131047 reaches the message record", async () => {
    const res = await api.post('/api/messaging/send-buttons', { ...buttons(), to: '+16505559002' });
    expect(res.status).toBe(200);
    const id = res.headers.get('x-message-id')!;
    const rec = await waitFor(
      async () => {
        const r = (await api.get(`/api/messages/${id}?client_id=${clientId}`)).json as any;
        return r.status === 'failed' ? r : undefined;
      },
      { what: 'failed status recorded' },
    );
    expect(rec.errors).toEqual([expect.objectContaining({ code: 131047, title: 'Re-engagement message' })]);
    expect(rec.status_history.map((h: any) => [h.status, h.errors?.[0]?.code])).toEqual([
      ['accepted', undefined],
      ['failed', 131047],
    ]);
  });

  it('replays an idempotent send without a second provider call, and refuses the key with another body', async () => {
    const headers = { 'idempotency-key': 'order-42' };
    const first = await api.post('/api/messaging/send-buttons', buttons(), headers);
    const second = await api.post('/api/messaging/send-buttons', buttons(), headers);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('x-message-id')).toBe(first.headers.get('x-message-id'));
    expect(await recorded('/messages')).toHaveLength(1);
    const reused = await api.post('/api/messaging/send-buttons', { ...buttons(), to: '+16505559999' }, headers);
    expect(reused.status).toBe(409);
    expect(reused.json).toMatchObject({ code: 'idempotency_key_reused' });
  });

  it('calls the provider once for 20 concurrent requests with one key', async () => {
    await sim('/_sim/faults', { match: { path_contains: '/messages' }, delay_ms: 300 });
    const results = await Promise.all(Array.from({ length: 20 }, () => api.post('/api/messaging/send-buttons', buttons(), { 'idempotency-key': 'burst-1' })));
    expect(await recorded('/messages')).toHaveLength(1);
    for (const r of results) expect([200, 409]).toContain(r.status);
    const ok = results.filter((r) => r.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((r) => r.headers.get('x-message-id'))).size).toBe(1);
    for (const r of results.filter((x) => x.status === 409)) expect(r.json).toMatchObject({ code: 'idempotency_in_progress' });
  });

  it("answers 404 for another tenant's client or an unknown client, and calls no provider", async () => {
    const res = await other.post('/api/messaging/send-buttons', buttons());
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ detail: 'Client not found', code: 'client_not_found' });
    const unknown = await api.post('/api/messaging/send-buttons', { ...buttons(), client_id: '00000000-0000-4000-8000-000000000000' });
    expect(unknown.status).toBe(404);
    expect(await recorded('/messages')).toHaveLength(0);
    expect((await other.get(`/api/messages/wamid.x?client_id=${clientId}`)).status).toBe(404);
  });

  it('answers each of the sends that arrive together with its own outcome when the edge sends them in one SendBatch call', async () => {
    /** SendBatch calls the messaging service served (its metrics): the edge batches sends whose requests share a turn. */
    const batchCalls = async () => {
      const text = await (await fetch(`http://127.0.0.1:${stack.running.get('messaging')!.metricsPort}/metrics`)).text();
      return text
        .split('\n')
        .filter((l) => l.startsWith('grpc_server_requests_total{') && l.includes('method="MessagingService/SendBatch"') && l.includes('code="0"'))
        .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
    };
    const before = await batchCalls();
    // rounds of concurrent requests until at least one round's sends shared a call (requests reach the edge
    // together nearly always; a round whose requests each came alone proves nothing and is followed by another)
    for (let round = 0; round < 10 && (await batchCalls()) === before; round++) {
      const texts = Array.from({ length: 10 }, (_, i) => `together ${round}.${i}`);
      const [sent, refused] = await Promise.all([
        Promise.all(texts.map((text) => api.post('/api/messaging/send-text', { client_id: clientId, to, text }))),
        Promise.all([1, 2].map(() => other.post('/api/messaging/send-text', { client_id: clientId, to, text: 'not yours' }))),
      ]);
      for (const r of refused) expect([r.status, r.json]).toEqual([404, { detail: 'Client not found', code: 'client_not_found' }]);
      expect(sent.map((r) => r.status)).toEqual(texts.map(() => 200));
      const ids = sent.map((r) => r.headers.get('x-message-id')!);
      expect(new Set(ids).size).toBe(texts.length);
      // each answer is its own request's: the message its id names holds the text that request sent
      for (const [i, id] of ids.entries()) expect((await api.get(`/api/messages/${id}?client_id=${clientId}`)).json).toMatchObject({ text: texts[i] });
      expect((await recorded('/messages')).filter((r) => texts.includes(r.body?.text?.body))).toHaveLength(texts.length);
    }
    expect(await batchCalls()).toBeGreaterThan(before);
  });

  it('refuses a pending signup placeholder with 409 client_not_active', async () => {
    const pending = (await api.post('/api/clients/', { display_name: 'Not yet' })).json as { id: string };
    const res = await api.post('/api/messaging/send-buttons', { ...buttons(), client_id: pending.id });
    expect(res.status).toBe(409);
    expect(res.json).toMatchObject({ code: 'client_not_active' });
    expect(await recorded('/messages')).toHaveLength(0);
  });
});
