import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SimControl, waitFor, listenLocal } from '@gateway/testing';
import { startProviderSim, type RunningProviderSim } from './index';

describe('provider simulator', () => {
  let sim: RunningProviderSim;
  let receiver: Server;
  const received: Array<{ raw: string; signature: string | undefined }> = [];
  let phone: { phone_number_id: string; waba_id: string; access_token: string; catalog_id: string | null };

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary provider JSON
  type Loose = Record<string, any>;
  const graph = (path: string, body: unknown, token = phone.access_token, method = 'POST') =>
    fetch(`${sim.url}/v21.0/${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, json: (await r.json()) as Loose }));
  const control = async (path: string, body: unknown = {}, method = 'POST') => (await new SimControl(sim.url).request<Loose>(method, path, body)).json ?? {};
  const send = (extra: Record<string, unknown>) =>
    graph(`${phone.phone_number_id}/messages`, { messaging_product: 'whatsapp', recipient_type: 'individual', to: '+16505551234', ...extra });

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let raw = '';
      req.on('data', (d) => (raw += d));
      req.on('end', () => {
        received.push({ raw, signature: req.headers['x-hub-signature-256'] as string | undefined });
        res.end('ok');
      });
    });
    await listenLocal(receiver);
    sim = await startProviderSim({
      port: 0,
      appId: 'app',
      appSecret: 'app-secret',
      verifyToken: 'v',
      configId: 'c',
      webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`,
    });
    phone = (await control('/_sim/phone-numbers', { with_catalog: true })) as typeof phone;
    // the users these tests send free-form messages to have written in (the 24-hour window is open)
    for (const from of ['16505551234', '16505551000', '16505551001', '16505551002', '16505551003'])
      await control('/_sim/inbound/message', { phone_number_id: phone.phone_number_id, from });
  });
  afterAll(async () => {
    await sim.stop();
    await new Promise((r) => receiver.close(r));
  });

  it('leaves closing an idle keep-alive socket to the client: no idle timeout announced (or enforced)', async () => {
    // a server closing an idle socket races a client reusing it (ECONNRESET); Node announces its 5 s default
    const res = await fetch(`${sim.url}/_sim/phone-numbers`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    await res.arrayBuffer();
    expect([res.headers.get('connection'), res.headers.get('keep-alive')]).toEqual(['keep-alive', null]);
  });

  it('accepts a valid reply-buttons message with the documented success shape', async () => {
    const res = await send({
      type: 'interactive',
      interactive: { type: 'button', body: { text: 'Pick' }, action: { buttons: [{ type: 'reply', reply: { id: 'a', title: 'A' } }] } },
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      messaging_product: 'whatsapp',
      contacts: [{ input: '+16505551234', wa_id: '16505551234' }],
      messages: [{ id: expect.stringMatching(/^wamid\./) }],
    });
  });

  it.each([
    [
      '4 buttons',
      {
        type: 'interactive',
        interactive: {
          type: 'button',
          body: { text: 'x' },
          action: { buttons: [1, 2, 3, 4].map((i) => ({ type: 'reply', reply: { id: `b${i}`, title: `B${i}` } })) },
        },
      },
      100,
    ],
    [
      'a 21-character title',
      {
        type: 'interactive',
        interactive: { type: 'button', body: { text: 'x' }, action: { buttons: [{ type: 'reply', reply: { id: 'b', title: 'x'.repeat(21) } }] } },
      },
      100,
    ],
    [
      '11 list rows',
      {
        type: 'interactive',
        interactive: {
          type: 'list',
          body: { text: 'x' },
          action: {
            button: 'Go',
            sections: [
              { title: 'a', rows: Array.from({ length: 6 }, (_, i) => ({ id: `a${i}`, title: 'r' })) },
              { title: 'b', rows: Array.from({ length: 5 }, (_, i) => ({ id: `b${i}`, title: 'r' })) },
            ],
          },
        },
      },
      100,
    ],
    ['a PNG sticker', { type: 'sticker', sticker: { link: 'https://x.test/s.png' } }, 100],
    ['a FAX phone on a contact card', { type: 'contacts', contacts: [{ name: { formatted_name: 'A' }, phones: [{ phone: '+1', type: 'FAX' }] }] }, 100],
    ['a CELL email on a contact card', { type: 'contacts', contacts: [{ name: { formatted_name: 'A' }, emails: [{ email: 'a@b.test', type: 'CELL' }] }] }, 100],
    ['latitude 91', { type: 'location', location: { latitude: 91, longitude: 0 } }, 100],
    ['a missing body', { type: 'text', text: {} }, 131008],
  ])('rejects %s with the provider error envelope', async (_name, body, code) => {
    const res = await send(body);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code, fbtrace_id: expect.any(String) });
    expect(res.json.error.error_data.details).toEqual(expect.any(String));
  });

  it('rejects a wrong token with 190 and another account phone with 100/33', async () => {
    expect((await send({ type: 'text', text: { body: 'x' } }).then(() => graph(`${phone.phone_number_id}/messages`, {}, 'bogus'))).json.error.code).toBe(190);
    const other = await control('/_sim/phone-numbers');
    const res = await graph(`${other.phone_number_id}/messages`, { messaging_product: 'whatsapp', to: '1555', type: 'text', text: { body: 'x' } });
    expect(res.json.error).toMatchObject({ code: 100, error_subcode: 33, type: 'GraphMethodException' });
  });

  it('marks inbound messages read and rejects unknown ids with 131009', async () => {
    const inbound = await control('/_sim/inbound/message', { phone_number_id: phone.phone_number_id, from: '16505550001', type: 'text', text: { body: 'hi' } });
    expect(
      (
        await graph(`${phone.phone_number_id}/messages`, {
          messaging_product: 'whatsapp',
          status: 'read',
          message_id: inbound.wamid,
          typing_indicator: { type: 'text' },
        })
      ).json,
    ).toEqual({ success: true });
    expect(
      (await graph(`${phone.phone_number_id}/messages`, { messaging_product: 'whatsapp', status: 'read', message_id: 'wamid.nope' })).json.error.code,
    ).toBe(131009);
  });

  it('blocks users who wrote in the last 24 h and reports the others as failed (139100)', async () => {
    await control('/_sim/inbound/message', { phone_number_id: phone.phone_number_id, from: '16505550002', type: 'text' });
    const res = await graph(`${phone.phone_number_id}/block_users`, {
      messaging_product: 'whatsapp',
      block_users: [{ user: '+16505550002' }, { user: '+16505559999' }],
    });
    expect(res.status).toBe(200);
    expect(res.json.block_users.added_users).toEqual([{ input: '+16505550002', wa_id: '16505550002' }]);
    expect(res.json.block_users.failed_users[0]).toMatchObject({ input: '+16505559999', errors: [{ code: 131047 }] });
    expect(res.json.errors.code).toBe(139100);
  });

  it('accepts an inbound call with an SDP answer', async () => {
    const { call_id } = await control('/_sim/inbound/call', { phone_number_id: phone.phone_number_id, from: '16505550003' });
    const ok = await graph(`${phone.phone_number_id}/calls`, {
      messaging_product: 'whatsapp',
      call_id,
      action: 'accept',
      session: { sdp_type: 'answer', sdp: 'v=0' },
    });
    expect(ok.json).toEqual({ messaging_product: 'whatsapp', success: true });
    const again = await graph(`${phone.phone_number_id}/calls`, {
      messaging_product: 'whatsapp',
      call_id,
      action: 'accept',
      session: { sdp_type: 'answer', sdp: 'v=0' },
    });
    expect(again.status).toBe(400);
  });

  it('in the synchronous window mode refuses free-form messages outside the 24-hour window with 131047 (templates still go); an inbound message opens it', async () => {
    await new SimControl(sim.url).setWindow('sync');
    const text = { to: '+16505557777', type: 'text', text: { body: 'hello?' } };
    const closed = await send(text);
    expect([closed.status, closed.json.error.code]).toEqual([400, 131047]);
    expect(closed.json.error.error_data.details).toMatch(/24 hours/);
    await control('/_sim/templates', {
      waba_id: phone.waba_id,
      name: 'hello_world',
      language: 'en_US',
      category: 'UTILITY',
      components: [{ type: 'BODY', text: 'Hello' }],
    });
    expect((await send({ to: '+16505557777', type: 'template', template: { name: 'hello_world', language: { code: 'en_US' } } })).status).toBe(200);
    await control('/_sim/inbound/message', { phone_number_id: phone.phone_number_id, from: '16505557777' });
    expect((await send(text)).status).toBe(200);
    await new SimControl(sim.url).setWindow('async');
  });

  /** The status webhooks received so far of one message, in arrival order, with the value they came in. */
  const statusesOf = (id: string) =>
    received
      .map((r) => JSON.parse(r.raw).entry[0].changes[0].value as Loose)
      .filter((v) => v.statuses?.[0]?.id === id)
      .map((v): Loose => ({ ...(v.statuses[0] as Loose), valueErrors: v.errors }));

  it("by default (the provider's usual behaviour) accepts a send outside the window, then reports it failed with 131047 on the status and in the value; undeliverable numbers fail with 131026", async () => {
    await control('/_sim/undeliverable', { numbers: ['+16505551000'] }, 'PUT');
    received.length = 0;
    const outside = await send({ to: '+16505557778', type: 'text', text: { body: 'x' } });
    const undeliverable = await send({ to: '+16505551000', type: 'text', text: { body: 'x' } });
    expect([outside.status, undeliverable.status]).toEqual([200, 200]);
    const [failed] = await waitFor(() => (statusesOf(outside.json.messages[0].id).length ? statusesOf(outside.json.messages[0].id) : undefined), {
      what: 'the failed status',
    });
    expect(failed).toMatchObject({ status: 'failed', errors: [{ code: 131047, title: 'Re-engagement message', error_data: { details: expect.any(String) } }] });
    expect(failed.valueErrors).toEqual(failed.errors);
    const [other] = await waitFor(() => (statusesOf(undeliverable.json.messages[0].id).length ? statusesOf(undeliverable.json.messages[0].id) : undefined), {
      what: 'the failed status',
    });
    expect(other.errors[0]).toMatchObject({ code: 131026, title: 'Message undeliverable' });
    await control('/_sim/undeliverable', { numbers: ['+16505551000'], code: 0 }, 'PUT');
  });

  it('auto-statuses skip delivered for every n-th message, play voice messages, and follow a script: deterministically', async () => {
    const c = new SimControl(sim.url);
    await c.autoStatuses(true);
    await c.statusPlan({ skip_delivered_every: 2, reset_count: true });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 2; i++) ids.push((await send({ to: '+16505551001', type: 'text', text: { body: `m${i}` } })).json.messages[0].id);
      const voice = await c.inboundMedia(phone.phone_number_id, '16505551001', 'audio');
      ids.push((await send({ to: '+16505551001', type: 'audio', audio: { id: voice.media_id } })).json.messages[0].id);
      await c.scriptStatuses('+16505551001', ['sent', 'failed']);
      ids.push((await send({ to: '+16505551001', type: 'text', text: { body: 'scripted' } })).json.messages[0].id);
      const expected = [
        ['sent', 'delivered', 'read'],
        ['sent', 'read'],
        ['sent', 'delivered', 'read', 'played'],
        ['sent', 'failed'],
      ];
      for (const [i, id] of ids.entries()) {
        const got = await waitFor(() => (statusesOf(id).length === expected[i].length ? statusesOf(id) : undefined), { what: `statuses of message ${i}` });
        expect(got.map((st) => st.status)).toEqual(expected[i]);
      }
    } finally {
      await c.autoStatuses(false);
      await c.statusPlan({ skip_delivered_every: 5, reset_count: true });
    }
  });

  it('answers 131057 while a number is in maintenance, and 190/463 once its token expired', async () => {
    await control('/_sim/maintenance', { phone_number_id: phone.phone_number_id, seconds: 60 }, 'PUT');
    expect((await send({ type: 'text', text: { body: 'x' } })).json.error.code).toBe(131057);
    await control('/_sim/maintenance', { phone_number_id: phone.phone_number_id, seconds: 0 }, 'PUT');
    const other = await control('/_sim/phone-numbers');
    await control('/_sim/tokens/expire', { access_token: other.access_token });
    const res = await graph(
      `${other.phone_number_id}/messages`,
      { messaging_product: 'whatsapp', to: '1555', type: 'text', text: { body: 'x' } },
      other.access_token,
    );
    expect([res.status, res.json.error.code, res.json.error.error_subcode]).toEqual([401, 190, 463]);
  });

  it('manages templates like the provider: validation, review with signed status webhooks, and send-time checks', async () => {
    const create = (body: Record<string, unknown>) =>
      graph(`${phone.waba_id}/message_templates`, { name: 'order_update', language: 'en_US', category: 'UTILITY', ...body });
    const bodyWithVar = { type: 'BODY', text: 'Order {{1}} shipped', example: { body_text: [['A-1']] } };
    expect((await create({ components: [{ type: 'BODY', text: 'Order {{1}} shipped' }] })).json.error).toMatchObject({
      code: 100,
      error_data: expect.stringMatching(/example/),
    });
    expect((await create({ components: [{ type: 'FOOTER', text: 'x' }] })).json.error.code).toBe(100);
    expect((await create({ name: 'Bad Name', components: [bodyWithVar] })).json.error.code).toBe(100);
    await control('/_sim/templates/review', { mode: 'manual' }, 'PUT');
    const created = await create({
      components: [bodyWithVar, { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Track', url: 'https://x.test/t/{{1}}', example: ['https://x.test/t/1'] }] }],
    });
    // 16 digits, below 2^53: the status webhook carries it as a JSON number, which must parse back to the same id
    expect(created.json).toEqual({ id: expect.stringMatching(/^1\d{15}$/), status: 'PENDING', category: 'UTILITY' });
    expect(String(JSON.parse(JSON.stringify({ n: Number(created.json.id) })).n)).toBe(created.json.id);
    expect((await create({ components: [bodyWithVar] })).json.error).toMatchObject({ code: 100, error_subcode: 2388024 });
    const tpl = { name: 'order_update', language: { code: 'en_US' } };
    const params = [
      { type: 'body', parameters: [{ type: 'text', text: 'A-9' }] },
      { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: '9' }] },
    ];
    expect((await send({ type: 'template', template: { ...tpl, components: params } })).json.error.code).toBe(132001);
    received.length = 0;
    await control(`/_sim/templates/${created.json.id}/status`, { status: 'APPROVED' });
    const hook = JSON.parse(received[0].raw);
    expect(received[0].signature).toBe(`sha256=${createHmac('sha256', 'app-secret').update(received[0].raw).digest('hex')}`);
    expect(hook.entry[0]).toMatchObject({
      id: phone.waba_id,
      changes: [
        {
          field: 'message_template_status_update',
          value: {
            event: 'APPROVED',
            message_template_id: Number(created.json.id),
            message_template_name: 'order_update',
            message_template_language: 'en_US',
            reason: 'NONE',
          },
        },
      ],
    });
    expect((await send({ type: 'template', template: { ...tpl, components: params } })).status).toBe(200);
    expect((await send({ type: 'template', template: { ...tpl, components: params.slice(0, 1) } })).json.error).toMatchObject({
      code: 132000,
      error_data: { details: expect.stringMatching(/button 0/) },
    });
    await control(`/_sim/templates/${created.json.id}/status`, { status: 'PAUSED' });
    expect((await send({ type: 'template', template: { ...tpl, components: params } })).json.error.code).toBe(132015);
    const listed = await fetch(`${sim.url}/v21.0/${phone.waba_id}/message_templates?name=order_update`, {
      headers: { authorization: `Bearer ${phone.access_token}` },
    }).then((r) => r.json() as Promise<Loose>);
    expect(listed.data).toEqual([expect.objectContaining({ id: created.json.id, name: 'order_update', status: 'PAUSED', components: expect.any(Array) })]);
    const gone = await fetch(`${sim.url}/v21.0/${phone.waba_id}/message_templates?name=order_update`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${phone.access_token}` },
    });
    expect(await gone.json()).toEqual({ success: true });
    expect((await send({ type: 'template', template: { ...tpl, components: params } })).json.error.code).toBe(132001);
    await control('/_sim/templates/review', { mode: 'auto', delay_ms: 50 }, 'PUT');
    const auto = await create({ name: 'auto_reviewed', components: [{ type: 'BODY', text: 'Hi' }] });
    // reviewed 50 ms after its creation: read until it is no longer pending
    const got = await waitFor(
      async () => {
        const t = await fetch(`${sim.url}/v21.0/${auto.json.id}`, { headers: { authorization: `Bearer ${phone.access_token}` } }).then(
          (r) => r.json() as Promise<Loose>,
        );
        return t.status !== 'PENDING' && t;
      },
      { what: 'the automatic review' },
    );
    expect(got).toMatchObject({ id: auto.json.id, status: 'APPROVED' });
  });

  it('takes named and authentication templates as the provider documents them, in either case, and refuses what it refuses', async () => {
    const create = (body: Record<string, unknown>) => graph(`${phone.waba_id}/message_templates`, { language: 'en_US', ...body });
    const named = {
      name: 'order_ready',
      category: 'utility',
      parameter_format: 'named',
      components: [
        { type: 'header', format: 'text', text: 'Order {{order_id}}', example: { header_text_named_params: [{ param_name: 'order_id', example: 'SKB-1' }] } },
        {
          type: 'body',
          text: 'Hi {{first_name}}, order {{order_id}} is ready.',
          example: {
            body_text_named_params: [
              { param_name: 'first_name', example: 'Jo' },
              { param_name: 'order_id', example: 'SKB-1' },
            ],
          },
        },
      ],
    };
    const otp = (button: Record<string, unknown>) => ({
      category: 'AUTHENTICATION',
      components: [
        { type: 'BODY', add_security_recommendation: true },
        { type: 'FOOTER', code_expiration_minutes: 10 },
        { type: 'BUTTONS', buttons: [{ type: 'OTP', ...button }] },
      ],
    });
    const app = { package_name: 'com.example.app', signature_hash: 'K8a/AINcGX7' };
    expect((await create(named)).json).toMatchObject({ status: 'PENDING', category: 'UTILITY' });
    expect((await create({ name: 'otp_copy', ...otp({ otp_type: 'COPY_CODE', text: 'Copy' }) })).status).toBe(200);
    expect((await create({ name: 'otp_one_tap', ...otp({ otp_type: 'ONE_TAP', autofill_text: 'Autofill', supported_apps: [app] }) })).status).toBe(200);
    const zeroTap = { otp_type: 'ZERO_TAP', zero_tap_terms_accepted: true, supported_apps: [app] };
    const created = await create({ name: 'otp_zero_tap', ...otp(zeroTap) });
    expect(created.status).toBe(200);
    // the provider shows an authentication template with its own texts and the OTP button as a URL button
    const shown = await fetch(`${sim.url}/v21.0/${created.json.id}`, { headers: { authorization: `Bearer ${phone.access_token}` } }).then(
      (r) => r.json() as Promise<Loose>,
    );
    expect(shown.components).toEqual([
      { type: 'BODY', text: '*{{1}}* is your verification code. For your security, do not share this code.', add_security_recommendation: true },
      { type: 'FOOTER', text: 'This code expires in 10 minutes.', code_expiration_minutes: 10 },
      { type: 'BUTTONS', buttons: [expect.objectContaining({ type: 'URL', url: expect.stringMatching(/otp_type=ZERO_TAP.*code=otp\{\{1\}\}$/) })] },
    ]);
    const refused: Array<[string, Record<string, unknown>]> = [
      ['named variables without parameter_format', { ...named, name: 'x1', parameter_format: undefined }],
      [
        'variables not sequential',
        { name: 'x2', category: 'UTILITY', components: [{ type: 'BODY', text: 'A {{1}} B {{3}}', example: { body_text: [['a', 'b']] } }] },
      ],
      ['a named variable without its example', { ...named, name: 'x3', components: [{ ...named.components[1], example: { body_text_named_params: [] } }] }],
      [
        'an authentication body with text',
        { name: 'x4', ...otp({ otp_type: 'COPY_CODE' }), components: [{ type: 'BODY', text: 'Code {{1}}' }, otp({ otp_type: 'COPY_CODE' }).components[2]] },
      ],
      [
        'an authentication template without a button',
        { name: 'x5', category: 'AUTHENTICATION', components: [{ type: 'BODY', add_security_recommendation: true }] },
      ],
      ['a zero-tap button without its terms', { name: 'x6', ...otp({ ...zeroTap, zero_tap_terms_accepted: undefined }) }],
      ['a one-tap app hash that is not 11 characters', { name: 'x7', ...otp({ otp_type: 'ONE_TAP', supported_apps: [{ ...app, signature_hash: 'short' }] }) }],
      [
        'an OTP button on a utility template',
        { name: 'x8', category: 'UTILITY', components: [{ type: 'BODY', text: 'Hi' }, otp({ otp_type: 'COPY_CODE' }).components[2]] },
      ],
    ];
    for (const [what, body] of refused) expect([what, (await create(body)).json.error?.code]).toEqual([what, 100]);
    // sends of an approved authentication template: the code in the body and the button, at most 15 characters
    await control(`/_sim/templates/${created.json.id}/status`, { status: 'APPROVED' });
    const otpSend = (code: string) =>
      send({
        to: '+16505550777',
        type: 'template',
        template: {
          name: 'otp_zero_tap',
          language: { code: 'en_US' },
          components: [
            { type: 'body', parameters: [{ type: 'text', text: code }] },
            { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: code }] },
          ],
        },
      });
    expect((await otpSend('482910')).status).toBe(200);
    expect((await otpSend('1234567890123456')).json.error.code).toBe(132008);
    // the creation limit: 100 an hour per business account, answered with the business account rate limit's code
    await control('/_sim/templates/review', { creations_per_hour: 4 }, 'PUT');
    expect((await create({ ...named, name: 'one_too_many' })).json.error).toMatchObject({ code: 80007 });
    await control('/_sim/templates/review', { creations_per_hour: 100 }, 'PUT');
  });

  it('throttles with 130429 and 131056 when switched on', async () => {
    await control('/_sim/rate-limits', { throughput_per_second: 2 }, 'PUT');
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push((await send({ to: `+1650555${1000 + i}`, type: 'text', text: { body: 'x' } })).json.error?.code ?? 'ok');
    expect(codes).toContain(130429);
    await control('/_sim/rate-limits', { throughput_per_second: null, pair_rate: true }, 'PUT');
    const pair = [];
    for (let i = 0; i < 46; i++) pair.push((await send({ type: 'text', text: { body: 'x' } })).json.error?.code ?? 'ok');
    expect(pair.filter((c) => c === 'ok')).toHaveLength(45);
    expect(pair[45]).toBe(131056);
    await control('/_sim/rate-limits', { pair_rate: false }, 'PUT');
  });

  it('limits throughput and the pair rate by default, like the provider', async () => {
    const fresh = await startProviderSim({ port: 0, appId: 'app', appSecret: 'app-secret', verifyToken: 'v', configId: 'c' });
    expect(fresh.state.rateLimits).toEqual({ throughputPerSecond: 80, pairRate: true });
    expect(fresh.state.window).toBe('async');
    await fresh.stop();
  });

  it('sends status webhooks signed over the raw bytes', async () => {
    const sent = await send({ type: 'text', text: { body: 'status me' } });
    received.length = 0;
    await control(`/_sim/messages/${sent.json.messages[0].id}/statuses`, { statuses: ['sent', 'read'] });
    expect(received).toHaveLength(2);
    for (const r of received) expect(r.signature).toBe(`sha256=${createHmac('sha256', 'app-secret').update(r.raw).digest('hex')}`);
    expect(JSON.parse(received[1].raw).entry[0].changes[0].value.statuses[0]).toMatchObject({
      id: sent.json.messages[0].id,
      status: 'read',
      recipient_id: '16505551234',
    });
  });

  it('injects faults: an error code, a delay and a dropped connection', async () => {
    await control('/_sim/faults', { match: { path_contains: '/messages' }, error: { code: 190, message: 'expired' }, status: 401 });
    expect((await send({ type: 'text', text: { body: 'x' } })).json.error.code).toBe(190);
    await control('/_sim/faults', { match: { path_contains: '/messages' }, drop: true });
    await expect(send({ type: 'text', text: { body: 'x' } })).rejects.toThrow();
    expect((await send({ type: 'text', text: { body: 'x' } })).status).toBe(200);
  });
});
