import { createHash } from 'node:crypto';
import { AckPolicy, connect, DeliverPolicy, type JsMsg, type NatsConnection } from 'nats';
import { STREAMS } from '@gateway/bus';
import { EVENT_HEADERS, EVENT_TYPES } from '@gateway/events';
import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import { SimControl, startWebhookReceiver, waitFor, type WebhookReceiver } from '@gateway/testing';
import { BusContract, type MessageCheck } from './contract';

/* eslint-disable @typescript-eslint/no-explicit-any -- the simulator answers arbitrary provider JSON */

interface Seen {
  stream: string;
  subject: string;
  headers: Record<string, string>;
  data: Uint8Array;
  text: string;
  check: MessageCheck;
}

const DURABLE = 'asyncapi-contract-check';

describe('real bus messages match asyncapi.yaml (a consumer of our own on every stream, a whole stack)', () => {
  let stack: Stack;
  let nc: NatsConnection;
  let contract: BusContract;
  let receiver: WebhookReceiver;
  let api: ApiClient;
  let sim: SimControl;
  let clientId: string;
  let testDeliveryId: string;
  let tenantId: string;
  let phone: { phone_number_id: string; waba_id: string; access_token: string };
  const seen: Seen[] = [];
  const stops: Array<() => void> = [];
  const to = '+16505551234';

  const of = (stream: string) => seen.filter((s) => s.stream === stream);

  beforeAll(async () => {
    contract = await BusContract.load();
    stack = await startStack({ services: ['tenant-directory', 'messaging', 'dispatcher', 'edge'] });
    sim = new SimControl(stack.sim!.url);
    nc = await connect({ servers: stack.nats.url, name: 'asyncapi-contract-check' });
    const jsm = await nc.jetstreamManager();
    const js = nc.jetstream();
    // every stream of libs/bus (the services made them at start), read from the beginning with our own durable
    for (const stream of Object.values(STREAMS)) {
      await jsm.consumers.add(stream.name, { durable_name: DURABLE, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All });
      const messages = await (await js.consumers.get(stream.name, DURABLE)).consume();
      stops.push(() => messages.stop());
      void (async () => {
        for await (const m of messages) {
          seen.push(record(stream.name, m));
          m.ack();
        }
      })();
    }
    receiver = await startWebhookReceiver();
    const t = await stack.createTenant({ webhook_url: receiver.url });
    api = t.api;
    tenantId = t.tenant.id;
    phone = await sim.phoneNumber();
  }, 90_000);

  afterAll(async () => {
    for (const stop of stops) stop();
    await nc?.close();
    await receiver?.close();
    await stack?.stop();
  });

  function record(stream: string, m: JsMsg): Seen {
    const headers: Record<string, string> = {};
    for (const k of m.headers?.keys() ?? []) headers[k] = m.headers!.get(k);
    const dataContentType = stream === STREAMS.deadLetter.name ? 'application/octet-stream' : 'application/json';
    return { stream, subject: m.subject, headers, data: m.data, text: m.string(), check: contract.check(m.subject, headers, m.data, dataContentType) };
  }

  it('signup_completed, test, chat (messages and statuses), flow_completion, template_status and campaign_status events on EVENTS match the document', async () => {
    // signup_completed: a client registered with its provider credentials is active at once
    const c = await api.post('/api/clients/', {
      display_name: 'Shop',
      external_id: 'shop-1',
      business_account_id: phone.waba_id,
      phone_number_id: phone.phone_number_id,
      access_token: phone.access_token,
    });
    expect(c.status).toBe(200);
    clientId = (c.json as { id: string }).id;
    // test
    const tested = await api.post(`/api/clients/${clientId}/webhook/test`);
    expect(tested.status).toBe(202);
    testDeliveryId = (tested.json as { delivery_id: string }).delivery_id;
    // chat: an inbound message (it also opens the 24-hour window), then the statuses of a message we send
    await sim.send('POST', '/_sim/inbound/message', { phone_number_id: phone.phone_number_id, from: to, type: 'text', text: { body: 'Is it in stock?' } });
    const sent = await api.post('/api/messaging/send-text', { client_id: clientId, to, text: 'Yes' });
    expect(sent.status).toBe(200);
    const wamid = sent.headers.get('x-message-id')!;
    await sim.send('POST', `/_sim/messages/${encodeURIComponent(wamid)}/statuses`, { statuses: ['sent', 'delivered', 'read'] });
    // flow_completion (with its chat)
    const response = { flow_token: 'booking-42', date: '2026-12-01', guests: 2 };
    await sim.send('POST', '/_sim/inbound/message', {
      phone_number_id: phone.phone_number_id,
      from: to,
      type: 'interactive',
      interactive: { type: 'nfm_reply', nfm_reply: { name: 'flow', body: 'Sent', response_json: JSON.stringify(response) } },
    });
    // template_status (with its chat)
    await sim.send('POST', '/_sim/inbound/template-status', {
      waba_id: phone.waba_id,
      event: 'REJECTED',
      reason: 'INVALID_FORMAT',
      template_name: 'order_confirmation',
    });

    // campaign_status: a one-recipient campaign of an approved template, started (then completed)
    await sim.send('POST', '/_sim/templates', {
      waba_id: phone.waba_id,
      name: 'bus_notice',
      language: 'en_US',
      category: 'UTILITY',
      components: [{ type: 'BODY', text: 'Order {{1}} ships today', example: { body_text: [['A-1']] } }],
    });
    expect((await api.post('/api/templates/sync', { client_id: clientId })).status).toBe(200);
    const campaign = await api.post('/api/campaigns', {
      client_id: clientId,
      name: 'Bus check',
      template_name: 'bus_notice',
      lang: 'en_US',
      recipients: [{ to, parameters: ['A-1'] }],
    });
    expect(campaign.status).toBe(201);
    expect((await api.post(`/api/campaigns/${(campaign.json as { id: string }).id}/start`, {})).status).toBe(200);

    const events = () => of(STREAMS.events.name).filter((s) => s.headers[EVENT_HEADERS.client] === clientId);
    const count = (type: string) => events().filter((s) => s.headers[EVENT_HEADERS.type] === type).length;
    await waitFor(
      () =>
        count('signup_completed') === 1 &&
        count('test') === 1 &&
        count('chat') >= 6 &&
        count('flow_completion') === 1 &&
        count('template_status') === 1 &&
        count('campaign_status') >= 1,
      {
        timeoutMs: 30_000,
        what: 'every event type on EVENTS',
      },
    );

    for (const e of events()) {
      const type = e.headers[EVENT_HEADERS.type];
      expect({ subject: e.subject, errors: e.check.errors }).toEqual({ subject: e.subject, errors: [] });
      expect(e.check.message).toBe(type.replace(/_(.)/g, (_m, ch: string) => ch.toUpperCase()));
      // the subject's parameters, the headers and the body agree
      expect(e.check.parameters).toEqual({ tenantId, clientId });
      const body = JSON.parse(e.text) as { type: string; client_id: string };
      expect([body.type, body.client_id]).toEqual([type, clientId]);
      expect(e.headers['Nats-Msg-Id']).toBe(e.headers[EVENT_HEADERS.id]);
    }
    expect(new Set(events().map((e) => e.headers[EVENT_HEADERS.type]))).toEqual(new Set(EVENT_TYPES));
    const statuses = events().filter((e) => e.text.includes('"statuses"'));
    expect(statuses.map((e) => (JSON.parse(e.text) as any).payload.entry[0].changes[0].value.statuses[0].status).sort()).toEqual(['delivered', 'read', 'sent']);
    // what the webhook receiver got for the test event are the same bytes as on the bus
    const test = events().find((e) => e.headers[EVENT_HEADERS.type] === 'test')!;
    await waitFor(() => receiver.byEventId(test.headers[EVENT_HEADERS.id]).length === 1, { what: 'test event delivered' });
    expect(receiver.byEventId(test.headers[EVENT_HEADERS.id])[0].raw.toString('utf8')).toBe(test.text);
  });

  it('the raw provider bodies on PROVIDER_INBOUND match the document, with their digest headers', async () => {
    const inbound = of(STREAMS.providerInbound.name);
    expect(inbound.length).toBeGreaterThanOrEqual(6);
    for (const m of inbound) {
      expect({ subject: m.subject, errors: m.check.errors, message: m.check.message }).toEqual({ subject: m.subject, errors: [], message: 'providerWebhook' });
      const digest = createHash('sha256').update(m.data).digest('hex');
      expect([m.headers['X-Body-Sha256'], m.headers['Nats-Msg-Id']]).toEqual([digest, digest]);
    }
  });

  it('a manual retry on WEBHOOK_RETRIES, a dead letter on DEAD_LETTER and its replay, and the directory change notices match the document', async () => {
    // a retry of the test event's delivery
    expect((await api.post(`/api/clients/${clientId}/webhook/deliveries/${testDeliveryId}/retry`)).status).toBe(202);
    // a provider body messaging cannot use (nested past its limit) is dead-lettered at once
    const deep = `{"object":"whatsapp_business_account","entry":[${'['.repeat(70)}${']'.repeat(70)}]}`;
    expect((await sim.send('POST', '/_sim/inbound/raw', { body: deep })).status).toBe(200);
    await waitFor(() => of(STREAMS.webhookRetries.name).length === 1 && of(STREAMS.deadLetter.name).length === 1, {
      timeoutMs: 30_000,
      what: 'a retry and a dead letter',
    });

    const [retry] = of(STREAMS.webhookRetries.name);
    expect(retry.check).toMatchObject({ channel: 'webhookRetries', message: 'eventRedelivery', errors: [], parameters: { tenantId, clientId } });
    const [dead] = of(STREAMS.deadLetter.name);
    expect(dead.check).toMatchObject({ channel: 'deadLetter', message: 'deadLetter', errors: [], parameters: { sourceStream: 'PROVIDER_INBOUND' } });
    expect(dead.text).toBe(deep);
    expect(dead.headers['X-Body-Sha256']).toBe(createHash('sha256').update(deep).digest('hex'));

    // an operator replays it: back on PROVIDER_INBOUND under a msg id of its own, its headers kept (and dead-lettered again)
    const replay = await stack.admin().post('/admin/dead-letters/replay', { stream: STREAMS.providerInbound.name });
    expect(replay.json).toEqual({ replayed: 1, failed: 0 });
    const replayed = await waitFor(() => of(STREAMS.providerInbound.name).find((m) => m.headers['Nats-Msg-Id'].startsWith('replay:')), {
      timeoutMs: 30_000,
      what: 'the replayed body',
    });
    expect(replayed.check).toMatchObject({ channel: 'providerInbound', message: 'providerWebhook', errors: [] });
    expect([replayed.text, replayed.headers['X-Body-Sha256']]).toEqual([deep, dead.headers['X-Body-Sha256']]);
    await waitFor(() => of(STREAMS.deadLetter.name).length === 2, { timeoutMs: 30_000, what: 'dead-lettered again' });
    expect(of(STREAMS.deadLetter.name)[1].check.errors).toEqual([]);

    const changes = of(STREAMS.directoryChanges.name);
    expect(changes.length).toBeGreaterThanOrEqual(1);
    for (const m of changes) expect({ subject: m.subject, errors: m.check.errors }).toEqual({ subject: m.subject, errors: [] });
    expect(changes.some((m) => m.check.parameters.kind === 'client' && m.check.parameters.tenantId === tenantId)).toBe(true);
  });

  it('no message on any stream was outside the document', () => {
    expect(seen.filter((s) => s.check.errors.length > 0).map((s) => ({ stream: s.stream, subject: s.subject, errors: s.check.errors }))).toEqual([]);
    expect(new Set(seen.map((s) => s.stream))).toEqual(new Set(Object.values(STREAMS).map((s) => s.name)));
  });
});
