import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import { postgresServerUrl, SimControl, startWebhookReceiver, waitFor, type WebhookReceiver } from '@gateway/testing';
import { startedTalking } from './talking';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary provider and API JSON */

interface SimPhone {
  phone_number_id: string;
  waba_id: string;
  access_token: string;
}

const backends: Array<'pglite' | 'postgres'> = ['pglite', 'postgres'];
const SDP = 'v=0\r\no=- 7 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n';

/**
 * The Calling API end to end (issue 25, item 6; provider-2026.md §7): simulator → edge → JetStream → messaging
 * (call records) → dispatcher → the tenant's receiver, and the tenant's actions edge → messaging → simulator, on
 * both storage backends (the call records are the messaging service's table).
 */
describe.each(backends)('the Calling API on %s storage', (storage) => {
  let stack: Stack;
  let sim: SimControl;
  let receiver: WebhookReceiver;
  let api: ApiClient;
  let other: ApiClient;
  let phone: SimPhone;
  let clientId: string;
  let otherClientId: string;

  const call = async (id: string, client = clientId) => (await api.get<any>(`/api/calls/${encodeURIComponent(id)}?client_id=${client}`)).json;
  /** Waits until the call's record has `status` (the webhooks travel through JetStream to the messaging service). */
  const recordWith = async (id: string, status: string, extra: (c: any) => boolean = () => true) => {
    let last: any;
    await waitFor(
      async () => {
        const res = await api.get<any>(`/api/calls/${encodeURIComponent(id)}?client_id=${clientId}`);
        last = res.json;
        return res.status === 200 && last.status === status && extra(last);
      },
      { what: `call ${id} ${status}`, timeoutMs: 20_000 },
    );
    return last;
  };
  const statuses = (c: any) => c.timeline.map((t: any) => t.status);
  const registerClient = async (client: ApiClient, p: SimPhone) =>
    (
      (
        await client.post<any>('/api/clients/', {
          display_name: 'Shop',
          business_account_id: p.waba_id,
          phone_number_id: p.phone_number_id,
          access_token: p.access_token,
        })
      ).json as { id: string }
    ).id;

  beforeAll(async () => {
    if (storage === 'postgres' && !postgresServerUrl()) throw new Error('TEST_DATABASE_URL is not set: run `npm test`');
    stack = await startStack({ storage, env: { WEBHOOK_RETRY_DELAYS_MS: '200,400' } });
    sim = new SimControl(stack.sim!.url);
    receiver = await startWebhookReceiver();
    ({ api } = await stack.createTenant({ name: 'Caller', webhook_url: receiver.url }));
    ({ api: other } = await stack.createTenant({ name: 'Other' }));
    phone = await sim.phoneNumber();
    clientId = await registerClient(api, phone);
    otherClientId = await registerClient(other, await sim.phoneNumber());
  }, 180_000);
  afterAll(async () => {
    await receiver?.close();
    await stack?.stop();
  });
  afterEach(() => sim.resetClock());

  it('a user-initiated call: ring → pre-accept → accept → terminate, with the timeline, start, end and duration in its record', async () => {
    const { call_id } = await sim.inboundCall(phone.phone_number_id, '16505550101');
    // the connect webhook reaches the tenant as a chat event, and the record exists before it does
    await waitFor(() => receiver.byType('chat').some((r) => r.raw.toString('utf8').includes(call_id)), { what: 'the connect chat event' });
    const ringing = await call(call_id);
    expect(ringing).toMatchObject({ id: call_id, client_id: clientId, direction: 'user_initiated', user: '16505550101', status: 'ringing', started_at: null });

    expect((await api.post('/api/call/pre-accept', { client_id: clientId, call_id, sdp: SDP })).text).toBe('null');
    const talking = startedTalking();
    expect((await api.post('/api/call/accept', { client_id: clientId, call_id, sdp: SDP, biz_opaque_callback_data: 'ticket-42' })).status).toBe(200);
    await sim.advanceClock(95_000);
    expect((await api.post('/api/call/terminate', { client_id: clientId, call_id })).status).toBe(200);

    const done = await recordWith(call_id, 'terminated', (c) => c.duration_seconds !== null);
    expect(statuses(done)).toEqual(['ringing', 'pre_accepted', 'accepted', 'terminated']);
    expect(done.timeline.map((t: any) => t.source)).toEqual(['webhook', 'action', 'action', 'action']);
    expect(talking.seconds(95)).toContain(done.duration_seconds);
    expect((Date.parse(done.ended_at) - Date.parse(done.started_at)) / 1000).toBe(done.duration_seconds);
    // what the provider got: the pre-accept's answer, the same answer on accept, the terminate
    const bodies = (await sim.calls('/calls')).map((c) => c.body as any).filter((b) => b.call_id === call_id);
    expect(bodies).toEqual([
      { messaging_product: 'whatsapp', call_id, action: 'pre_accept', session: { sdp_type: 'answer', sdp: SDP } },
      { messaging_product: 'whatsapp', call_id, action: 'accept', session: { sdp_type: 'answer', sdp: SDP }, biz_opaque_callback_data: 'ticket-42' },
      { messaging_product: 'whatsapp', call_id, action: 'terminate' },
    ]);
    // the terminate webhook (with the echoed callback data) reached the tenant too
    await waitFor(
      () => receiver.byType('chat').some((r) => r.raw.toString('utf8').includes('"event":"terminate"') && r.raw.toString('utf8').includes(call_id)),
      {
        what: 'the terminate chat event',
      },
    );
    const listed = await api.get<any>(`/api/calls?client_id=${clientId}&limit=1`);
    expect(listed.status).toBe(200);
  });

  it('a rejected call, and a call nobody answered (missed)', async () => {
    const { call_id } = await sim.inboundCall(phone.phone_number_id, '16505550102');
    await recordWith(call_id, 'ringing');
    expect((await api.post('/api/call/reject', { client_id: clientId, call_id })).status).toBe(200);
    const rejected = await recordWith(call_id, 'rejected');
    expect(statuses(rejected)).toEqual(['ringing', 'rejected']);
    expect([rejected.started_at, rejected.duration_seconds]).toEqual([null, null]);
    expect(rejected.ended_at).toEqual(expect.any(String));

    const missed = await sim.inboundCall(phone.phone_number_id, '16505550103');
    await recordWith(missed.call_id, 'ringing');
    await sim.callUser(missed.call_id, 'timeout');
    expect(statuses(await recordWith(missed.call_id, 'missed'))).toEqual(['ringing', 'missed']);
  });

  it("an action out of order is refused with the provider's error, and the record does not move", async () => {
    const { call_id } = await sim.inboundCall(phone.phone_number_id, '16505550104');
    await recordWith(call_id, 'ringing');
    const early = await api.post<any>('/api/call/terminate', { client_id: clientId, call_id });
    expect([early.status, early.json.code, early.json.provider_error?.code]).toEqual([422, 'provider_parameter_invalid', 131009]);
    expect((await api.post('/api/call/pre-accept', { client_id: clientId, call_id, sdp: SDP })).status).toBe(200);
    const otherAnswer = await api.post<any>('/api/call/accept', { client_id: clientId, call_id, sdp: `${SDP}a=another\r\n` });
    expect([otherAnswer.status, otherAnswer.json.provider_error?.code]).toEqual([422, 131009]);
    expect((await api.post('/api/call/reject', { client_id: clientId, call_id })).status).toBe(200);
    const late = await api.post<any>('/api/call/accept', { client_id: clientId, call_id, sdp: SDP });
    expect([late.status, late.json.provider_error?.code]).toEqual([422, 131009]);
    expect(statuses(await recordWith(call_id, 'rejected'))).toEqual(['ringing', 'pre_accepted', 'rejected']);
  });

  it('a business-initiated call is refused without permission and connects after the permission reply', async () => {
    const to = '+16505550105';
    const connect = () => api.post<any>('/api/call/connect', { client_id: clientId, to, sdp: SDP });
    const refused = await connect();
    expect([refused.status, refused.json.code, refused.json.provider_error?.code]).toEqual([409, 'call_permission_missing', 138006]);
    const none = await api.get<any>(`/api/call/permissions?client_id=${clientId}&to=${encodeURIComponent(to)}`);
    expect([none.status, none.json.status, none.json.expires_at]).toEqual([200, 'no_permission', null]);

    // the user wrote in (the window is open), the business asks, the user accepts
    await sim.inboundMessage(phone.phone_number_id, to.slice(1), 'text');
    const asked = await api.post('/api/messaging/send-call-permission-request', { client_id: clientId, to, body: 'May we call you about your order?' });
    expect(asked.status).toBe(200);
    const requestId = asked.headers.get('x-message-id')!;
    await sim.callPermissionReply(phone.phone_number_id, to.slice(1), 'accept');
    await waitFor(
      () => receiver.byType('chat').some((r) => r.raw.toString('utf8').includes('"call_permission_reply"') && r.raw.toString('utf8').includes(requestId)),
      { what: 'the call_permission_reply chat event' },
    );
    const granted = await api.get<any>(`/api/call/permissions?client_id=${clientId}&to=${encodeURIComponent(to)}`);
    expect(granted.json).toMatchObject({ status: 'temporary', expires_at: expect.any(String) });
    expect(granted.json.actions.map((a: any) => a.action_name)).toEqual(['send_call_permission_request', 'start_call']);

    const connected = await connect();
    expect(connected.status).toBe(200);
    const id = connected.json.call_id as string;
    expect(id).toMatch(/^wacid\./);
    expect(await recordWith(id, 'ringing')).toMatchObject({ direction: 'business_initiated', user: '16505550105' });
    const talking = startedTalking();
    await sim.callUser(id, 'answer');
    await recordWith(id, 'accepted');
    await sim.advanceClock(30_000);
    expect((await api.post('/api/call/terminate', { client_id: clientId, call_id: id })).status).toBe(200);
    const done = await recordWith(id, 'terminated', (c) => c.duration_seconds !== null);
    expect(statuses(done)).toEqual(['ringing', 'accepted', 'terminated']);
    expect(talking.seconds(30)).toContain(done.duration_seconds);
  });

  it("a client's calling settings are the provider's: read, changed (only what is given), refused when invalid", async () => {
    const path = `/api/clients/${clientId}/calling`;
    expect((await api.get<any>(path)).json).toEqual({
      enabled: true,
      call_icon_visibility: 'DEFAULT',
      call_hours: { enabled: false },
      callback_permission: false,
    });
    const hours = {
      enabled: true,
      timezone_id: 'America/Manaus',
      weekly_operating_hours: [{ day_of_week: 'MONDAY', open_time: '0900', close_time: '1700' }],
      holiday_schedule: [{ date: '2026-12-25', start_time: '0000', end_time: '2359' }],
    };
    const changed = await api.put<any>(path, { callback_permission: true, call_hours: hours });
    expect(changed.status).toBe(200);
    expect(changed.json).toEqual({ enabled: true, call_icon_visibility: 'DEFAULT', call_hours: hours, callback_permission: true });
    const sent = (await sim.calls(`${phone.phone_number_id}/settings`)).filter((c) => c.method === 'POST').at(-1)!;
    expect(sent.body).toEqual({ calling: { callback_permission_status: 'ENABLED', call_hours: { status: 'ENABLED', ...hours, enabled: undefined } } });

    const bad = await api.put<any>(path, {
      call_hours: { enabled: true, timezone_id: 'UTC', weekly_operating_hours: [{ day_of_week: 'FUNDAY', open_time: '2500' }] },
    });
    expect(bad.status).toBe(422);
    expect(bad.json.detail.map((d: any) => d.loc.join('.'))).toEqual(
      expect.arrayContaining(['body.call_hours.weekly_operating_hours.0.day_of_week', 'body.call_hours.weekly_operating_hours.0.open_time']),
    );
    // ranges the provider refuses (three on one day) come back as its error, classified
    const three = ['0100', '0300', '0500'].map((open) => ({ day_of_week: 'MONDAY', open_time: open, close_time: `0${Number(open[1]) + 1}00` }));
    const refused = await api.put<any>(path, { call_hours: { ...hours, weekly_operating_hours: three } });
    expect([refused.status, refused.json.provider_error?.code]).toEqual([422, 100]);

    // turned off, the users cannot call; turning it on needs the account subscribed to webhooks (138018)
    expect((await api.put<any>(path, { enabled: false })).json.enabled).toBe(false);
    expect((await sim.request('POST', '/_sim/inbound/call', { phone_number_id: phone.phone_number_id, from: '16505550106' })).status).toBe(409);
    const notSubscribed = await api.put<any>(path, { enabled: true });
    expect([notSubscribed.status, notSubscribed.json.code]).toEqual([409, 'calling_cannot_be_enabled']);
    await fetch(`${stack.sim!.url}/v23.0/${phone.waba_id}/subscribed_apps`, { method: 'POST', headers: { authorization: `Bearer ${phone.access_token}` } });
    expect((await api.put<any>(path, { enabled: true })).json.enabled).toBe(true);
  });

  it("another tenant's client and calls are 404 on every calling route", async () => {
    const { call_id } = await sim.inboundCall(phone.phone_number_id, '16505550107');
    await recordWith(call_id, 'ringing');
    const before = (await sim.calls('/calls')).length;
    const notFound = async (res: Promise<{ status: number; json: unknown }>, what: string) => expect([what, (await res).status]).toEqual([what, 404]);
    for (const client of [clientId, otherClientId]) {
      await notFound(other.post('/api/call/pre-accept', { client_id: client, call_id, sdp: SDP }), `pre-accept as ${client}`);
      await notFound(other.post('/api/call/accept', { client_id: client, call_id, sdp: SDP }), `accept as ${client}`);
      await notFound(other.post('/api/call/reject', { client_id: client, call_id }), `reject as ${client}`);
      await notFound(other.post('/api/call/terminate', { client_id: client, call_id }), `terminate as ${client}`);
      await notFound(other.get(`/api/calls/${encodeURIComponent(call_id)}?client_id=${client}`), `get call as ${client}`);
    }
    await notFound(other.post('/api/call/connect', { client_id: clientId, to: '+16505550107', sdp: SDP }), 'connect');
    await notFound(other.get(`/api/call/permissions?client_id=${clientId}&to=%2B16505550107`), 'permissions');
    await notFound(other.get(`/api/calls?client_id=${clientId}`), 'list');
    await notFound(other.get(`/api/clients/${clientId}/calling`), 'settings');
    await notFound(other.put(`/api/clients/${clientId}/calling`, { callback_permission: false }), 'settings change');
    // nothing reached the provider, and the call still rings for its own client
    expect((await sim.calls('/calls')).length).toBe(before);
    expect((await call(call_id)).status).toBe('ringing');
    expect((await other.get<any>(`/api/calls?client_id=${otherClientId}`)).json).toEqual({ data: [], next_cursor: null });
  });
});
