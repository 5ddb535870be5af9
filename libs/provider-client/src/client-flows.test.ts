import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenLocal } from '@gateway/testing';
import { ProviderClient } from './client';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

describe('ProviderClient Flows API calls over real HTTP', () => {
  let server: Server;
  let base: string;
  let handler: Handler;
  const seen: Array<{ method: string; url: string; body: string; auth?: string; type?: string }> = [];
  let client: ProviderClient;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, body, auth: req.headers.authorization, type: req.headers['content-type'] });
        handler(req, res);
      });
    });
    await listenLocal(server);
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    client = new ProviderClient({ baseUrl: base, apiVersion: 'v21.0', timeoutMs: 15_000 });
  });
  afterAll(async () => {
    await client.close();
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => {
    seen.length = 0;
  });

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  it('creates a flow with its JSON text and clone source, and returns the validation errors', async () => {
    handler = (_req, res) => json(res, 200, { id: '991', success: true, validation_errors: [{ error: 'INVALID_PROPERTY_VALUE' }] });
    const res = await client.createFlow('tok', '555', { name: 'Signup', categories: ['SIGN_UP'], flowJson: '{"version":"7.0"}', cloneFlowId: '990' });
    expect(res).toEqual({ id: '991', validationErrors: [{ error: 'INVALID_PROPERTY_VALUE' }] });
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/v21.0/555/flows', auth: 'Bearer tok', type: 'application/json' });
    expect(JSON.parse(seen[0].body)).toEqual({ name: 'Signup', categories: ['SIGN_UP'], flow_json: '{"version":"7.0"}', clone_flow_id: '990' });
  });

  it('reads a flow with the fields the gateway needs', async () => {
    handler = (_req, res) => json(res, 200, { id: '991', status: 'PUBLISHED', whatsapp_business_account: { id: '555' } });
    expect(await client.getFlow('tok', '991')).toMatchObject({ id: '991', status: 'PUBLISHED' });
    expect(decodeURIComponent(seen[0].url)).toBe('/v21.0/991?fields=id,name,status,categories,validation_errors,json_version,whatsapp_business_account');
  });

  it('lists every page of flows, following the after cursor while the provider says there is a next page', async () => {
    handler = (req, res) => {
      const after = new URL(req.url!, base).searchParams.get('after');
      if (!after)
        json(res, 200, { data: [{ id: '1' }, { id: '2' }], paging: { cursors: { before: 'a', after: 'c2' }, next: `${base}/v21.0/555/flows?after=c2` } });
      else json(res, 200, { data: [{ id: '3' }], paging: { cursors: { before: 'c2', after: 'c3' } } });
    };
    expect((await client.listFlows('tok', '555')).map((f) => f.id)).toEqual(['1', '2', '3']);
    expect(seen).toHaveLength(2);
    expect(new URL(seen[1].url, base).searchParams.get('after')).toBe('c2');
  });

  it('uploads flow JSON as multipart/form-data with asset_type FLOW_JSON and a flow.json file part', async () => {
    handler = (_req, res) => json(res, 200, { success: true, validation_errors: [] });
    expect(await client.uploadFlowJson('tok', '991', '{\n  "version": "7.0"\n}')).toEqual([]);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/v21.0/991/assets' });
    expect(seen[0].type).toMatch(/^multipart\/form-data; boundary=/);
    expect(seen[0].body).toContain('name="asset_type"\r\n\r\nFLOW_JSON');
    expect(seen[0].body).toContain('name="name"\r\n\r\nflow.json');
    expect(seen[0].body).toMatch(/name="file"; filename="flow.json"\r\nContent-Type: application\/json\r\n\r\n\{\n {2}"version": "7.0"\n\}/);
  });

  it('downloads the FLOW_JSON asset from its download URL without sending the token there', async () => {
    handler = (req, res) => {
      if (req.url === '/v21.0/991/assets')
        json(res, 200, { data: [{ name: 'flow.json', asset_type: 'FLOW_JSON', download_url: `${base}/cdn/flow.json?sig=x` }] });
      else {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.end('{"version":"7.0"}');
      }
    };
    expect(await client.downloadFlowJson('tok', '991')).toBe('{"version":"7.0"}');
    expect(seen.map((s) => [s.url, s.auth])).toEqual([
      ['/v21.0/991/assets', 'Bearer tok'],
      ['/cdn/flow.json?sig=x', undefined],
    ]);
    handler = (_req, res) => json(res, 200, { data: [] });
    expect(await client.downloadFlowJson('tok', '992')).toBeNull();
  });

  it('publishes, deprecates and deletes with one call each and surfaces the provider code of a refusal', async () => {
    handler = (_req, res) => json(res, 200, { success: true });
    await client.publishFlow('tok', '991');
    await client.deprecateFlow('tok', '991');
    await client.deleteFlow('tok', '991');
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual(['POST /v21.0/991/publish', 'POST /v21.0/991/deprecate', 'DELETE /v21.0/991']);
    seen.length = 0;
    handler = (_req, res) =>
      json(res, 400, { error: { message: "(#139004) Can't delete published Flow", type: 'OAuthException', code: 139004, fbtrace_id: 'T' } });
    await expect(client.deleteFlow('tok', '991')).rejects.toMatchObject({
      kind: 'conflict',
      code: 'flow_not_draft',
      details: { provider_error: { code: 139004, trace_id: 'T' } },
    });
    expect(seen).toHaveLength(1);
  });
});
