import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SimControl, waitFor, listenLocal } from '@gateway/testing';
import { startProviderSim, type RunningProviderSim } from './index';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary provider JSON
type Loose = Record<string, any>;

describe('provider simulator: the Calling API (provider-2026.md §7)', () => {
  let sim: RunningProviderSim;
  let control: SimControl;
  let receiver: Server;
  const received: Loose[] = [];
  let phone: { phone_number_id: string; waba_id: string; access_token: string };

  const graph = (path: string, body?: unknown, method = 'POST') =>
    fetch(`${sim.url}/v23.0/${path}`, {
      method,
      headers: { authorization: `Bearer ${phone.access_token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, json: (await r.json()) as Loose }));
  const act = (call_id: string, action: string, sdp?: string) =>
    graph(`${phone.phone_number_id}/calls`, { messaging_product: 'whatsapp', call_id, action, ...(sdp ? { session: { sdp_type: 'answer', sdp } } : {}) });
  /** The `calls` webhook entries received for a call, in order. */
  const callHooks = (id: string) =>
    received
      .flatMap((b) => b.entry[0].changes[0])
      .filter((c: Loose) => c.field === 'calls')
      .flatMap((c: Loose) => [...(c.value.calls ?? []), ...(c.value.statuses ?? [])])
      .filter((e: Loose) => e.id === id);

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let raw = '';
      req.on('data', (d) => (raw += d));
      req.on('end', () => {
        received.push(JSON.parse(raw) as Loose);
        res.end('ok');
      });
    });
    await listenLocal(receiver);
    sim = await startProviderSim({
      port: 0,
      appId: 'app',
      appSecret: 's',
      verifyToken: 'v',
      configId: 'c',
      webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`,
    });
    control = new SimControl(sim.url);
    phone = await control.phoneNumber();
  });
  afterAll(async () => {
    await sim.stop();
    await new Promise((r) => receiver.close(r));
  });

  it('a user-initiated call rings, is pre-accepted and accepted with the same answer, and its terminate webhook carries the duration', async () => {
    const { call_id } = await control.inboundCall(phone.phone_number_id, '16505550001');
    expect(callHooks(call_id)).toMatchObject([{ event: 'connect', direction: 'USER_INITIATED', session: { sdp_type: 'offer' } }]);
    expect(await act(call_id, 'pre_accept', 'v=0 answer')).toEqual({ status: 200, json: { messaging_product: 'whatsapp', success: true } });
    const other = await act(call_id, 'accept', 'v=0 another answer');
    expect([other.status, other.json.error.code]).toEqual([400, 131009]);
    expect((await act(call_id, 'accept', 'v=0 answer')).status).toBe(200);
    await control.advanceClock(120_000);
    try {
      expect((await act(call_id, 'terminate')).status).toBe(200);
      await waitFor(() => callHooks(call_id).length === 2);
      const end = callHooks(call_id)[1];
      expect(end).toMatchObject({ event: 'terminate', status: 'COMPLETED', duration: 120 });
      expect(Number(end.end_time) - Number(end.start_time)).toBe(120);
    } finally {
      await control.resetClock();
    }
  });

  it('refuses the illegal orders with the provider errors', async () => {
    const { call_id } = await control.inboundCall(phone.phone_number_id, '16505550002');
    const early = await act(call_id, 'terminate');
    expect([early.status, early.json.error.code]).toEqual([400, 131009]);
    expect((await act(call_id, 'reject')).status).toBe(200);
    await waitFor(() => callHooks(call_id).length === 2);
    expect(callHooks(call_id)[1]).toMatchObject({ event: 'terminate', status: 'FAILED' });
    expect(callHooks(call_id)[1].duration).toBeUndefined();
    for (const [action, sdp] of [['accept', 'v=0'], ['pre_accept', 'v=0'], ['reject'], ['terminate']] as const) {
      const res = await act(call_id, action, sdp);
      expect([action, res.status, res.json.error.code]).toEqual([action, 400, 131009]);
    }
    const unknown = await act('wacid.unknown', 'accept', 'v=0');
    expect(unknown.json.error.code).toBe(138001);
  });

  it('a business-initiated call needs the permission the user grants by replying to a permission request', async () => {
    const to = '16505550003';
    const connect = () =>
      graph(`${phone.phone_number_id}/calls`, { messaging_product: 'whatsapp', to, action: 'connect', session: { sdp_type: 'offer', sdp: 'v=0 offer' } });
    const refused = await connect();
    expect([refused.status, refused.json.error.code]).toEqual([401, 138006]);
    expect((await graph(`${phone.phone_number_id}/call_permissions?user_wa_id=${to}`, undefined, 'GET')).json.permission).toEqual({ status: 'no_permission' });
    expect((await control.callPermissionReply(phone.phone_number_id, to, 'accept').catch((e: Error) => e.message)) as string).toMatch(/409/);

    await control.inboundMessage(phone.phone_number_id, to, 'text');
    const request = {
      messaging_product: 'whatsapp',
      to,
      type: 'interactive',
      interactive: { type: 'call_permission_request', action: { name: 'call_permission_request' } },
    };
    const sent = await graph(`${phone.phone_number_id}/messages`, request);
    expect(sent.status).toBe(200);
    const again = await graph(`${phone.phone_number_id}/messages`, request);
    expect([again.status, again.json.error.code]).toEqual([400, 138009]);
    const withHeader = await graph(`${phone.phone_number_id}/messages`, {
      ...request,
      interactive: { ...request.interactive, header: { type: 'text', text: 'x' } },
    });
    expect(withHeader.json.error.code).toBe(100);

    await control.callPermissionReply(phone.phone_number_id, to, 'accept');
    const reply = received.at(-1)!.entry[0].changes[0].value.messages[0];
    expect(reply).toMatchObject({
      context: { id: sent.json.messages[0].id },
      interactive: { type: 'call_permission_reply', call_permission_reply: { response: 'accept' } },
    });
    expect((await graph(`${phone.phone_number_id}/call_permissions?user_wa_id=${to}`, undefined, 'GET')).json.permission.status).toBe('temporary');

    const ok = await connect();
    expect(ok.status).toBe(200);
    const id = ok.json.calls[0].id as string;
    await waitFor(() => callHooks(id).length === 1);
    expect(callHooks(id)[0]).toMatchObject({ type: 'call', status: 'RINGING' });
    const busy = await connect();
    expect(busy.json.error.code).toBe(138003);
    expect((await act(id, 'accept', 'v=0')).json.error.code).toBe(131009);
    await control.callUser(id, 'answer');
    expect(callHooks(id).slice(1)).toMatchObject([{ event: 'connect', session: { sdp_type: 'answer' } }, { status: 'ACCEPTED' }]);
    expect((await act(id, 'terminate')).status).toBe(200);
    await waitFor(() => callHooks(id).length === 4);
    expect(callHooks(id)[3]).toMatchObject({ event: 'terminate', direction: 'BUSINESS_INITIATED', status: 'COMPLETED' });
  });

  it('the user declines a business call (REJECTED, then terminate FAILED) or hangs up a user-initiated one before it is answered', async () => {
    const to = '16505550004';
    await control.inboundMessage(phone.phone_number_id, to, 'text');
    const request = {
      messaging_product: 'whatsapp',
      to,
      type: 'interactive',
      interactive: { type: 'call_permission_request', action: { name: 'call_permission_request' } },
    };
    expect((await graph(`${phone.phone_number_id}/messages`, request)).status).toBe(200);
    await control.callPermissionReply(phone.phone_number_id, to, 'accept', true);
    const permanent = await graph(`${phone.phone_number_id}/messages`, request);
    expect(permanent.json.error.code).toBe(138017);
    const ok = await graph(`${phone.phone_number_id}/calls`, {
      messaging_product: 'whatsapp',
      to,
      action: 'connect',
      session: { sdp_type: 'offer', sdp: 'v=0' },
    });
    const id = ok.json.calls[0].id as string;
    await waitFor(() => callHooks(id).length === 1);
    await control.callUser(id, 'decline');
    expect(callHooks(id).map((h: Loose) => h.status)).toEqual(['RINGING', 'REJECTED', 'FAILED']);
    expect((await control.request('POST', `/_sim/calls/${id}/answer`)).status).toBe(409);

    const { call_id } = await control.inboundCall(phone.phone_number_id, '16505550005');
    await control.callUser(call_id, 'hangup');
    expect(callHooks(call_id)[1]).toMatchObject({ event: 'terminate', status: 'FAILED' });
    expect((await act(call_id, 'accept', 'v=0')).json.error.code).toBe(131009);
  });

  it('keeps the calling settings; with calling disabled every call action is 138000 and customers cannot call', async () => {
    const p = await control.phoneNumber();
    const settings = (body?: unknown) =>
      fetch(`${sim.url}/v23.0/${p.phone_number_id}/settings`, {
        method: body ? 'POST' : 'GET',
        headers: { authorization: `Bearer ${p.access_token}`, 'content-type': 'application/json' },
        body: body ? JSON.stringify(body) : undefined,
      }).then(async (r) => ({ status: r.status, json: (await r.json()) as Loose }));
    expect((await settings()).json.calling.status).toBe('ENABLED');
    const tooMany = await settings({
      calling: {
        call_hours: {
          status: 'ENABLED',
          timezone_id: 'America/Manaus',
          weekly_operating_hours: ['0100', '0300', '0500'].map((open) => ({
            day_of_week: 'MONDAY',
            open_time: open,
            close_time: '0' + (Number(open[1]) + 1) + '00',
          })),
        },
      },
    });
    expect([tooMany.status, tooMany.json.error.code]).toEqual([400, 100]);
    expect((await settings({ calling: { status: 'DISABLED', callback_permission_status: 'ENABLED' } })).json).toEqual({ success: true });
    expect((await settings()).json.calling).toMatchObject({ status: 'DISABLED', callback_permission_status: 'ENABLED' });
    expect((await control.request('POST', '/_sim/inbound/call', { phone_number_id: p.phone_number_id, from: '16505550009' })).status).toBe(409);
    const refused = await fetch(`${sim.url}/v23.0/${p.phone_number_id}/calls`, {
      method: 'POST',
      headers: { authorization: `Bearer ${p.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messaging_product: 'whatsapp', call_id: 'wacid.x', action: 'reject' }),
    }).then(async (r) => (await r.json()) as Loose);
    expect(refused.error.code).toBe(138000);
    // enabling needs an app subscribed to the account's webhooks (138018)
    const enable = await settings({ calling: { status: 'ENABLED' } });
    expect(enable.json.error.code).toBe(138018);
  });
});
