import { signatureHeader } from '@gateway/crypto';
import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import { SimControl, startWebhookReceiver, waitFor, type WebhookReceiver } from '@gateway/testing';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON */

describe('template management through real HTTP: edge → messaging → provider simulator, status webhooks back', () => {
  let stack: Stack;
  let receiver: WebhookReceiver;
  let api: ApiClient;
  let other: ApiClient;
  let secret: string;
  let phone: { phone_number_id: string; waba_id: string; access_token: string };
  let clientId: string;
  let otherClientId: string;
  const to = '+16505551234';

  const sim = async (path: string, body?: unknown, method = 'POST') => (await new SimControl(stack.sim!.url).request(method, path, body)).json;
  const recorded = (part: string): Promise<any[]> => sim(`/_sim/requests?path_contains=${encodeURIComponent(part)}`, undefined, 'GET');
  const statusEvents = (id: string) => receiver.byType('template_status').filter((r) => (r.body as any).payload.template_id === id);

  const orderUpdate = (name = 'order_update') => ({
    client_id: clientId,
    name,
    language: 'en_US',
    category: 'UTILITY',
    components: [
      { type: 'HEADER', format: 'TEXT', text: 'Order {{1}}', example: { header_text: ['A-1'] } },
      { type: 'BODY', text: 'Hi {{1}}, your order {{2}} has shipped', example: { body_text: [['Ann', 'A-1']] } },
      { type: 'FOOTER', text: 'Thanks' },
      {
        type: 'BUTTONS',
        buttons: [
          { type: 'URL', text: 'Track', url: 'https://shop.test/t/{{1}}', example: ['https://shop.test/t/A-1'] },
          { type: 'QUICK_REPLY', text: 'Stop' },
        ],
      },
    ],
  });
  const params = [
    { type: 'header', parameters: [{ type: 'text', text: 'A-9' }] },
    {
      type: 'body',
      parameters: [
        { type: 'text', text: 'Bo' },
        { type: 'text', text: 'A-9' },
      ],
    },
    { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'A-9' }] },
  ];

  beforeAll(async () => {
    stack = await startStack({ env: { WEBHOOK_RETRY_DELAYS_MS: '200,400' } });
    receiver = await startWebhookReceiver();
    const t = await stack.createTenant({ webhook_url: receiver.url });
    api = t.api;
    secret = t.tenant.webhook_secret;
    ({ api: other } = await stack.createTenant({ name: 'Other' }));
    phone = await sim('/_sim/phone-numbers', {});
    clientId = (
      (
        await api.post('/api/clients/', {
          display_name: 'Shop',
          business_account_id: phone.waba_id,
          phone_number_id: phone.phone_number_id,
          access_token: phone.access_token,
        })
      ).json as any
    ).id;
    const otherPhone = await sim('/_sim/phone-numbers', {});
    otherClientId = (
      (
        await other.post('/api/clients/', {
          display_name: 'Other',
          business_account_id: otherPhone.waba_id,
          phone_number_id: otherPhone.phone_number_id,
          access_token: otherPhone.access_token,
        })
      ).json as any
    ).id;
    // review decisions come from the tests, through the simulator's control API
    await sim('/_sim/templates/review', { mode: 'manual' }, 'PUT');
  }, 90_000);
  afterAll(async () => {
    await receiver?.close();
    await stack?.stop();
  });

  it('create → PENDING → approved by the provider → signed template_status and an APPROVED record → sends go, a wrong count is a 422 without a provider call → delete', async () => {
    const created = await api.post('/api/templates', orderUpdate());
    expect(created.status).toBe(200);
    const record = created.json as any;
    expect(record).toEqual({
      id: expect.stringMatching(/^\d+$/),
      client_id: clientId,
      name: 'order_update',
      language: 'en_US',
      category: 'UTILITY',
      status: 'PENDING',
      components: orderUpdate().components,
      rejected_reason: null,
      quality: null,
      parameter_format: 'POSITIONAL',
      updated_at: expect.any(String),
    });
    const [providerCall] = await recorded(`/${phone.waba_id}/message_templates`);
    expect(providerCall.body).toEqual({ name: 'order_update', language: 'en_US', category: 'UTILITY', components: orderUpdate().components });

    // not approved yet: the gateway refuses the send itself
    const early = await api.post('/api/messaging/send-template', { client_id: clientId, to, template_name: 'order_update', lang: 'en_US', components: params });
    expect([early.status, (early.json as any).code, (early.json as any).detail[0].loc]).toEqual([422, 'template_not_approved', ['body', 'template_name']]);

    await sim(`/_sim/templates/${record.id}/status`, { status: 'APPROVED' });
    await waitFor(() => statusEvents(record.id).length === 1, { what: 'template_status event' });
    const [event] = statusEvents(record.id);
    expect(event.headers['x-signature-256']).toBe(signatureHeader(secret, event.raw));
    expect(event.body).toEqual({
      type: 'template_status',
      client_id: clientId,
      external_id: null,
      payload: { template_id: record.id, template_name: 'order_update', language: 'en_US', status: 'APPROVED', reason: null },
    });
    const got = await api.get(`/api/templates/${record.id}?client_id=${clientId}`);
    expect((got.json as any).status).toBe('APPROVED');

    await sim('/_sim/requests', undefined, 'DELETE');
    const ok = await api.post('/api/messaging/send-template', { client_id: clientId, to, template_name: 'order_update', lang: 'en_US', components: params });
    expect(ok.status).toBe(200);
    const wrong = await api.post('/api/messaging/send-template', {
      client_id: clientId,
      to,
      template_name: 'order_update',
      lang: 'en_US',
      components: params.slice(1),
    });
    expect(wrong.status).toBe(422);
    expect(wrong.json).toMatchObject({
      code: 'template_param_count_mismatch',
      detail: [{ loc: ['body', 'components'], type: 'template_param_count_mismatch', ctx: { component: 'header', expected: 1 } }],
    });
    const wrongLanguage = await api.post('/api/messaging/send-template', {
      client_id: clientId,
      to,
      template_name: 'order_update',
      lang: 'de',
      components: params,
    });
    expect([wrongLanguage.status, (wrongLanguage.json as any).detail[0].loc]).toEqual([422, ['body', 'lang']]);
    expect(await recorded('/messages')).toHaveLength(1);

    const listed = await api.get(`/api/templates?client_id=${clientId}&status=APPROVED`);
    expect((listed.json as any).data.map((t: any) => t.id)).toEqual([record.id]);

    expect((await api.delete(`/api/templates?client_id=${clientId}&name=order_update`)).status).toBe(200);
    expect((await api.get(`/api/templates/${record.id}?client_id=${clientId}`)).status).toBe(404);
    // the provider no longer has it either: a send is the provider's 132001, classified
    const gone = await api.post('/api/messaging/send-template', { client_id: clientId, to, template_name: 'order_update', lang: 'en_US', components: params });
    expect([gone.status, (gone.json as any).code, (gone.json as any).provider_error.code]).toEqual([422, 'template_not_found', 132001]);
  });

  it('a rejected template carries its reason on the record and in the event', async () => {
    const created = (await api.post('/api/templates', orderUpdate('promo_blast'))).json as any;
    await sim(`/_sim/templates/${created.id}/status`, { status: 'REJECTED', reason: 'PROMOTIONAL' });
    await waitFor(() => statusEvents(created.id).length === 1, { what: 'template_status event' });
    expect((statusEvents(created.id)[0].body as any).payload).toMatchObject({ status: 'REJECTED', reason: 'PROMOTIONAL' });
    expect((await api.get(`/api/templates/${created.id}?client_id=${clientId}`)).json).toMatchObject({ status: 'REJECTED', rejected_reason: 'PROMOTIONAL' });
  });

  it('deletes one language by id and keeps the others', async () => {
    const en = (await api.post('/api/templates', orderUpdate('welcome'))).json as any;
    const es = (await api.post('/api/templates', { ...orderUpdate('welcome'), language: 'es' })).json as any;
    expect((await api.delete(`/api/templates?client_id=${clientId}&template_id=${es.id}`)).status).toBe(200);
    const left = (await api.get(`/api/templates?client_id=${clientId}&name=welcome`)).json as any;
    expect(left.data.map((t: any) => [t.id, t.language])).toEqual([[en.id, 'en_US']]);
    expect((await api.delete(`/api/templates?client_id=${clientId}&template_id=${es.id}`)).status).toBe(404);
  });

  it('sync pulls the provider list: templates made elsewhere appear, ones deleted elsewhere go; the list pages with a cursor', async () => {
    const seeded = await sim('/_sim/templates', {
      waba_id: phone.waba_id,
      name: 'made_elsewhere',
      language: 'en_US',
      category: 'MARKETING',
      components: [{ type: 'BODY', text: 'Sale' }],
    });
    const local = (await api.post('/api/templates', orderUpdate('deleted_elsewhere'))).json as any;
    await fetch(`${stack.sim!.url}/v21.0/${phone.waba_id}/message_templates?name=deleted_elsewhere`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${phone.access_token}` },
    });
    const synced = await api.post('/api/templates/sync', { client_id: clientId });
    expect(synced.status).toBe(200);
    expect((synced.json as any).removed).toBeGreaterThanOrEqual(0);
    expect((await api.get(`/api/templates/${seeded.id}?client_id=${clientId}`)).json).toMatchObject({
      name: 'made_elsewhere',
      status: 'APPROVED',
      category: 'MARKETING',
    });
    expect((await api.get(`/api/templates/${local.id}?client_id=${clientId}`)).status).toBe(404);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = (await api.get(`/api/templates?client_id=${clientId}&limit=1${cursor ? `&cursor=${cursor}` : ''}`)).json as any;
      expect(page.data.length).toBeLessThanOrEqual(1);
      seen.push(...page.data.map((t: any) => t.id));
      cursor = page.next_cursor;
    } while (cursor);
    const all = ((await api.get(`/api/templates?client_id=${clientId}&limit=100`)).json as any).data.map((t: any) => t.id);
    expect(seen).toEqual(all);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it("seals the list's cursor: a forged one (a NUL inside included) and another tenant's or client's are a 422 naming cursor", async () => {
    for (const name of ['cursor_a', 'cursor_b']) expect((await api.post('/api/templates', orderUpdate(name))).status).toBe(200);
    const first = (await api.get(`/api/templates?client_id=${clientId}&limit=1`)).json as any;
    expect(first.next_cursor).toEqual(expect.any(String));
    expect((await api.get(`/api/templates?client_id=${clientId}&limit=1&cursor=${first.next_cursor}`)).status).toBe(200);
    const refused = (res: { status: number; json: unknown }) => {
      expect(res.status).toBe(422);
      expect((res.json as any).detail).toEqual([expect.objectContaining({ loc: ['query', 'cursor'], type: 'cursor_invalid' })]);
    };
    // positions written as the list used to answer them, one with a NUL PostgreSQL cannot compare
    const position = (parts: string[]) => Buffer.from(JSON.stringify(parts)).toString('base64url');
    refused(await api.get(`/api/templates?client_id=${clientId}&cursor=${position(['cursor_a\u0000', 'en_US', '1'])}`));
    refused(await api.get(`/api/templates?client_id=${clientId}&cursor=${position([first.data[0].name, 'en_US', first.data[0].id])}`));
    // tenant A's cursor: on tenant B's own client, and on another client of tenant A
    refused(await other.get(`/api/templates?client_id=${otherClientId}&limit=1&cursor=${first.next_cursor}`));
    const second = ((await api.post('/api/clients/', { display_name: 'Second' })).json as any).id;
    refused(await api.get(`/api/templates?client_id=${second}&limit=1&cursor=${first.next_cursor}`));
  });

  it('checks the shape of a new template before any provider call', async () => {
    await sim('/_sim/requests', undefined, 'DELETE');
    const base = orderUpdate('shape_check');
    const cases: Array<[unknown, string[]]> = [
      [{ ...base, name: 'Not Lowercase' }, ['body', 'name']],
      [{ ...base, category: 'SPAM' }, ['body', 'category']],
      [{ ...base, components: [base.components[2]] }, ['body', 'components']],
      [{ ...base, components: [base.components[1], base.components[1]] }, ['body', 'components']],
      [{ ...base, components: [{ type: 'BODY', text: 'Hi {{1}}' }] }, ['body', 'components', '0']],
      [
        {
          ...base,
          components: [base.components[1], { type: 'BUTTONS', buttons: [1, 2, 3].map((i) => ({ type: 'URL', text: `L${i}`, url: `https://x.test/${i}` })) }],
        },
        ['body', 'components', '1'],
      ],
    ];
    for (const [body, loc] of cases) {
      const res = await api.post('/api/templates', body);
      expect([res.status, (res.json as any).detail?.[0]?.loc]).toEqual([422, loc]);
    }
    // the message names the example field that is missing (shown beside the JSON in the dashboard)
    const missing = await api.post('/api/templates', { ...base, components: [{ type: 'BODY', text: 'Hi {{1}}' }] });
    expect((missing.json as any).detail[0].msg).toMatch(/uses 1 variable\(s\): example\.body_text must give a value for each$/);
    expect(await recorded('/message_templates')).toHaveLength(0);
  });

  it("answers 404 on every template route for another tenant's client", async () => {
    const theirs = (await other.post('/api/templates', { ...orderUpdate('theirs'), client_id: otherClientId })).json as any;
    const calls = [
      api.get(`/api/templates?client_id=${otherClientId}`),
      api.post('/api/templates', { ...orderUpdate('x'), client_id: otherClientId }),
      api.get(`/api/templates/${theirs.id}?client_id=${otherClientId}`),
      api.get(`/api/templates/${theirs.id}?client_id=${clientId}`),
      api.post('/api/templates/sync', { client_id: otherClientId }),
      api.delete(`/api/templates?client_id=${otherClientId}&name=theirs`),
      api.delete(`/api/templates?client_id=${clientId}&template_id=${theirs.id}`),
    ];
    for (const res of await Promise.all(calls)) expect(res.status).toBe(404);
    expect((await other.get(`/api/templates/${theirs.id}?client_id=${otherClientId}`)).status).toBe(200);
  });
});
