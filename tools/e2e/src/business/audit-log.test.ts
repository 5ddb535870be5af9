import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import { SimControl } from '@gateway/testing';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON */

const READS = new Set(['get', 'head', 'options']);
const UUID = '0a0a0a0a-0b0b-4c0c-8d0d-0e0e0e0e0e0e';

/** A concrete path for a template: every parameter a value the route accepts the form of (the answer may be a 404). */
const fill = (template: string) =>
  template.replace(/\{(\w+)\}/g, (_m, name: string) =>
    name === 'prefix' ? 'gw_abcdefgh' : name === 'message_id' ? 'wamid.audit' : name === 'media_id' ? '1234567890' : UUID,
  );

/**
 * The audit log (issue 28), driven by the OpenAPI document: every state-changing operation of /api and /admin,
 * called once (whatever it answers: 2xx, 404, 422...), writes exactly one entry naming the operation, its
 * route, its object and its answer, in the tenant's log (its own operations) and the operators' log; no entry
 * holds a secret.
 */
describe('every state-changing operation writes one audit entry', () => {
  let stack: Stack;
  let api: ApiClient;
  let apiKey: string;
  let tenant: any;
  let operations: Array<{ method: string; path: string; operationId: string }>;

  beforeAll(async () => {
    stack = await startStack();
    ({ api, apiKey, tenant } = await stack.createTenant({ name: 'Audited' }));
    const doc = (await stack.api().get('/openapi.json')).json as any;
    operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method, op]) => !READS.has(method) && op?.operationId && (path.startsWith('/api/') || path.startsWith('/admin/')))
        .map(([method, op]) => ({ method: method.toUpperCase(), path, operationId: op.operationId as string })),
    );
  }, 120_000);
  afterAll(() => stack?.stop());

  const entriesOf = async (who: ApiClient, base: string, action: string) => {
    const res = await who.get(`${base}?action=${encodeURIComponent(action)}&limit=100`);
    expect(res.status).toBe(200);
    return (res.json as any).data as any[];
  };

  it('the document has state-changing operations of both mounts (the table is not empty)', () => {
    expect(operations.filter((o) => o.path.startsWith('/api/')).length).toBeGreaterThan(30);
    expect(operations.filter((o) => o.path.startsWith('/admin/')).length).toBeGreaterThan(5);
  });

  it('each one, called once, is one entry with its action, route, object and answer', async () => {
    const admin = stack.admin();
    const missing: string[] = [];
    for (const op of operations) {
      const isAdmin = op.path.startsWith('/admin/');
      const who = isAdmin ? admin : api;
      const before = (await entriesOf(admin, '/admin/audit-log', op.operationId)).length;
      const res = await who.request(op.method, fill(op.path), op.method === 'DELETE' ? undefined : {});
      const after = await entriesOf(admin, '/admin/audit-log', op.operationId);
      if (after.length !== before + 1) {
        missing.push(`${op.operationId}: ${after.length - before} entries`);
        continue;
      }
      const entry = after[0];
      expect(entry).toMatchObject({
        action: op.operationId,
        method: op.method,
        route: op.path,
        status: res.status,
        actor_kind: isAdmin ? 'operator' : 'api_key',
        actor: isAdmin ? 'admin_token' : apiKey.slice(0, 11),
      });
      if (res.status >= 400) expect(entry.code).toBe((res.json as any)?.code ?? null);
      const params = [...op.path.matchAll(/\{(\w+)\}/g)];
      if (params.length) expect(entry.target_id).toBe(fill(`{${params[params.length - 1][1]}}`));
      // the tenant sees its own, not the operators'
      const own = await entriesOf(api, '/api/audit-log', op.operationId);
      expect(own.some((e) => e.id === entry.id)).toBe(!isAdmin);
    }
    expect(missing).toEqual([]);
  }, 300_000);

  it('requests that arrive together: each admitted and audited exactly once, in calls that carry them together (issue 29)', async () => {
    const { api: burst } = await stack.createTenant({ name: 'Burst' });
    const metricsPort = stack.running.get('tenant-directory')!.metricsPort;
    const calls = async () => {
      const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      const count = (method: string) =>
        text
          .split('\n')
          .filter((l) => l.startsWith(`grpc_server_requests_total{method="BusinessService/${method}",`))
          .reduce((n, l) => n + Number(l.split(' ').pop()), 0);
      return { single: count('Admit') + count('RecordAudit'), together: count('AdmitAndAudit') };
    };
    const sendsUsed = async () => {
      const res = await burst.get('/api/usage');
      expect(res.status).toBe(200);
      return (res.json as any).quotas.find((q: any) => q.name === 'sends_per_day').used as number;
    };
    const usedBefore = await sendsUsed();
    const before = await calls();
    const n = 40;
    // a client that does not exist: each send is admitted (counted), then answered 404, and audited
    const answers = await Promise.all(
      Array.from({ length: n }, (_, i) => burst.post('/api/messaging/send-text', { client_id: UUID, to: '+16505550100', text: `hi ${i}` })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(n).fill(404));
    const after = await calls();
    // every send counted once, and one entry per request, written before it was answered
    expect(await sendsUsed()).toBe(usedBefore + n);
    const entries = await entriesOf(burst, '/api/audit-log', 'sendText');
    expect(entries.map((e) => e.request_id).sort()).toEqual(answers.map((a) => a.headers.get('x-request-id')).sort());
    for (const e of entries) expect(e).toMatchObject({ status: 404, code: 'client_not_found', target_id: UUID });
    // no single Admit or RecordAudit call: admissions and entries went in AdmitAndAudit calls, at most one per
    // admission and entry (fewer when requests arrive in the same turn of the edge's event loop)
    expect(after.single - before.single).toBe(0);
    expect(after.together - before.together).toBeGreaterThan(0);
    expect(after.together - before.together).toBeLessThanOrEqual(2 * n);
  });

  it('a real change names its object, and no entry holds a secret', async () => {
    const sim = new SimControl(stack.sim!.url);
    const phone = await sim.phoneNumber();
    const c = await api.post('/api/clients', {
      display_name: 'Shop',
      business_account_id: phone.waba_id,
      phone_number_id: phone.phone_number_id,
      access_token: phone.access_token,
    });
    const clientId = (c.json as any).id;
    await api.patch(`/api/clients/${clientId}`, { display_name: 'Shop 2' });
    const rotated = await api.post('/api/tenants/webhook-secret/rotate');
    const made = await api.post('/api/api-keys', {});
    const patched = (await entriesOf(api, '/api/audit-log', 'updateClient'))[0];
    expect(patched).toMatchObject({ target_id: clientId, status: 200, tenant_id: tenant.id });
    const all: any[] = [];
    let cursor: string | undefined;
    do {
      const page = (await stack.admin().get(`/admin/audit-log?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).json as any;
      all.push(...page.data);
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    const text = JSON.stringify(all);
    for (const secret of [
      apiKey,
      tenant.webhook_secret,
      (rotated.json as any).webhook_secret,
      (made.json as any).api_key,
      phone.access_token,
      stack.adminToken,
    ])
      expect(text).not.toContain(secret);
  });
});
