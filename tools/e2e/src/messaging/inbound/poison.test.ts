import { connectBus, listDeadLetters, STREAMS, type Bus } from '@gateway/bus';
import { createLogger } from '@gateway/logger';
import { ApiClient, startStack, type Stack } from '@gateway/test-stack';
import { startWebhookReceiver, waitFor, type WebhookReceiver } from '@gateway/testing';
import { INBOUND_DURABLE } from '@gateway/app-messaging';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests build arbitrary provider JSON */

interface SimPhone {
  phone_number_id: string;
  waba_id: string;
  access_token: string;
}

describe('poison provider webhooks never stop inbound routing', () => {
  let stack: Stack;
  let receiver: WebhookReceiver;
  let api: ApiClient;
  let phone: SimPhone;
  let bus: Bus;

  const sim = (path: string, body?: unknown) =>
    fetch(`${stack.sim!.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(
      (r) => r.json() as Promise<any>,
    );
  const envelope = (changes: unknown, entryId: unknown = phone.waba_id) => ({ object: 'whatsapp_business_account', entry: [{ id: entryId, changes }] });
  const value = (extra: Record<string, unknown>, pn: unknown = phone.phone_number_id) => ({
    messaging_product: 'whatsapp',
    metadata: { display_phone_number: '1555', phone_number_id: pn },
    ...extra,
  });
  const text = (wamid: string) =>
    envelope([
      { field: 'messages', value: value({ messages: [{ from: '16505551234', id: wamid, timestamp: '1750857384', type: 'text', text: { body: 'hi' } }] }) },
    ]);

  /** Signed, shaped wrongly in the ways a careless or hostile sender would; `i` keeps every body distinct. */
  const malformed = (i: number): unknown => {
    const shapes: Array<() => unknown> = [
      () => envelope(i),
      () => envelope([{ field: 'messages', value: value({ statuses: [{ id: `wamid.p${i}`, status: 'delivered', timestamp: '' }] }) }]),
      () => envelope([{ field: 'messages', value: value({ messages: [{ id: `wamid.p${i}` }] }, `${phone.phone_number_id}\u0000${i}`) }]),
      () => ({ object: 'whatsapp_business_account', entry: [null, i] }),
      () => envelope([null, { field: 'messages', value: null, n: i }]),
      () => envelope([{ field: 'messages', value: { metadata: null, messages: null, statuses: [null, i] } }]),
      () =>
        envelope([
          { field: 'messages', value: value({ statuses: [{ id: `wamid.\u0000${i}`, status: 'read', timestamp: '1e300', errors: [{ title: '\u0000' }] }] }) },
        ]),
      () =>
        envelope([
          {
            field: 'messages',
            value: value({ statuses: [{ id: `wamid.q${i}`, status: 'failed', timestamp: '99999999999999999', errors: [{ title: '\ud800' }] }] }),
          },
        ]),
      () => envelope([{ field: 7, value: value({ messages: 'x', n: i }) }], { id: 1 }),
      () => envelope([{ field: 'message_template_status_update', value: { event: { x: 1 }, message_template_id: [i], reason: null } }]),
      // nested far deeper than any provider body: it cannot be split or serialised again
      () => envelope([{ field: 'messages', value: value({ n: i, deep: JSON.parse('['.repeat(20_000) + ']'.repeat(20_000)) }) }]),
    ];
    return shapes[i % shapes.length]();
  };
  const isDeep = (i: number) => i % 11 === 10;

  beforeAll(async () => {
    stack = await startStack({ env: { WEBHOOK_RETRY_DELAYS_MS: '200,400' } });
    receiver = await startWebhookReceiver();
    ({ api } = await stack.createTenant({ webhook_url: receiver.url }));
    phone = await sim('/_sim/phone-numbers', {});
    const c = await api.post('/api/clients/', {
      display_name: 'Shop',
      business_account_id: phone.waba_id,
      phone_number_id: phone.phone_number_id,
      access_token: phone.access_token,
    });
    expect(c.status).toBe(200);
    bus = await connectBus({ url: stack.nats.url, name: 'poison-test', logger: createLogger({ name: 'poison-test', level: 'silent' }) });
  }, 60_000);
  afterAll(async () => {
    await bus?.close();
    await receiver?.close();
    await stack?.stop();
  });

  it('200 malformed bodies mixed with 200 valid ones: every valid one is delivered, the rest routed as far as possible or dead-lettered, and nothing stays pending', async () => {
    const wamids: string[] = [];
    const bodies: string[] = [];
    for (let i = 0; i < 200; i++) {
      // the deep ones go as raw text: JSON.stringify of the simulator would choke on them too
      bodies.push(
        isDeep(i)
          ? JSON.stringify(envelope([{ field: 'messages', value: value({ n: i }) }])).replace(
              `"n":${i}`,
              `"n":${i},"deep":${'['.repeat(20_000)}${']'.repeat(20_000)}`,
            )
          : JSON.stringify(malformed(i)),
      );
      const wamid = `wamid.valid-${i}`;
      wamids.push(wamid);
      bodies.push(JSON.stringify(text(wamid)));
    }
    for (let i = 0; i < bodies.length; i += 20) {
      const results = await Promise.all(bodies.slice(i, i + 20).map((body) => sim('/_sim/inbound/raw', { body })));
      for (const r of results) expect(r.status).toBe(200);
    }

    const delivered = () =>
      new Set(
        receiver
          .byType('chat')
          .map((r) => r.raw.toString('utf8').match(/wamid\.valid-\d+/)?.[0])
          .filter(Boolean),
      );
    await waitFor(() => delivered().size === 200, { timeoutMs: 90_000, what: 'every valid body delivered as chat' });
    await waitFor(
      async () => {
        const info = await bus.jsm.consumers.info(STREAMS.providerInbound.name, INBOUND_DURABLE);
        return info.num_pending === 0 && info.num_ack_pending === 0;
      },
      { timeoutMs: 30_000, what: 'inbound consumer drained' },
    );

    // the bodies that cannot be used at all are set aside with a reason, once each; nothing else is
    const dead = await listDeadLetters(bus, { stream: STREAMS.providerInbound.name, limit: 1000 });
    const deepCount = Array.from({ length: 200 }, (_, i) => i).filter(isDeep).length;
    expect(dead).toHaveLength(deepCount);
    for (const d of dead) expect(d.error).toMatch(/nested/);

    // the routable parts of malformed bodies were routed: the status with an empty timestamp was kept for its message
    const metrics = await (await fetch(`http://127.0.0.1:${stack.running.get('messaging')!.metricsPort}/metrics`)).text();
    expect(metrics).toMatch(/inbound_updates_total\{outcome="malformed",service="messaging"\} [1-9]/);
    expect(metrics).toMatch(/jetstream_dead_letters_total\{stream="PROVIDER_INBOUND",consumer="messaging-inbound-router",service="messaging"\} (\d+)/);
    expect(Number(/jetstream_dead_letters_total\{stream="PROVIDER_INBOUND"[^}]*\} (\d+)/.exec(metrics)![1])).toBe(deepCount);

    // an operator sees them through the admin API and replays one: it is routed again (and, still unusable, set aside again)
    const admin = new ApiClient(stack.api().baseUrl, stack.adminToken);
    const listed = await admin.get<{
      data: Array<{ seq: number; source: { stream: string; consumer: string }; error: string; size: number; data_preview: string }>;
    }>('/admin/dead-letters?stream=PROVIDER_INBOUND');
    expect(listed.status).toBe(200);
    expect(listed.json.data).toHaveLength(deepCount);
    expect(listed.json.data[0]).toMatchObject({ source: { stream: 'PROVIDER_INBOUND', consumer: INBOUND_DURABLE }, error: expect.stringMatching(/nested/) });
    expect(listed.json.data[0].data_preview.length).toBeLessThanOrEqual(4097);
    const replay = await admin.post('/admin/dead-letters/replay', { seqs: [listed.json.data[0].seq] });
    expect(replay.json).toEqual({ replayed: 1, failed: 0 });
    await waitFor(
      async () => {
        const again = await listDeadLetters(bus, { stream: STREAMS.providerInbound.name, limit: 1000 });
        return again.length === deepCount && !again.some((d) => d.seq === listed.json.data[0].seq);
      },
      { timeoutMs: 15_000, what: 'replayed body dead-lettered again' },
    );
  }, 180_000);
});
