import { startStack, type ApiClient } from '@gateway/test-stack';
import { SimControl, startOtlpReceiver, startWebhookReceiver, waitFor, type OtlpReceiver, type ReceivedSpan, type WebhookReceiver } from '@gateway/testing';
import {
  CLIENT,
  CONSUMER,
  expectOneTree,
  expectPath,
  one,
  PRODUCER,
  SERVER,
  startTracedStack,
  traceparentOf,
  wholeTrace,
  type TracedStack,
} from './testing/traces';

/*
 * Traces across the real services: the edge, tenant directory, messaging and dispatcher run as OS processes (their
 * bundled main.ts, as deployed), each with its own OpenTelemetry SDK exporting OTLP/HTTP JSON to a receiver in this
 * test. One request or one provider webhook must make one trace, a single tree, from the edge to the provider or to
 * the tenant's receiver, whose delivery request carries that trace in `traceparent`.
 */

const SERVICES = ['tenant-directory', 'messaging', 'dispatcher', 'edge'];
const to = '+16505551234';

describe('one trace from the tenant or the provider to the receiver (services as OS processes, OTLP/HTTP export)', () => {
  let traced: TracedStack;
  let otlp: OtlpReceiver;
  let receiver: WebhookReceiver;
  let api: ApiClient;
  let sim: SimControl;
  let phone: { phone_number_id: string; waba_id: string; access_token: string };
  let clientId: string;
  const logLines = (service: string) => traced.logLines(service);

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    traced = await startTracedStack(SERVICES, { WEBHOOK_RETRY_DELAYS_MS: '300,600' });
    ({ otlp } = traced);
    const { stack } = traced;
    sim = new SimControl(stack.sim!.url);
    ({ api } = await stack.createTenant({ name: 'Traced' }));
    phone = await sim.phoneNumber();
    const client = await api.post('/api/clients/', {
      display_name: 'Shop',
      business_account_id: phone.waba_id,
      phone_number_id: phone.phone_number_id,
      access_token: phone.access_token,
      webhook_url: receiver.url,
    });
    expect(client.status).toBe(200);
    clientId = (client.json as { id: string }).id;
    // registering sends signup_completed; it is out of the way before the cases script the receiver
    await waitFor(() => receiver.byType('signup_completed').length > 0, { timeoutMs: 20_000, what: 'signup_completed delivered' });
  }, 120_000);
  afterAll(async () => {
    await traced?.stop();
    await receiver?.close();
  });

  it('a send: tenant request → edge → messaging (gRPC) → the provider call, one trace, its id in the log lines', async () => {
    // the recipient wrote in first (the simulator's 24-hour window); that webhook makes a trace of its own
    await sim.send('POST', '/_sim/inbound/message', { phone_number_id: phone.phone_number_id, from: to });
    await waitFor(() => receiver.byType('chat').length > 0, { timeoutMs: 20_000, what: 'the inbound chat delivered' });

    const res = await api.post('/api/messaging/send-text', { client_id: clientId, to, text: 'traced hello' });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id');
    const access = await waitFor(() => logLines('edge').find((l) => l.msg === 'request' && l.request_id === requestId), {
      what: 'the access log line of the send',
    });
    expect(access).toMatchObject({
      path: '/api/messaging/send-text',
      trace_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      span_id: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    const traceId = String(access.trace_id);

    const isProviderCall = (s: ReceivedSpan) =>
      s.service === 'messaging' && s.kind === CLIENT && String(s.attributes['url.path']).endsWith(`/${phone.phone_number_id}/messages`);
    const spans = await wholeTrace(otlp, traceId, [isProviderCall, (s) => s.service === 'messaging' && s.kind === SERVER]);
    const root = expectOneTree(spans);
    expect(root).toMatchObject({ service: 'edge', kind: SERVER, name: 'POST /api/messaging/send-text' });
    expect(root.attributes).toMatchObject({ 'http.route': '/api/messaging/send-text', 'http.response.status_code': 200 });
    const rpc = 'grpc.messaging.v1.MessagingService/Send';
    const edgeCall = one(spans, 'edge gRPC call', (s) => s.service === 'edge' && s.kind === CLIENT && s.name === rpc);
    const messaging = one(spans, 'messaging gRPC server', (s) => s.service === 'messaging' && s.kind === SERVER && s.name === rpc);
    const provider = one(spans, 'provider call', isProviderCall);
    expect(messaging.parentSpanId).toBe(edgeCall.spanId);
    expect(provider.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.response.status_code': 200 });
    expectPath(spans, [root, edgeCall, messaging, provider]);
    // the access line was written in the request's span
    expect(access.span_id).toBe(root.spanId);
  }, 60_000);

  it('a provider webhook: edge → JetStream → messaging router → event → dispatcher → the delivery POST, whose traceparent names the trace; a redelivery stays in it', async () => {
    const before = receiver.byType('chat').length;
    receiver.replies.push(500); // the first attempt fails: the redelivered message continues the same trace
    await sim.send('POST', '/_sim/inbound/message', { phone_number_id: phone.phone_number_id, from: to, text: 'traced inbound' });
    const deliveries = await waitFor(() => (receiver.byType('chat').length >= before + 2 ? receiver.byType('chat').slice(before) : undefined), {
      timeoutMs: 30_000,
      what: 'the chat event delivered twice',
    });
    const [first, second] = deliveries.map(traceparentOf);
    expect(second.traceId).toBe(first.traceId);
    expect(second.spanId).not.toBe(first.spanId);
    const traceId = first.traceId;

    const isDelivery = (spanId: string) => (s: ReceivedSpan) => s.spanId === spanId;
    const spans = await wholeTrace(otlp, traceId, [isDelivery(first.spanId), isDelivery(second.spanId)]);
    const root = expectOneTree(spans);
    expect(root).toMatchObject({ service: 'edge', kind: SERVER, name: 'POST /webhooks/provider' });
    const stored = one(spans, 'edge publish', (s) => s.service === 'edge' && s.kind === PRODUCER && s.name === 'publish provider.inbound');
    const router = one(spans, 'messaging router', (s) => s.service === 'messaging' && s.kind === CONSUMER && s.name === 'process PROVIDER_INBOUND');
    const event = one(spans, 'event publish', (s) => s.service === 'messaging' && s.kind === PRODUCER && s.name === 'publish events.chat');
    const attempts = spans.filter((s) => s.service === 'dispatcher' && s.kind === CONSUMER && s.name === 'process EVENTS');
    expect(attempts.map((a) => a.attributes['messaging.message.delivery_count']).sort()).toEqual([1, 2]);
    expect(router.parentSpanId).toBe(stored.spanId);
    for (const a of attempts) expect(a.parentSpanId).toBe(event.spanId);
    const posts = [first, second].map((t) => one(spans, 'delivery POST', isDelivery(t.spanId)));
    for (const [i, post] of posts.entries()) {
      expect(post).toMatchObject({ service: 'dispatcher', kind: CLIENT });
      expect(post.attributes).toMatchObject({ 'url.full': receiver.url, 'http.response.status_code': i === 0 ? 500 : 200 });
      expectPath(spans, [root, stored, router, event, attempts.find((a) => a.attributes['messaging.message.delivery_count'] === i + 1)!, post]);
    }
    expect(logLines('edge').find((l) => l.msg === 'inbound provider webhook stored' && l.trace_id === traceId)).toBeDefined();
  }, 60_000);

  it('an event published from the outbox (a test delivery) stays in the trace of the request that committed it', async () => {
    const res = await api.post(`/api/clients/${clientId}/webhook/test`);
    expect(res.status).toBeLessThan(300);
    const eventId = (res.json as { event_id: string }).event_id;
    const delivery = await waitFor(() => receiver.byEventId(eventId)[0], { timeoutMs: 20_000, what: 'the test event delivered' });
    const { traceId, spanId } = traceparentOf(delivery);

    const spans = await wholeTrace(otlp, traceId, [(s) => s.spanId === spanId]);
    const root = expectOneTree(spans);
    expect(root).toMatchObject({ service: 'edge', kind: SERVER, name: 'POST /api/clients/:id/webhook/test' });
    const handler = one(spans, 'dispatcher gRPC server', (s) => s.service === 'dispatcher' && s.kind === SERVER && s.name.startsWith('grpc.dispatcher.v1.'));
    const publish = one(spans, 'outbox publish', (s) => s.service === 'dispatcher' && s.kind === PRODUCER && s.name === 'publish events.test');
    const consume = one(spans, 'dispatcher consumer', (s) => s.service === 'dispatcher' && s.kind === CONSUMER && s.name === 'process EVENTS');
    const post = one(spans, 'delivery POST', (s) => s.spanId === spanId);
    expect(consume.parentSpanId).toBe(publish.spanId);
    expectPath(spans, [root, handler, publish, consume, post]);
  }, 60_000);
});

describe('graceful shutdown', () => {
  it('exports the spans still buffered before the process exits (SIGTERM)', async () => {
    const otlp = await startOtlpReceiver();
    // a batch delay far beyond the test: only the shutdown can send these spans
    const stack = await startStack({
      services: ['tenant-directory', 'edge'],
      processes: ['tenant-directory', 'edge'],
      sim: false,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '600000', LOG_LEVEL: 'info' },
    });
    try {
      const res = await stack.admin().post('/admin/tenants', { name: 'Flushed', email: 'ops@flushed.test' });
      expect(res.status).toBe(201);
      await new Promise((r) => setTimeout(r, 500));
      expect(otlp.spans).toHaveLength(0);
      await stack.stop();
      const root = one(otlp.spans, 'the request', (s) => s.service === 'edge' && s.kind === SERVER && s.name === 'POST /admin/tenants');
      const spans = otlp.byTrace(root.traceId);
      expectOneTree(spans);
      expect(
        spans.some((s) => s.service === 'tenant-directory' && s.kind === SERVER && s.name === 'grpc.tenant_directory.v1.TenantDirectoryService/CreateTenant'),
      ).toBe(true);
    } finally {
      await stack.stop();
      await otlp.close();
    }
  }, 60_000);
});

describe('without OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('traces nothing: deliveries carry no traceparent and log lines no trace id', async () => {
    const receiver = await startWebhookReceiver();
    const services = ['tenant-directory', 'dispatcher', 'edge'];
    const stack = await startStack({ services, processes: services, sim: false, env: { LOG_LEVEL: 'info' } });
    try {
      const { api } = await stack.createTenant({ name: 'Untraced' });
      const client = await api.post('/api/clients/', { display_name: 'Plain', webhook_url: receiver.url });
      const eventId = ((await api.post(`/api/clients/${(client.json as { id: string }).id}/webhook/test`)).json as { event_id: string }).event_id;
      const delivery = await waitFor(() => receiver.byEventId(eventId)[0], { timeoutMs: 20_000, what: 'the test event delivered' });
      expect(delivery.headers.traceparent).toBeUndefined();
      const lines = services.flatMap((s) => stack.processes.get(s)!.output).filter((l) => l.startsWith('{'));
      expect(lines.some((l) => l.includes('"request_id"'))).toBe(true);
      expect(lines.filter((l) => l.includes('"trace_id"'))).toEqual([]);
    } finally {
      await stack.stop();
      await receiver.close();
    }
  }, 60_000);
});
