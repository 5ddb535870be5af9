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
  const to = '+16505551234';

  const sim = async (path: string, body?: unknown, method = 'POST') => (await new SimControl(stack.sim!.url).request(method, path, body)).json;
  const recorded = async (part: string): Promise<any[]> => sim(`/_sim/requests?path_contains=${encodeURIComponent(part)}`, undefined, 'GET');
  const clearRecorded = () => sim('/_sim/requests', undefined, 'DELETE');

  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'messaging', 'edge'], env: { PROVIDER_TIMEOUT_MS: '1500' } });
    ({ api } = await stack.createTenant({ name: 'Sender' }));
    ({ api: other } = await stack.createTenant({ name: 'Other' }));
    phone = await sim('/_sim/phone-numbers', { with_catalog: true });
    const client = await api.post('/api/clients/', { display_name: 'Shop', business_account_id: phone.waba_id, phone_number_id: phone.phone_number_id, access_token: phone.access_token, catalog_id: phone.catalog_id });
    clientId = (client.json as { id: string }).id;
    // the recipient wrote in (the 24-hour window is open), and the business account has the template sent below
    await sim('/_sim/inbound/message', { phone_number_id: phone.phone_number_id, from: to });
    await sim('/_sim/templates', { waba_id: phone.waba_id, name: 'order_confirmation', language: 'en_US', category: 'UTILITY', components: [{ type: 'BODY', text: 'Thanks {{1}}', example: { body_text: [['Ann']] } }] });
  });
  afterAll(() => stack.stop());
  beforeEach(async () => {
    await clearRecorded();
    await sim('/_sim/faults', undefined, 'DELETE');
  });

  /** The kind each operation's messages are recorded as (GET /api/messages/{id}). */
  const KINDS: Record<string, string> = {
    'send-buttons': 'buttons',
    'send-list': 'list',
    'send-products': 'products',
    'send-flow': 'flow',
    'send-reaction': 'reaction',
    'send-template': 'template',
    'send-location': 'location',
    'send-sticker': 'sticker',
    'send-catalog': 'catalog',
    'send-text': 'text',
    'send-contacts': 'contacts',
    'send-cta-url': 'cta_url',
    'send-location-request': 'location_request',
  };
  const base = { messaging_product: 'whatsapp', recipient_type: 'individual', to };
  const cases: Array<[string, () => Record<string, unknown>, () => Record<string, unknown>]> = [
    [
      'send-buttons with an image header and footer',
      () => ({ client_id: clientId, to, header: { type: 'image', url: 'https://cdn.shop.test/a.jpg' }, body: { type: 'text', text: 'Pick one' }, footer: 'Thanks', buttons: [{ id: 'yes', title: 'Yes' }, { id: 'no', title: 'No' }], reply_to: 'wamid.quoted' }),
      () => ({
        ...base,
        context: { message_id: 'wamid.quoted' },
        type: 'interactive',
        interactive: {
          type: 'button',
          header: { type: 'image', image: { link: 'https://cdn.shop.test/a.jpg' } },
          body: { text: 'Pick one' },
          footer: { text: 'Thanks' },
          action: { buttons: [{ type: 'reply', reply: { id: 'yes', title: 'Yes' } }, { type: 'reply', reply: { id: 'no', title: 'No' } }] },
        },
      }),
    ],
    [
      'send-list',
      () => ({ client_id: clientId, to, body: 'Choose shipping', button_text: 'Options', sections: [{ title: 'Fast', rows: [{ id: 'express', title: 'Express', description: '1-2 days' }] }, { title: 'Cheap', rows: [{ id: 'ground', title: 'Ground' }] }] }),
      () => ({
        ...base,
        type: 'interactive',
        interactive: {
          type: 'list',
          body: { text: 'Choose shipping' },
          action: { button: 'Options', sections: [{ title: 'Fast', rows: [{ id: 'express', title: 'Express', description: '1-2 days' }] }, { title: 'Cheap', rows: [{ id: 'ground', title: 'Ground' }] }] },
        },
      }),
    ],
    [
      'send-products with the client catalog',
      () => ({ client_id: clientId, to, title: 'Our picks', body: 'Tap to browse', sections: [{ title: 'Plants', skus: ['sku-1', 'sku-2'] }, { title: 'Pots', skus: ['sku-9'] }] }),
      () => ({
        ...base,
        type: 'interactive',
        interactive: {
          type: 'product_list',
          header: { type: 'text', text: 'Our picks' },
          body: { text: 'Tap to browse' },
          action: {
            catalog_id: phone.catalog_id,
            sections: [
              { title: 'Plants', product_items: [{ product_retailer_id: 'sku-1' }, { product_retailer_id: 'sku-2' }] },
              { title: 'Pots', product_items: [{ product_retailer_id: 'sku-9' }] },
            ],
          },
        },
      }),
    ],
    [
      'send-flow with a token and navigate payload',
      () => ({ client_id: clientId, to, body: 'Takes 1 minute', button_text: 'Book now', flow_id: '1197715005513101', flow_token: 'tok-1', flow_action_payload: { screen: 'BOOKING', data: { date: '2025-01-15' } } }),
      () => ({
        ...base,
        type: 'interactive',
        interactive: {
          type: 'flow',
          body: { text: 'Takes 1 minute' },
          action: {
            name: 'flow',
            parameters: { flow_message_version: '3', flow_token: 'tok-1', flow_id: '1197715005513101', flow_cta: 'Book now', mode: 'published', flow_action: 'navigate', flow_action_payload: { screen: 'BOOKING', data: { date: '2025-01-15' } } },
          },
        },
      }),
    ],
    ['send-reaction', () => ({ client_id: clientId, to, message_id: 'wamid.IN', emoji: '👍' }), () => ({ ...base, type: 'reaction', reaction: { message_id: 'wamid.IN', emoji: '👍' } })],
    ['send-reaction removal', () => ({ client_id: clientId, to, message_id: 'wamid.IN', emoji: '' }), () => ({ ...base, type: 'reaction', reaction: { message_id: 'wamid.IN', emoji: '' } })],
    [
      'send-template with components',
      () => ({ client_id: clientId, to, template_name: 'order_confirmation', lang: 'en_US', components: [{ type: 'body', parameters: [{ type: 'text', text: 'Jessica' }] }] }),
      () => ({ ...base, type: 'template', template: { name: 'order_confirmation', language: { code: 'en_US' }, components: [{ type: 'body', parameters: [{ type: 'text', text: 'Jessica' }] }] } }),
    ],
    [
      'send-location',
      () => ({ client_id: clientId, to, latitude: 37.44216, longitude: -122.16153, name: 'Philz Coffee', address: '101 Forest Ave' }),
      () => ({ ...base, type: 'location', location: { latitude: '37.44216', longitude: '-122.16153', name: 'Philz Coffee', address: '101 Forest Ave' } }),
    ],
    ['send-sticker', () => ({ client_id: clientId, to, url: 'https://cdn.shop.test/s.webp' }), () => ({ ...base, type: 'sticker', sticker: { link: 'https://cdn.shop.test/s.webp' } })],
    [
      'send-catalog',
      () => ({ client_id: clientId, to, body: 'Browse our catalog', thumbnail_product_retailer_id: 'sku-1' }),
      () => ({ ...base, type: 'interactive', interactive: { type: 'catalog_message', body: { text: 'Browse our catalog' }, action: { name: 'catalog_message', parameters: { thumbnail_product_retailer_id: 'sku-1' } } } }),
    ],
    ['send-text', () => ({ client_id: clientId, to, text: 'Your order shipped: https://shop.test/o/1', preview_url: true }), () => ({ ...base, type: 'text', text: { body: 'Your order shipped: https://shop.test/o/1', preview_url: true } })],
    ['send-text without preview_url', () => ({ client_id: clientId, to, text: 'Hello', reply_to: 'wamid.quoted' }), () => ({ ...base, context: { message_id: 'wamid.quoted' }, type: 'text', text: { body: 'Hello', preview_url: false } })],
    [
      'send-media image by url with a caption',
      () => ({ client_id: clientId, to, type: 'image', url: 'https://cdn.shop.test/p.jpg', caption: 'New in' }),
      () => ({ ...base, type: 'image', image: { link: 'https://cdn.shop.test/p.jpg', caption: 'New in' } }),
    ],
    [
      'send-media document by url with filename and caption',
      () => ({ client_id: clientId, to, type: 'document', url: 'https://cdn.shop.test/inv/42', filename: 'invoice-42.pdf', caption: 'Your invoice' }),
      () => ({ ...base, type: 'document', document: { link: 'https://cdn.shop.test/inv/42', caption: 'Your invoice', filename: 'invoice-42.pdf' } }),
    ],
    ['send-media audio by url', () => ({ client_id: clientId, to, type: 'audio', url: 'https://cdn.shop.test/a.ogg' }), () => ({ ...base, type: 'audio', audio: { link: 'https://cdn.shop.test/a.ogg' } })],
    [
      'send-media video as a reply',
      () => ({ client_id: clientId, to, type: 'video', url: 'https://cdn.shop.test/v.mp4', reply_to: 'wamid.quoted' }),
      () => ({ ...base, context: { message_id: 'wamid.quoted' }, type: 'video', video: { link: 'https://cdn.shop.test/v.mp4' } }),
    ],
    ['send-media sticker by url', () => ({ client_id: clientId, to, type: 'sticker', url: 'https://cdn.shop.test/s.webp' }), () => ({ ...base, type: 'sticker', sticker: { link: 'https://cdn.shop.test/s.webp' } })],
    [
      'send-contacts with a full card and a minimal one',
      () => ({
        client_id: clientId,
        to,
        contacts: [
          {
            name: { formatted_name: 'Ana Silva', first_name: 'Ana', last_name: 'Silva' },
            phones: [{ phone: '+1 (650) 555-1234', type: 'WORK', wa_id: '16505551234' }],
            emails: [{ email: 'ana@shop.test', type: 'WORK' }],
            urls: [{ url: 'https://shop.test', type: 'WORK' }],
            addresses: [{ street: '1 Main St', city: 'Menlo Park', state: 'CA', zip: '94025', country: 'United States', country_code: 'us', type: 'WORK' }],
            org: { company: 'Shop', title: 'Support' },
            birthday: '1990-02-28',
          },
          { name: { formatted_name: 'Front desk' }, phones: [{ phone: '+16505550000' }] },
        ],
      }),
      () => ({
        ...base,
        type: 'contacts',
        contacts: [
          {
            name: { formatted_name: 'Ana Silva', first_name: 'Ana', last_name: 'Silva' },
            phones: [{ phone: '+1 (650) 555-1234', type: 'WORK', wa_id: '16505551234' }],
            emails: [{ email: 'ana@shop.test', type: 'WORK' }],
            urls: [{ url: 'https://shop.test', type: 'WORK' }],
            addresses: [{ street: '1 Main St', city: 'Menlo Park', state: 'CA', zip: '94025', country: 'United States', country_code: 'us', type: 'WORK' }],
            org: { company: 'Shop', title: 'Support' },
            birthday: '1990-02-28',
          },
          { name: { formatted_name: 'Front desk' }, phones: [{ phone: '+16505550000' }] },
        ],
      }),
    ],
    [
      'send-cta-url with an image header and footer',
      () => ({ client_id: clientId, to, body: 'Track your parcel', button_text: 'Track', url: 'https://shop.test/track/42', header: { type: 'image', url: 'https://cdn.shop.test/box.jpg' }, footer: 'Shop' }),
      () => ({
        ...base,
        type: 'interactive',
        interactive: {
          type: 'cta_url',
          header: { type: 'image', image: { link: 'https://cdn.shop.test/box.jpg' } },
          body: { text: 'Track your parcel' },
          footer: { text: 'Shop' },
          action: { name: 'cta_url', parameters: { display_text: 'Track', url: 'https://shop.test/track/42' } },
        },
      }),
    ],
    [
      'send-cta-url with a text header',
      () => ({ client_id: clientId, to, body: 'See the menu', button_text: 'Menu', url: 'https://shop.test/menu', header: { type: 'text', text: 'Lunch' } }),
      () => ({
        ...base,
        type: 'interactive',
        interactive: { type: 'cta_url', header: { type: 'text', text: 'Lunch' }, body: { text: 'See the menu' }, action: { name: 'cta_url', parameters: { display_text: 'Menu', url: 'https://shop.test/menu' } } },
      }),
    ],
    [
      'send-location-request',
      () => ({ client_id: clientId, to, body: 'Where should we deliver?' }),
      () => ({ ...base, type: 'interactive', interactive: { type: 'location_request_message', body: { text: 'Where should we deliver?' }, action: { name: 'send_location' } } }),
    ],
  ];

  /** send-media records the media type itself; every other send its own kind. */
  const kindOf = (name: string, request: Record<string, unknown>) => (name.startsWith('send-media') ? request.type : KINDS[name.split(' ')[0]]);

  it.each(cases)('%s: the provider gets exactly its payload and the tenant 200 null with X-Message-Id', async (name, request, expected) => {
    const res = await api.post(`/api/messaging/${name.split(' ')[0]}`, request());
    expect(res.status).toBe(200);
    expect(res.text).toBe('null');
    const messageId = res.headers.get('x-message-id');
    expect(messageId).toMatch(/^wamid\./);
    const calls = await recorded(`/${phone.phone_number_id}/messages`);
    expect(calls).toHaveLength(1);
    expect(calls[0].method).toBe('POST');
    expect(calls[0].body).toEqual(expected());
    const record = await api.get(`/api/messages/${messageId}?client_id=${clientId}`);
    expect(record.status).toBe(200);
    expect(record.json).toMatchObject({ id: messageId, client_id: clientId, to, kind: kindOf(name, request()), status: 'accepted' });
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
      failed_users: [{ user: '+16505550299', code: 131047, reason: expect.stringMatching(/last 24 hours/), errors: [expect.objectContaining({ code: 131047 })] }],
    });
    // every user failing is the provider's error 139100 carrying the list: still each user and reason
    const all = await api.post('/api/messaging/block-users', { client_id: clientId, users: ['+16505550298', '+16505550299'] });
    expect(all.status).toBe(502);
    expect(all.json).toMatchObject({ code: 'block_users_partial_failure', added_users: [] });
    expect((all.json as any).failed_users.map((f: any) => [f.user, f.code])).toEqual([['+16505550298', 131047], ['+16505550299', 131047]]);
    expect((await api.post('/api/messaging/unblock-users', { client_id: clientId, users: ['+16505550200'] })).status).toBe(200);
    const calls = await recorded('/block_users');
    expect(calls.map((c) => [c.method, c.body])).toEqual([
      ['POST', { messaging_product: 'whatsapp', block_users: [{ user: '+16505550200' }] }],
      ['POST', { messaging_product: 'whatsapp', block_users: [{ user: '+16505550200' }, { user: '+16505550299' }] }],
      ['POST', { messaging_product: 'whatsapp', block_users: [{ user: '+16505550298' }, { user: '+16505550299' }] }],
      ['DELETE', { messaging_product: 'whatsapp', block_users: [{ user: '+16505550200' }] }],
    ]);
  });

  it('call accept sends the SDP answer for the call id', async () => {
    const { call_id } = await sim('/_sim/inbound/call', { phone_number_id: phone.phone_number_id, from: '16505550300' });
    const res = await api.post('/api/call/accept', { client_id: clientId, call_id, sdp: 'v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\n' });
    expect(res.status).toBe(200);
    expect(res.text).toBe('null');
    const calls = await recorded('/calls');
    expect(calls[0].body).toEqual({ messaging_product: 'whatsapp', call_id, action: 'accept', session: { sdp_type: 'answer', sdp: 'v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\n' } });
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
    await sim('/_sim/faults', { match: { path_contains: '/messages' }, delay_ms: 4000 });
    const started = Date.now();
    const slow = await api.post('/api/messaging/send-buttons', buttons());
    expect(slow.status).toBe(504);
    expect(slow.json).toMatchObject({ code: 'provider_outcome_unknown', outcome: 'unknown' });
    expect(Date.now() - started).toBeLessThan(4000);
    await sim('/_sim/faults', undefined, 'DELETE');
    await sim('/_sim/faults', { match: { path_contains: '/messages' }, drop: true });
    const dropped = await api.post('/api/messaging/send-buttons', buttons());
    expect(dropped.status).toBe(504);
    expect(dropped.json).toMatchObject({ code: 'provider_outcome_unknown' });
    expect(await recorded('/messages')).toHaveLength(2);
  });

  it('never sends twice after a timeout: the same Idempotency-Key replays the same 504 without calling the provider', async () => {
    await sim('/_sim/faults', { match: { path_contains: '/messages' }, delay_ms: 3000, times: 5 });
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

  it('a send to a number outside the 24-hour window is a 409 customer_service_window_closed; after the user writes in it goes', async () => {
    const closed = await api.post('/api/messaging/send-buttons', { ...buttons(), to: '+16505559001' });
    expect(closed.status).toBe(409);
    expect(closed.json).toMatchObject({ code: 'customer_service_window_closed', retryable: false, provider_error: { code: 131047, details: expect.stringMatching(/24 hours/) } });
    await sim('/_sim/inbound/message', { phone_number_id: phone.phone_number_id, from: '16505559001' });
    expect((await api.post('/api/messaging/send-buttons', { ...buttons(), to: '+16505559001' })).status).toBe(200);
  });

  it('a failure the provider reports later (window closed, undeliverable) reaches the message record with its errors', async () => {
    await sim('/_sim/window', { mode: 'async' }, 'PUT');
    try {
      const res = await api.post('/api/messaging/send-buttons', { ...buttons(), to: '+16505559002' });
      expect(res.status).toBe(200);
      const id = res.headers.get('x-message-id')!;
      const rec = await waitFor(async () => {
        const r = (await api.get(`/api/messages/${id}?client_id=${clientId}`)).json as any;
        return r.status === 'failed' ? r : undefined;
      }, { what: 'failed status recorded' });
      expect(rec.errors).toEqual([expect.objectContaining({ code: 131047, title: 'Re-engagement message' })]);
      expect(rec.status_history.map((h: any) => [h.status, h.errors?.[0]?.code])).toEqual([['accepted', undefined], ['failed', 131047]]);
    } finally {
      await sim('/_sim/window', { mode: 'sync' }, 'PUT');
    }
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

  it('refuses a pending signup placeholder with 409 client_not_active', async () => {
    const pending = (await api.post('/api/clients/', { display_name: 'Not yet' })).json as { id: string };
    const res = await api.post('/api/messaging/send-buttons', { ...buttons(), client_id: pending.id });
    expect(res.status).toBe(409);
    expect(res.json).toMatchObject({ code: 'client_not_active' });
    expect(await recorded('/messages')).toHaveLength(0);
  });
});
