import { resolve } from 'node:path';
import { monitoringQueries, promqlMetricNames, sampleNames, sharedMetricFamilies, unknownMetrics } from './monitoring';

const ROOT = resolve(__dirname, '../../..');

describe('PromQL metric names', () => {
  it.each([
    ['sum by (service, stream) (rate(webhook_deliveries_total{outcome=~"a|b", service="x"}[5m]))', ['webhook_deliveries_total']],
    ['histogram_quantile(0.99, sum by (le) (rate(a_bucket[$__rate_interval]))) > 1e3', ['a_bucket']],
    ['x / ignoring(error_code) group_left sum without (job) (y offset 5m) and on (instance) z > bool 2', ['x', 'y', 'z']],
    ['max(process_resident_memory_bytes) > 400 * 1024 * 1024 unless up{job="nan"} == 0', ['process_resident_memory_bytes', 'up']],
    ["count({__name__=\"foo\"}) + label_replace(g, 'dst', '$1', 'src', '(.*)')", ['foo', 'g']],
  ])('%s', (expr, names) => {
    expect(promqlMetricNames(expr).sort()).toEqual([...names].sort());
  });
});

/** The check against what the services really export runs on a live stack: metrics.test.ts. */
describe('monitoring files', () => {
  it('are read: the rules and the dashboard panels, rows and variables', () => {
    const queries = monitoringQueries(resolve(ROOT, 'deploy/monitoring'));
    expect(queries.filter((q) => q.where.includes('alerts.yml')).length).toBeGreaterThanOrEqual(10);
    expect(queries.filter((q) => q.where.includes('panel')).length).toBeGreaterThanOrEqual(20);
    expect(queries.some((q) => q.where.includes('variable service'))).toBe(true);
  });

  it('the negative fixture: every wrong name is reported with where it is, the real ones are not', async () => {
    const exported = sampleNames(await sharedMetricFamilies());
    exported.add('webhook_deliveries_total');
    exported.add('http_request_duration_seconds_bucket');
    const found = unknownMetrics(monitoringQueries(resolve(__dirname, '../fixtures/monitoring-wrong-names')), exported);
    expect(found.map((f) => f.metric).sort()).toEqual(['http_request_duration_seconds', 'process_resident_memory', 'webhook_delivery_total']);
    expect(found.find((f) => f.metric === 'webhook_delivery_total')?.where).toMatch(/alerts\.yml: wrong\/Misspelled$/);
    expect(found.find((f) => f.metric === 'http_request_duration_seconds')?.where).toMatch(/panel "Not a histogram series" A$/);
  });
});
