import { parsePrometheusText } from './prometheus';

describe('Prometheus text format parser', () => {
  it('reads families, label sets with escapes and histogram series', () => {
    const f = parsePrometheusText(
      [
        '# HELP http_requests_total HTTP requests handled',
        '# TYPE http_requests_total counter',
        'http_requests_total{route="/api/x",method="POST",status="200",service="edge"} 3',
        'http_requests_total{route="say \\"hi\\"\\n",method="GET",status="404",service="edge"} 1',
        '# TYPE lat histogram',
        'lat_bucket{le="0.1"} 1',
        'lat_bucket{le="+Inf"} 2',
        'lat_sum 0.3',
        'lat_count 2',
        '# TYPE g gauge',
        'g{k="nan"} Nan',
        'g{k="inf"} +Inf',
        'g{k="exp"} 1.5e-3',
        '',
      ].join('\n'),
    );
    expect(f.get('http_requests_total')).toMatchObject({ type: 'counter', help: 'HTTP requests handled' });
    expect(f.get('http_requests_total')!.samples[1].labels.route).toBe('say "hi"\n');
    expect(f.get('lat')!.samples.map((s) => s.name)).toEqual(['lat_bucket', 'lat_bucket', 'lat_sum', 'lat_count']);
    expect(f.get('g')!.samples.map((s) => s.value)).toEqual([NaN, Infinity, 0.0015]);
  });

  it.each([
    ['a sample of an undeclared family', '# TYPE a counter\nb 1'],
    ['a bad value', '# TYPE a counter\na one'],
    ['an unterminated label', '# TYPE a counter\na{x="1} 1'],
    ['an unknown type', '# TYPE a meter'],
    ['a repeated label', '# TYPE a counter\na{x="1",x="2"} 1'],
  ])('refuses %s', (_what, text) => {
    expect(() => parsePrometheusText(text)).toThrow();
  });
});
