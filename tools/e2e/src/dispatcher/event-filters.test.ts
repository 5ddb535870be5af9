import { connectBus, STREAMS, type Bus } from '@gateway/bus';
import { createLogger } from '@gateway/logger';
import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import { startWebhookReceiver, waitFor, type WebhookReceiver } from '@gateway/testing';
import type { ConsumerMessages } from 'nats';
import { EVENTS_DURABLE } from '@gateway/app-dispatcher';

interface SimPhone {
  phone_number_id: string;
  waba_id: string;
  access_token: string;
}
type Delivery = { event_id: string; event_type: string; status: string };

describe('per-client event filters (webhook_events)', () => {
  let stack: Stack;
  let bus: Bus;
  let receiver: WebhookReceiver;
  let api: ApiClient;
  let phone: SimPhone;
  let clientId: string;
  let internal: ConsumerMessages;
  /** What an internal consumer of events.chat.> saw: the X-Client-Id of each event. */
  const internalChats: string[] = [];

  const sim = (path: string, body: unknown) =>
    fetch(`${stack.sim!.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(
      (r) => r.json() as Promise<{ status: number }>,
    );
  const deliveries = async (type: string) =>
    (await api.get<{ data: Delivery[] }>(`/api/clients/${clientId}/webhook/deliveries?event_type=${type}&limit=100`)).json.data;
  /** Every event the dispatcher was given so far has been handled (acked): nothing it holds is still to come. */
  const dispatcherIdle = async () => {
    const info = await bus.jsm.consumers.info(STREAMS.events.name, EVENTS_DURABLE);
    return info.num_pending === 0 && info.num_ack_pending === 0;
  };

  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'messaging', 'dispatcher', 'edge'] });
    bus = await connectBus({ url: stack.nats.url, name: 'filters-test', logger: createLogger({ name: 'filters-test', level: 'silent' }) });
    const consumer = await bus.js.consumers.get(STREAMS.events.name, { filterSubjects: 'events.chat.>' });
    internal = await consumer.consume();
    void (async () => {
      for await (const m of internal) internalChats.push(m.headers?.get('X-Client-Id') ?? '');
    })();
    receiver = await startWebhookReceiver();
    ({ api } = await stack.createTenant());
    phone = (await sim('/_sim/phone-numbers', {})) as unknown as SimPhone;
    const c = await api.post('/api/clients/', {
      display_name: 'Filtered',
      webhook_url: receiver.url,
      business_account_id: phone.waba_id,
      phone_number_id: phone.phone_number_id,
      access_token: phone.access_token,
    });
    clientId = (c.json as { id: string }).id;
  }, 120_000);
  afterAll(async () => {
    internal?.stop();
    await bus?.close();
    await receiver?.close();
    await stack?.stop();
  });

  it('a client subscribed to template_status only gets no chat event and has no record of one; an internal consumer still sees it', async () => {
    const patched = await api.patch<{ webhook_events: string[] }>(`/api/clients/${clientId}`, { webhook_events: ['template_status'] });
    expect(patched.status).toBe(200);
    expect(patched.json.webhook_events).toEqual(['template_status']);
    expect((await api.get<{ webhook_events: string[] }>(`/api/clients/${clientId}`)).json.webhook_events).toEqual(['template_status']);

    expect((await sim('/_sim/inbound/message', { phone_number_id: phone.phone_number_id, text: 'filtered out' })).status).toBe(200);
    await waitFor(() => internalChats.includes(clientId), { what: 'the chat event on the bus' });
    expect((await sim('/_sim/inbound/template-status', { waba_id: phone.waba_id, event: 'APPROVED' })).status).toBe(200);
    await waitFor(() => receiver.byType('template_status').length === 1, { what: 'the template_status event delivered' });
    await waitFor(dispatcherIdle, { what: 'the dispatcher handled every event' });

    expect(receiver.byType('chat')).toHaveLength(0);
    expect(await deliveries('chat')).toEqual([]);
    expect(await deliveries('template_status')).toEqual([expect.objectContaining({ status: 'succeeded' })]);
  });

  it('a test event is delivered whatever the filter (it is asked for explicitly)', async () => {
    const { event_id: eventId } = (await api.post(`/api/clients/${clientId}/webhook/test`)).json as { event_id: string };
    await waitFor(() => receiver.byEventId(eventId).length === 1, { what: 'test event delivered' });
  });

  it('an empty list (or null) means every type again', async () => {
    expect((await api.patch<{ webhook_events: string[] }>(`/api/clients/${clientId}`, { webhook_events: [] })).json.webhook_events).toEqual([]);
    await sim('/_sim/inbound/message', { phone_number_id: phone.phone_number_id, text: 'delivered' });
    await waitFor(() => receiver.byType('chat').length === 1, { what: 'chat event delivered' });
    await api.patch(`/api/clients/${clientId}`, { webhook_events: ['flow_completion'] });
    expect((await api.patch<{ webhook_events: string[] }>(`/api/clients/${clientId}`, { webhook_events: null })).json.webhook_events).toEqual([]);
  });

  it("unknown or repeated event types are a 422 naming the item; another tenant's client is a 404", async () => {
    const bad = await api.patch<{ detail: Array<{ loc: string[]; type: string }> }>(`/api/clients/${clientId}`, {
      webhook_events: ['chat', 'messages', 'chat'],
    });
    expect(bad.status).toBe(422);
    expect(bad.json.detail.map((d) => [d.loc.join('.'), d.type]).sort()).toEqual([
      ['body.webhook_events.1', 'enum'],
      ['body.webhook_events.2', 'duplicate_item'],
    ]);
    expect((await api.patch(`/api/clients/${clientId}`, { webhook_events: 'chat' })).status).toBe(422);
    const other = await stack.createTenant();
    expect((await other.api.patch(`/api/clients/${clientId}`, { webhook_events: ['chat'] })).status).toBe(404);
  });
});
