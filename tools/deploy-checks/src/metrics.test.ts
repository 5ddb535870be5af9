import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import { closedAddress, SimControl, startWebhookReceiver, waitFor, type WebhookReceiver } from '@gateway/testing';
import { monitoringQueries, sampleNames, sharedMetricFamilies, unknownMetrics } from './monitoring';
import { parsePrometheusText, type MetricFamily } from './prometheus';

const ROOT = resolve(__dirname, '../../..');

/** The metrics every process of the gateway exposes on its own port, after a send and a webhook delivery. */
describe('Prometheus metrics of every service', () => {
  let stack: Stack;
  let api: ApiClient;
  let receiver: WebhookReceiver;
  let clientId: string;
  const sim = async (path: string, body?: unknown, method = 'POST') =>
    (await new SimControl(stack.sim!.url).request<Record<string, string>>(method, path, body)).json;

  const scrape = async (service: string) => {
    const port = stack.running.get(service)?.metricsPort;
    if (!port) throw new Error(`${service} reports no metrics port`);
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return parsePrometheusText(await res.text());
  };
  const sum = (f: MetricFamily | undefined, sample: string, labels: Record<string, string>) =>
    (f?.samples ?? []).filter((s) => s.name === sample && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((n, s) => n + s.value, 0);

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    stack = await startStack({ env: { WEBHOOK_RETRY_DELAYS_MS: '200,200' } });
    ({ api } = await stack.createTenant({ name: 'Metered', webhook_url: receiver.url }));
    const phone = await sim('/_sim/phone-numbers', {});
    const client = await api.post('/api/clients/', {
      display_name: 'Shop',
      business_account_id: phone!.waba_id,
      phone_number_id: phone!.phone_number_id,
      access_token: phone!.access_token,
    });
    expect(client.status).toBe(200);
    clientId = (client.json as { id: string }).id;

    // one send that the provider accepts (the user wrote in: the window is open), one it rejects with its error code
    await sim('/_sim/inbound/message', { phone_number_id: phone!.phone_number_id, from: '16505551234' });
    const send = () => api.post('/api/messaging/send-location', { client_id: clientId, to: '+16505551234', latitude: 37.44, longitude: -122.16 });
    expect((await send()).status).toBe(200);
    await sim('/_sim/faults', { match: { path_contains: '/messages' }, status: 400, error: { code: 131026, message: 'Message undeliverable' } });
    expect((await send()).status).toBe(422); // recipient_undeliverable (docs/provider-errors.md)
    // one delivery
    const test = await api.post(`/api/clients/${clientId}/webhook/test`);
    expect(test.status).toBe(202);
    const eventId = (test.json as { event_id: string }).event_id;
    await waitFor(() => receiver.byEventId(eventId).length > 0, { timeoutMs: 20_000, what: 'test event delivered' });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await receiver?.close();
  });

  it('answers on each service its own port in the Prometheus text format, with process and gRPC server metrics', async () => {
    const services = [...stack.running.keys()];
    expect(services).toEqual(expect.arrayContaining(['edge', 'tenant-directory', 'messaging', 'dispatcher']));
    const ports = services.map((s) => stack.running.get(s)!.metricsPort);
    expect(new Set(ports).size).toBe(services.length);
    for (const service of services) {
      const families = await scrape(service);
      const rss = families.get('process_resident_memory_bytes');
      expect([service, rss?.type, rss?.samples[0]?.labels.service]).toEqual([service, 'gauge', service]);
      if (service !== 'edge') expect([service, families.get('grpc_server_requests_total')?.type]).toEqual([service, 'counter']);
    }
    // the send went edge → messaging → tenant-directory: both served gRPC calls successfully
    for (const service of ['tenant-directory', 'messaging']) {
      const ok = sum((await scrape(service)).get('grpc_server_requests_total'), 'grpc_server_requests_total', { code: '0' });
      expect([service, ok > 0]).toEqual([service, true]);
    }
  });

  it('counts and times the edge HTTP requests by route, method and status', async () => {
    const f = await scrape('edge');
    expect(sum(f.get('http_requests_total'), 'http_requests_total', { route: '/api/messaging/send-location', method: 'POST', status: '200' })).toBe(1);
    expect(sum(f.get('http_requests_total'), 'http_requests_total', { route: '/api/messaging/send-location', method: 'POST', status: '422' })).toBe(1);
    expect(f.get('http_request_duration_seconds')?.type).toBe('histogram');
    expect(
      sum(f.get('http_request_duration_seconds'), 'http_request_duration_seconds_count', {
        route: '/api/messaging/send-location',
        method: 'POST',
        status: '422',
      }),
    ).toBe(1);
    expect(sum(f.get('http_requests_total'), 'http_requests_total', { route: '/api/clients/:id/webhook/test', method: 'POST', status: '202' })).toBe(1);
  });

  it('counts provider calls by operation, outcome and provider error code', async () => {
    const f = (await scrape('messaging')).get('provider_calls_total');
    expect(f?.type).toBe('counter');
    expect(sum(f, 'provider_calls_total', { operation: 'POST /{id}/messages', outcome: 'ok', error_code: '' })).toBe(1);
    expect(sum(f, 'provider_calls_total', { operation: 'POST /{id}/messages', outcome: 'validation', error_code: '131026' })).toBe(1);
  });

  it("reports the inbound consumer's backlog from JetStream", async () => {
    const f = (await scrape('messaging')).get('jetstream_consumer_pending');
    expect(f?.type).toBe('gauge');
    const sample = f!.samples.find((s) => s.labels.stream === 'PROVIDER_INBOUND' && s.labels.consumer === 'messaging-inbound-router');
    expect(sample?.value).toBeGreaterThanOrEqual(0);
  });

  it('counts webhook deliveries by outcome and attempt', async () => {
    const f = (await scrape('dispatcher')).get('webhook_deliveries_total');
    expect(f?.type).toBe('counter');
    expect(sum(f, 'webhook_deliveries_total', { outcome: 'succeeded', attempt: '1' })).toBeGreaterThanOrEqual(1);
  });

  it('exports every metric the Grafana dashboard and the alerting rules of deploy/monitoring name', async () => {
    // what the running services serve on /metrics, plus the shared families a service creates on first use
    // (a dead letter, a provider call) that this run may not have caused in every service
    const families: MetricFamily[] = await sharedMetricFamilies();
    for (const service of stack.running.keys()) families.push(...(await scrape(service)).values());
    const exported = sampleNames(families);
    for (const name of [
      'http_request_duration_seconds_bucket',
      'webhook_deliveries_total',
      'jetstream_consumer_pending',
      'provider_calls_total',
      'inbound_updates_total',
    ])
      expect(exported).toContain(name);
    const queries = monitoringQueries(resolve(ROOT, 'deploy/monitoring'));
    expect(queries.length).toBeGreaterThan(30);
    expect(unknownMetrics(queries, exported)).toEqual([]);
    // and the check does fail on a wrong name (tools/deploy-checks/fixtures/monitoring-wrong-names)
    expect(
      unknownMetrics(monitoringQueries(resolve(__dirname, '../fixtures/monitoring-wrong-names')), exported)
        .map((u) => u.metric)
        .sort(),
    ).toEqual(['http_request_duration_seconds', 'process_resident_memory', 'webhook_delivery_total']);
  });

  it('answers the container health-check scripts: gRPC health per service, HTTP for the edge', async () => {
    // asynchronously: the services run in this process and must keep answering meanwhile
    const run = (script: string, arg: string) =>
      new Promise<{ status: number | null; stdout: string }>((done) => {
        const child = spawn(process.execPath, [resolve(ROOT, 'scripts', script), arg], { stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.on('exit', (status) => done({ status, stdout: stdout.trim() }));
      });
    const grpcServices = [...stack.running].filter(([name]) => name !== 'edge');
    expect(grpcServices.length).toBeGreaterThanOrEqual(3);
    for (const [name, svc] of grpcServices) {
      const r = await run('grpc-health-check.mjs', `127.0.0.1:${svc.grpcPort}`);
      expect([name, r.status, r.stdout]).toEqual([name, 0, `127.0.0.1:${svc.grpcPort}: SERVING`]);
    }
    expect((await run('http-health-check.mjs', `${stack.baseUrl}/healthz`)).status).toBe(0);
    expect((await run('http-health-check.mjs', `${stack.baseUrl}/no-such-route`)).status).toBe(1);
    // nothing listens there: unreachable is unhealthy
    expect((await run('grpc-health-check.mjs', await closedAddress())).status).toBe(1);
  });
});
