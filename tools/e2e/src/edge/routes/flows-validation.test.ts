import { randomUUID } from 'node:crypto';
import type { ValidationIssue } from '@gateway/errors';
import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import { closedAddress } from '@gateway/testing';

type Issue = ValidationIssue;

describe('flow requests are validated at the edge, every problem at once, before the flows service is called', () => {
  let stack: Stack;
  let api: ApiClient;
  const clientId = randomUUID();
  const flow = '1234567890123456';
  const flowJson = { version: '7.0', screens: [] };

  beforeAll(async () => {
    // no flows service: a request that passes validation answers 503, so a 422 proves nothing was called
    stack = await startStack({ services: ['tenant-directory', 'edge'], sim: false, env: { FLOWS_ADDR: await closedAddress() } });
    ({ api } = await stack.createTenant());
  });
  afterAll(() => stack.stop());

  async function issues(res: Promise<{ status: number; json: unknown }>): Promise<Array<[string, string]>> {
    const r = await res;
    expect(r.status).toBe(422);
    const detail = (r.json as { detail: Issue[] }).detail;
    for (const d of detail) expect(Object.keys(d).sort()).toEqual(['ctx', 'input', 'loc', 'msg', 'type']);
    return detail.map((d) => [d.loc.join('.'), d.type]);
  }

  it('passes valid requests of every flow route on to the flows service', async () => {
    const valid = [
      api.put(`/api/flows/${flow}/json`, { client_id: clientId, flow_json: flowJson }),
      api.post(`/api/flows/${flow}/publish`, { client_id: clientId }),
      api.post(`/api/flows/${flow}/deprecate`, { client_id: clientId }),
      api.delete(`/api/flows/${flow}?client_id=${clientId}`),
      api.post('/api/flows', {
        client_id: clientId,
        name: 'Signup',
        categories: ['SIGN_UP', 'OTHER'],
        flow_json: flowJson,
        endpoint_uri: 'https://shop.test/flow',
        clone_flow_id: flow,
      }),
      api.get(`/api/flows?client_id=${clientId}`),
      api.get(`/api/flows?client_id=${clientId}&limit=1`),
      api.get(`/api/flows?client_id=${clientId}&limit=100`),
      api.get(`/api/flows/${flow}?client_id=${clientId}`),
    ];
    for (const res of await Promise.all(valid)) expect(res.status).toBe(503);
  });

  it('requires client_id and an object flow_json to update the JSON', async () => {
    expect(await issues(api.put(`/api/flows/${flow}/json`, {}))).toEqual([
      ['body.client_id', 'missing'],
      ['body.flow_json', 'missing'],
    ]);
    for (const bad of ['{"version":"7.0"}', [flowJson], 42, null]) {
      expect(await issues(api.put(`/api/flows/${flow}/json`, { client_id: clientId, flow_json: bad }))).toEqual([['body.flow_json', 'object_type']]);
    }
    expect(await issues(api.put(`/api/flows/${flow}/json`, { client_id: 'shop-1', flow_json: flowJson }))).toEqual([['body.client_id', 'invalid_uuid']]);
    expect(await issues(api.put(`/api/flows/${flow}/json`, { client_id: clientId, flow_json: flowJson, publish: true }))).toEqual([
      ['body.publish', 'extra_forbidden'],
    ]);
  });

  it('reports a bad flow id in the path together with the body problems', async () => {
    expect(await issues(api.put('/api/flows/my-flow/json', { flow_json: [] }))).toEqual([
      ['path.flow_id', 'string_pattern_mismatch'],
      ['body.client_id', 'missing'],
      ['body.flow_json', 'object_type'],
    ]);
    expect(await issues(api.post('/api/flows/..%2F..%2Fme/publish', { client_id: clientId }))).toEqual([['path.flow_id', 'string_pattern_mismatch']]);
  });

  it('requires a body with client_id to publish or deprecate, and client_id in the query to delete or read', async () => {
    for (const action of ['publish', 'deprecate']) {
      expect(await issues(api.post(`/api/flows/${flow}/${action}`))).toEqual([['body', 'missing']]);
      expect(await issues(api.post(`/api/flows/${flow}/${action}`, { client_id: 7 }))).toEqual([['body.client_id', 'string_type']]);
    }
    expect(await issues(api.delete(`/api/flows/${flow}`))).toEqual([['query.client_id', 'missing']]);
    expect(await issues(api.delete(`/api/flows/${flow}?client_id=nope`))).toEqual([['query.client_id', 'invalid_uuid']]);
    expect(await issues(api.get('/api/flows'))).toEqual([['query.client_id', 'missing']]);
    expect(await issues(api.get(`/api/flows/${flow}`))).toEqual([['query.client_id', 'missing']]);
  });

  it('pages the list with limit 1-100 and a cursor it issued: limit 0, 101, a fraction or a non-number and a garbage cursor are 422s', async () => {
    for (const [limit, type] of [
      ['0', 'greater_than_equal'],
      ['101', 'less_than_equal'],
      ['2.5', 'int_type'],
      ['ten', 'number_type'],
      ['', 'number_type'],
    ]) {
      expect(await issues(api.get(`/api/flows?client_id=${clientId}&limit=${limit}`))).toEqual([['query.limit', type]]);
    }
    expect(await issues(api.get(`/api/flows?limit=0&cursor=${'x'.repeat(513)}`))).toEqual([
      ['query.client_id', 'missing'],
      ['query.limit', 'greater_than_equal'],
      ['query.cursor', 'too_long'],
    ]);
    // a cursor the edge did not seal for this tenant's list of this client: the same answer as the clients list gives
    const sameForm = async (res: Promise<{ status: number; json: unknown }>, reference: Promise<{ status: number; json: unknown }>) => {
      const [got, want] = await Promise.all([res, reference]);
      expect(got.status).toBe(422);
      expect(got.json).toEqual(want.json);
    };
    for (const garbage of ['garbage', 'eyJ4IjoxfQ.AAAA', `${'a'.repeat(40)}.${'b'.repeat(43)}`]) {
      await sameForm(api.get(`/api/flows?client_id=${clientId}&cursor=${garbage}`), api.get(`/api/clients?cursor=${garbage}`));
    }
    expect(await issues(api.get(`/api/flows?client_id=${clientId}&cursor=garbage`))).toEqual([['query.cursor', 'cursor_invalid']]);
  });

  it('checks a new flow: name, categories of the provider, an https endpoint, a flow id to clone', async () => {
    expect(await issues(api.post('/api/flows', { client_id: clientId }))).toEqual([
      ['body.name', 'missing'],
      ['body.categories', 'missing'],
    ]);
    expect(
      await issues(
        api.post('/api/flows', {
          client_id: clientId,
          name: ' ',
          categories: ['GAMES', 'OTHER', 'OTHER'],
          flow_json: 'x',
          endpoint_uri: 'http://shop.test/flow',
          clone_flow_id: 'abc',
        }),
      ),
    ).toEqual([
      ['body.name', 'string_pattern_mismatch'],
      ['body.categories.0', 'enum'],
      ['body.categories.2', 'duplicate_item'],
      ['body.flow_json', 'object_type'],
      ['body.clone_flow_id', 'string_pattern_mismatch'],
      ['body.endpoint_uri', 'url_scheme'],
    ]);
    expect(await issues(api.post('/api/flows', { client_id: clientId, name: 'x'.repeat(201), categories: [] }))).toEqual([
      ['body.name', 'too_long'],
      ['body.categories', 'too_short'],
    ]);
  });

  it('refuses a body that is not JSON (415), malformed JSON (422 json_invalid) and a flow JSON over 1 MiB (413)', async () => {
    expect((await api.put(`/api/flows/${flow}/json`, 'client_id=x', { 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(415);
    expect(await issues(api.put(`/api/flows/${flow}/json`, '{"client_id":'))).toEqual([['body', 'json_invalid']]);
    const huge = { client_id: clientId, flow_json: { version: '7.0', screens: [{ id: 'A', title: 'x'.repeat(1024 * 1024) }] } };
    expect((await api.put(`/api/flows/${flow}/json`, huge)).status).toBe(413);
  });
});
