import type { ApiClient } from '@gateway/test-stack';
import { SimControl, startWebhookReceiver, waitFor, type ReceivedSpan, type WebhookReceiver, BOOKING_FLOW_JSON } from '@gateway/testing';
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
 * Traces of the flows and signup services (traces.test.ts covers the send path and events): the edge, tenant
 * directory, flows, signup and dispatcher run as OS processes, each exporting to a receiver in this test. A flow
 * operation and a hosted-page signup each make one trace from the edge's request to the provider calls of the
 * service, and the signup's trace goes on through the tenant directory's outbox to the signup_completed delivery.
 */

const SERVICES = ['tenant-directory', 'flows', 'signup', 'dispatcher', 'edge'];

const validFlow = BOOKING_FLOW_JSON;

describe('one trace through the flows and signup services (services as OS processes, OTLP/HTTP export)', () => {
  let traced: TracedStack;
  let receiver: WebhookReceiver;
  let api: ApiClient;
  let sim: SimControl;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    traced = await startTracedStack(SERVICES);
    sim = new SimControl(traced.stack.sim!.url);
    ({ api } = await traced.stack.createTenant({ name: 'Traced flows' }));
  }, 120_000);
  afterAll(async () => {
    await traced?.stop();
    await receiver?.close();
  });

  /** The edge's access line of the request answered with this request id: the trace id it was served in. */
  const accessLine = (requestId: string | null, path: string) =>
    waitFor(() => traced.logLines('edge').find((l) => l.msg === 'request' && l.request_id === requestId), { what: `the access log line of ${path}` }).then(
      (l) => {
        expect(l).toMatchObject({ path, trace_id: expect.stringMatching(/^[0-9a-f]{32}$/), span_id: expect.stringMatching(/^[0-9a-f]{16}$/) });
        return l;
      },
    );

  it('a flow publish: tenant request → edge → flows (gRPC) → the provider calls, one trace, its id in the flows log line', async () => {
    const phone = await sim.phoneNumber();
    const client = await api.post<{ id: string }>('/api/clients/', {
      display_name: 'Bistro',
      business_account_id: phone.waba_id,
      phone_number_id: phone.phone_number_id,
      access_token: phone.access_token,
    });
    expect(client.status).toBe(200);
    const clientId = client.json.id;
    const created = await api.post<{ id: string }>('/api/flows', {
      client_id: clientId,
      name: 'Traced booking',
      categories: ['APPOINTMENT_BOOKING'],
      flow_json: validFlow,
    });
    expect(created.status).toBe(200);
    const flowId = created.json.id;

    const res = await api.post(`/api/flows/${flowId}/publish`, { client_id: clientId });
    expect([res.status, res.text]).toEqual([200, 'null']);
    const requestId = res.headers.get('x-request-id');
    const access = await accessLine(requestId, `/api/flows/${flowId}/publish`);
    const traceId = String(access.trace_id);

    const isPublishCall = (s: ReceivedSpan) => s.service === 'flows' && s.kind === CLIENT && String(s.attributes['url.path']).endsWith(`/${flowId}/publish`);
    const isCredentials = (s: ReceivedSpan) => s.service === 'tenant-directory' && s.kind === SERVER && s.name.endsWith('/GetClientCredentials');
    // each process exports on its own: wait for the leaves of every process
    const spans = await wholeTrace(traced.otlp, traceId, [isPublishCall, isCredentials]);
    const root = expectOneTree(spans);
    expect(root).toMatchObject({ service: 'edge', kind: SERVER, name: 'POST /api/flows/:flow_id/publish' });
    expect(root.attributes).toMatchObject({ 'http.route': '/api/flows/:flow_id/publish', 'http.response.status_code': 200 });
    expect(access.span_id).toBe(root.spanId);
    const rpc = 'grpc.flows.v1.FlowsService/PublishFlow';
    const edgeCall = one(spans, 'edge gRPC call', (s) => s.service === 'edge' && s.kind === CLIENT && s.name === rpc);
    const flows = one(spans, 'flows gRPC server', (s) => s.service === 'flows' && s.kind === SERVER && s.name === rpc);
    expect(flows.parentSpanId).toBe(edgeCall.spanId);
    // the caller's client and token from the tenant directory, the flow's state read before the change, the change
    const credentials = one(spans, 'directory call', isCredentials);
    const refresh = one(
      spans,
      'flow read',
      (s) =>
        s.service === 'flows' && s.kind === CLIENT && s.attributes['http.request.method'] === 'GET' && String(s.attributes['url.path']).endsWith(`/${flowId}`),
    );
    const publish = one(spans, 'publish call', isPublishCall);
    expect(publish.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.response.status_code': 200 });
    for (const s of [credentials, refresh, publish]) expectPath(spans, [root, edgeCall, flows, s]);

    const line = await waitFor(() => traced.logLines('flows').find((l) => l.msg === 'flow published' && l.flow_id === flowId), {
      what: "the flows service's log line of the publish",
    });
    expect(line).toMatchObject({ request_id: requestId, trace_id: traceId, span_id: flows.spanId, client_id: clientId });
    // the create before it was a trace of its own, and its line says so
    const createdLine = traced.logLines('flows').find((l) => l.msg === 'flow created' && l.flow_id === flowId);
    expect(createdLine).toMatchObject({ request_id: created.headers.get('x-request-id'), trace_id: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(createdLine!.trace_id).not.toBe(traceId);
  }, 60_000);

  it('a signup: the hosted page → edge → signup (gRPC) → the provider token exchange → tenant directory → outbox → dispatcher → the signup_completed delivery, one trace', async () => {
    const pending = await api.post<{ id: string; embed_signup_url: string }>('/api/clients/', { display_name: 'Signing up', webhook_url: receiver.url });
    expect(pending.status).toBe(200);
    const clientId = pending.json.id;
    // the browser opens the page (StartSignup: a trace of its own) and the provider's dialog gives it a code
    const page = await fetch(pending.json.embed_signup_url);
    expect(page.status).toBe(200);
    const { state } = JSON.parse(/<script type="application\/json" id="signup-config">(.*?)<\/script>/s.exec(await page.text())![1]) as { state: string };
    const onboarded = await sim.onboard({ withCatalog: true });

    const res = await traced.stack.api().request(
      'POST',
      `/signup/${clientId}/complete`,
      JSON.stringify({
        state,
        code: onboarded.code,
        business_account_id: onboarded.waba_id,
        phone_number_id: onboarded.phone_number_id,
        provider_business_id: onboarded.business_id,
      }),
      { 'content-type': 'application/json' },
    );
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ client_id: clientId, status: 'completed' });
    const requestId = res.headers.get('x-request-id');
    const access = await accessLine(requestId, `/signup/${clientId}/complete`);
    const traceId = String(access.trace_id);

    // the event the tenant directory wrote with the activation reaches the receiver in the same trace
    const delivery = await waitFor(() => receiver.byType('signup_completed').find((r) => (r.body as { client_id?: string }).client_id === clientId), {
      timeoutMs: 20_000,
      what: 'signup_completed delivered',
    });
    const delivered = traceparentOf(delivery);
    expect(delivered.traceId).toBe(traceId);

    const spans = await wholeTrace(traced.otlp, traceId, [(s) => s.spanId === delivered.spanId, (s) => s.service === 'signup' && s.kind === SERVER]);
    const root = expectOneTree(spans);
    expect(root).toMatchObject({ service: 'edge', kind: SERVER, name: 'POST /signup/:client_id/complete' });
    expect(root.attributes).toMatchObject({ 'http.route': '/signup/:client_id/complete', 'http.response.status_code': 200 });
    const rpc = 'grpc.signup.v1.SignupService/CompleteSignup';
    const edgeCall = one(spans, 'edge gRPC call', (s) => s.service === 'edge' && s.kind === CLIENT && s.name === rpc);
    const signup = one(spans, 'signup gRPC server', (s) => s.service === 'signup' && s.kind === SERVER && s.name === rpc);
    expect(signup.parentSpanId).toBe(edgeCall.spanId);
    const providerCall = (what: string, method: string, pathEnd: string) =>
      one(
        spans,
        what,
        (s) =>
          s.service === 'signup' && s.kind === CLIENT && s.attributes['http.request.method'] === method && String(s.attributes['url.path']).endsWith(pathEnd),
      );
    const exchange = providerCall('token exchange', 'GET', '/oauth/access_token');
    expect(exchange.attributes).toMatchObject({ 'http.response.status_code': 200 });
    const steps = [
      providerCall('phone registration', 'POST', `/${onboarded.phone_number_id}/register`),
      providerCall('app subscription', 'POST', `/${onboarded.waba_id}/subscribed_apps`),
      providerCall('catalog lookup', 'GET', `/${onboarded.waba_id}/product_catalogs`),
    ];
    for (const s of [exchange, ...steps]) expectPath(spans, [root, edgeCall, signup, s]);
    const activationRpc = 'grpc.tenant_directory.v1.TenantDirectoryService/CompleteClientSignup';
    const activate = one(spans, 'signup → directory call', (s) => s.service === 'signup' && s.kind === CLIENT && s.name === activationRpc);
    const directory = one(spans, 'directory gRPC server', (s) => s.service === 'tenant-directory' && s.kind === SERVER && s.name === activationRpc);
    expect(directory.parentSpanId).toBe(activate.spanId);
    const publish = one(
      spans,
      'outbox publish',
      (s) => s.service === 'tenant-directory' && s.kind === PRODUCER && s.name === 'publish events.signup_completed',
    );
    const consume = one(spans, 'dispatcher consumer', (s) => s.service === 'dispatcher' && s.kind === CONSUMER && s.name === 'process EVENTS');
    const post = one(spans, 'delivery POST', (s) => s.spanId === delivered.spanId);
    expect(post).toMatchObject({ service: 'dispatcher', kind: CLIENT });
    expect(post.attributes).toMatchObject({ 'url.full': receiver.url, 'http.response.status_code': 200 });
    expect(consume.parentSpanId).toBe(publish.spanId);
    expectPath(spans, [root, edgeCall, signup, activate, directory, publish, consume, post]);

    // the app secret and the one-time code went in the exchange's query: no span keeps them
    const attributeText = JSON.stringify(spans.map((s) => s.attributes));
    for (const secret of ['sim-app-secret', onboarded.code]) expect(attributeText).not.toContain(secret);
    expect(exchange.attributes['url.full']).toMatch(/client_secret=REDACTED/);

    const line = traced.logLines('signup').find((l) => l.msg === 'signup completed' && l.client_id === clientId);
    expect(line).toMatchObject({ request_id: requestId, trace_id: traceId, span_id: signup.spanId });
  }, 60_000);

  it("the edge's public routes stay in /openapi.json although the Koa instrumentation wraps their middleware", async () => {
    const doc = (await (await fetch(`${traced.stack.baseUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
    expect(doc.paths['/signup/{client_id}/complete']?.post?.operationId).toBe('completeSignup');
    expect(doc.paths['/webhooks/provider']?.post).toBeDefined();
    expect(doc.paths['/openapi.json']?.get?.operationId).toBe('getOpenApiDocument');
  });

  it("the provider's webhook verification: its verify token stays out of the edge's span", async () => {
    const res = await fetch(`${traced.stack.baseUrl}/webhooks/provider?hub.mode=subscribe&hub.verify_token=sim-verify-token&hub.challenge=4711`);
    expect([res.status, await res.text()]).toEqual([200, '4711']);
    const access = await accessLine(res.headers.get('x-request-id'), '/webhooks/provider');
    const isRequest = (s: ReceivedSpan) => s.service === 'edge' && s.kind === SERVER;
    const spans = await wholeTrace(traced.otlp, String(access.trace_id), [isRequest]);
    const request = one(spans, 'the verification request', isRequest);
    expect(request).toMatchObject({ name: 'GET /webhooks/provider' });
    expect(request.attributes['url.query']).toBe('hub.mode=REDACTED&hub.verify_token=REDACTED&hub.challenge=REDACTED');
    expect(JSON.stringify(spans.map((s) => s.attributes))).not.toContain('sim-verify-token');
  });
});
