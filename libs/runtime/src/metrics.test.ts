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
