import { readConfig, startEdge, type RunningEdge } from '@gateway/app-edge';
import { startStack, type Stack } from '@gateway/test-stack';
import { freePort, SimControl, waitFor } from '@gateway/testing';
import { openStream, tenantWithClient, type TenantClient } from './world';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON */

/**
 * Issue 27: GET /api/stream pushes a client's new messages as Server-Sent Events, fed from the bus, so a second
 * edge replica streams them too; a reconnect with Last-Event-ID resumes; streams are bounded per tenant.
 */
describe('live stream of messages across edge replicas', () => {
  let stack: Stack;
  let second: RunningEdge;
  let sim: SimControl;
  let a: TenantClient;
  let b: TenantClient;
  const user = '16505550301';
  const streams: Array<{ close(): void }> = [];
  const open = async (baseUrl: string, t: TenantClient, lastEventId?: string) => {
    const s = await openStream(baseUrl, t.apiKey, t.clientId, lastEventId);
    streams.push(s);
    return s;
  };

  beforeAll(async () => {
    stack = await startStack({ env: { STREAMS_PER_TENANT: '2' } });
    const port = await freePort();
    second = await startEdge(readConfig({ ...stack.env, PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, METRICS_PORT: '0' }), stack.logger);
    sim = new SimControl(stack.sim!.url);
    a = await tenantWithClient(stack, 'Live');
    b = await tenantWithClient(stack, 'Elsewhere');
  }, 300_000);
  afterAll(async () => {
    for (const s of streams) s.close();
    await second?.stop();
    await stack?.stop();
  });

  it('an inbound message reaches a stream on each replica within 2 seconds; a send and its status follow', async () => {
    const one = await open(stack.baseUrl, a);
    const two = await open(second.url, a);
    expect([one.status, two.status, one.headers.get('content-type')]).toEqual([200, 200, expect.stringMatching(/^text\/event-stream/)]);
    const other = await open(second.url, b);

    const before = Date.now();
    const { wamid } = await sim.inboundMessage(a.phone.phone_number_id, user, 'text', { body: 'live?' });
    const got = await Promise.all(
      [one, two].map((s) => waitFor(() => s.events.find((e) => e.event === 'message' && e.data.message.id === wamid), { what: 'the message streamed' })),
    );
    for (const e of got) {
      expect(e.at - before).toBeLessThan(2000);
      expect(e.data.message).toMatchObject({ id: wamid, direction: 'in', kind: 'text', text: 'live?', from: user, contact_id: expect.any(String) });
      expect(e.id).toMatch(/^\d+$/);
    }

    const sent = await a.api.post('/api/messaging/send-text', { client_id: a.clientId, to: `+${user}`, text: 'yes' });
    const sentId = sent.headers.get('x-message-id')!;
    await waitFor(() => two.events.find((e) => e.event === 'message' && e.data.message.id === sentId), { what: 'the send streamed' });
    await sim.sendStatuses(sentId, ['sent']);
    const status = await waitFor(() => two.events.find((e) => e.event === 'status' && e.data.message.id === sentId && e.data.message.status === 'sent'), {
      what: 'the status streamed',
    });
    expect(status.data.message.direction).toBe('out');
    // another tenant's stream saw none of it
    expect(other.events).toEqual([]);
    one.close();
    two.close();
    other.close();
  });

  it('a reconnect with Last-Event-ID receives what it missed, and nothing before', async () => {
    const first = await open(second.url, a);
    const { wamid: seen } = await sim.inboundMessage(a.phone.phone_number_id, user, 'text', { body: 'seen' });
    const last = await waitFor(() => first.events.find((e) => e.data.message.id === seen), { what: 'the first message streamed' });
    first.close();
    const { wamid: missed } = await sim.inboundMessage(a.phone.phone_number_id, user, 'text', { body: 'missed' });
    await waitFor(async () => (await a.api.get<any>(`/api/messages/${missed}?client_id=${a.clientId}`)).status === 200, { what: 'the missed message stored' });
    const again = await waitFor(
      async () => {
        // the edge may still be releasing the closed stream's place
        const s = await open(stack.baseUrl, a, last.id);
        return s.status === 200 ? s : (s.close(), undefined);
      },
      { what: 'a stream reopened' },
    );
    const resumed = await waitFor(() => again.events.find((e) => e.data.message.id === missed), { what: 'the missed message streamed' });
    expect(Number(resumed.id)).toBeGreaterThan(Number(last.id));
    expect(again.events.some((e) => e.data.message.id === seen)).toBe(false);
    again.close();
  });

  it("streams are bounded per tenant (429 beyond), another tenant's client is a 404, bad input a 422", async () => {
    const held = await waitFor(
      async () => {
        const s = await open(stack.baseUrl, a);
        return s.status === 200 ? s : (s.close(), undefined);
      },
      { what: 'a stream' },
    );
    const held2 = await waitFor(
      async () => {
        const s = await open(stack.baseUrl, a);
        return s.status === 200 ? s : (s.close(), undefined);
      },
      { what: 'a second stream' },
    );
    const third = await open(stack.baseUrl, a);
    expect([third.status, JSON.parse(third.text).code, third.headers.get('retry-after')]).toEqual([429, 'too_many_streams', '5']);
    held.close();
    held2.close();
    // through the checked client: answers in the documented error form
    expect((await b.api.get(`/api/stream?client_id=${a.clientId}`)).status).toBe(404);
    expect((await a.api.get(`/api/stream?client_id=nope`)).status).toBe(422);
    expect((await a.api.get(`/api/stream?client_id=${a.clientId}`, { 'last-event-id': 'abc' })).status).toBe(422);
  });
});
