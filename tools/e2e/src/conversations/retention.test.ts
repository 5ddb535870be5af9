import type { RunningDispatcher } from '@gateway/app-dispatcher';
import type { RunningMessaging } from '@gateway/app-messaging';
import { startStack, type Stack } from '@gateway/test-stack';
import { SimControl, startWebhookReceiver, waitFor, type WebhookReceiver } from '@gateway/testing';
import { tenantWithClient, type TenantClient } from './world';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON */

const DAY = 24 * 3600_000;

/**
 * Issue 27: MESSAGE_RETENTION_DAYS and DELIVERY_RETENTION_DAYS prune older rows and keep the rest. The services'
 * clocks are moved forward (RunningMessaging.clock, RunningDispatcher.clock): messages are logged at the
 * messaging service's time, so rows of two ages exist without waiting. On PGlite, and on PostgreSQL when
 * TEST_DATABASE_URL is set.
 */
describe('retention', () => {
  let stack: Stack;
  let sim: SimControl;
  let a: TenantClient;
  let receiver: WebhookReceiver;
  let messaging: RunningMessaging;
  let dispatcher: RunningDispatcher;
  const regular = '16505550401';
  const gone = '16505550402';

  const inbound = async (from: string, body: string) => {
    const { wamid } = await sim.inboundMessage(a.phone.phone_number_id, from, 'text', { body });
    await waitFor(async () => (await a.api.get(`/api/messages/${wamid}?client_id=${a.clientId}`)).status === 200, { what: `${body} logged` });
    return wamid;
  };
  const send = async (text: string) => {
    const res = await a.api.post('/api/messaging/send-text', { client_id: a.clientId, to: `+${regular}`, text });
    expect(res.status).toBe(200);
    return res.headers.get('x-message-id')!;
  };
  const exists = async (id: string) => (await a.api.get(`/api/messages/${id}?client_id=${a.clientId}`)).status === 200;
  const deliveries = async () => (await a.api.get<any>(`/api/clients/${a.clientId}/webhook/deliveries?limit=100`)).json.data.length;

  beforeAll(async () => {
    stack = await startStack({ env: { MESSAGE_RETENTION_DAYS: '90', DELIVERY_RETENTION_DAYS: '30' } });
    sim = new SimControl(stack.sim!.url);
    await sim.autoStatuses(false);
    receiver = await startWebhookReceiver();
    a = await tenantWithClient(stack, 'Keep', { webhook_url: receiver.url });
    messaging = stack.running.get('messaging') as unknown as RunningMessaging;
    dispatcher = stack.running.get('dispatcher') as unknown as RunningDispatcher;
  }, 300_000);
  afterAll(async () => {
    await receiver?.close();
    await stack?.stop();
  });

  it('messages older than MESSAGE_RETENTION_DAYS are pruned, newer ones kept; a contact without activity since goes too', async () => {
    const oldIn = await inbound(regular, 'old question');
    const oldOut = await send('old answer');
    const oldOther = await inbound(gone, 'once, long ago');
    messaging.clock.advance(60 * DAY);
    const newIn = await inbound(regular, 'new question');
    const newOut = await send('new answer');
    // nothing is old enough yet: 60 days
    expect(await messaging.pruneNow()).toEqual({ messages: 0, contacts: 0 });
    messaging.clock.advance(31 * DAY);
    // the first three are 91 days old, the others 31
    expect(await messaging.pruneNow()).toEqual({ messages: 3, contacts: 1 });
    expect(await Promise.all([oldIn, oldOut, oldOther].map(exists))).toEqual([false, false, false]);
    expect(await Promise.all([newIn, newOut].map(exists))).toEqual([true, true]);
    const log = (await a.api.get<any>(`/api/messages?client_id=${a.clientId}`)).json.data;
    expect(log.map((m: any) => m.id)).toEqual([newOut, newIn]);
    const contacts = (await a.api.get<any>(`/api/contacts?client_id=${a.clientId}`)).json.data;
    expect(contacts.map((c: any) => c.wa_id)).toEqual([regular]);
    const convs = (await a.api.get<any>(`/api/conversations?client_id=${a.clientId}`)).json.data;
    expect(convs.map((c: any) => [c.contact.wa_id, c.last_message.id])).toEqual([[regular, newOut]]);
    expect(await messaging.pruneNow()).toEqual({ messages: 0, contacts: 0 });
  });

  it('delivery records older than DELIVERY_RETENTION_DAYS are pruned, younger ones kept', async () => {
    await waitFor(async () => (await deliveries()) >= 3, { what: 'the chat events delivered' });
    const before = await deliveries();
    dispatcher.clock.advance(29 * DAY);
    expect(await dispatcher.pruneNow()).toBe(0);
    expect(await deliveries()).toBe(before);
    dispatcher.clock.advance(2 * DAY);
    expect(await dispatcher.pruneNow()).toBe(before);
    expect(await deliveries()).toBe(0);
  });
});
