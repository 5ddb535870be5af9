import { Metrics, startMetricsServer } from './index';

describe('metrics server', () => {
  it('serves the Prometheus text format with rpc metrics', async () => {
    const m = new Metrics('unit');
    m.grpcObserver('Svc/Method', 0, 12);
    const server = await startMetricsServer(m, 0, '127.0.0.1');
    const res = await fetch(`http://127.0.0.1:${server.port}/metrics`);
    const text = await res.text();
    await server.close();
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(text).toContain('grpc_server_requests_total{method="Svc/Method",code="0",service="unit"} 1');
    expect(text).toContain('process_resident_memory_bytes');
  });
});

describe('provider call and consumer lag observers', () => {
  it('count provider calls by operation, outcome and error code, and time them', async () => {
    const m = new Metrics('unit');
    expect(await m.registry.metrics()).not.toContain('provider_calls_total');
    m.providerCall({ operation: 'POST /{id}/messages', outcome: 'ok', errorCode: '', durationMs: 40 });
    m.providerCall({ operation: 'POST /{id}/messages', outcome: 'provider_rejected', errorCode: '131026', durationMs: 30 });
    m.providerCall({ operation: 'POST /{id}/messages', outcome: 'provider_rejected', errorCode: '131026', durationMs: 30 });
    const text = await m.registry.metrics();
    expect(text).toContain('provider_calls_total{operation="POST /{id}/messages",outcome="ok",error_code="",service="unit"} 1');
    expect(text).toContain('provider_calls_total{operation="POST /{id}/messages",outcome="provider_rejected",error_code="131026",service="unit"} 2');
    const count = text.split('\n').find((l) => l.startsWith('provider_call_duration_seconds_count{') && l.includes('outcome="provider_rejected"'));
    expect(count).toMatch(/operation="POST \/\{id\}\/messages".* 2$/);
  });

  it('keeps the latest backlog of each durable consumer', async () => {
    const m = new Metrics('unit');
    m.consumerLag('EVENTS', 'dispatcher', { pending: 12, ackPending: 3 });
    m.consumerLag('EVENTS', 'dispatcher', { pending: 5, ackPending: 1 });
    m.consumerLag('PROVIDER_INBOUND', 'messaging-inbound', { pending: 0, ackPending: 0 });
    const text = await m.registry.metrics();
    expect(text).toContain('jetstream_consumer_pending{stream="EVENTS",consumer="dispatcher",service="unit"} 5');
    expect(text).toContain('jetstream_consumer_ack_pending{stream="EVENTS",consumer="dispatcher",service="unit"} 1');
    expect(text).toContain('jetstream_consumer_pending{stream="PROVIDER_INBOUND",consumer="messaging-inbound",service="unit"} 0');
  });
});
