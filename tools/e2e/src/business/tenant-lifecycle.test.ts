import { Client as PgClient } from 'pg';
import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import { SimControl, startWebhookReceiver, waitFor, type WebhookReceiver } from '@gateway/testing';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON */

/**
 * Operators' tenant lifecycle (issue 28) through the whole stack: list and search, change, suspend (keys and
 * sessions refused at once, events held) and resume (held events delivered), delete (nothing of the tenant left
 * in any service's tables). On PostgreSQL, whose schemas the test reads directly (each service's own).
 */
describe('tenant lifecycle: suspend, resume, delete', () => {
  let stack: Stack;
  let sim: SimControl;
  let receiver: WebhookReceiver;
  let pg: PgClient;

  beforeAll(async () => {
    stack = await startStack({ storage: 'postgres' });
    sim = new SimControl(stack.sim!.url);
    receiver = await startWebhookReceiver();
    pg = new PgClient({ connectionString: stack.db.databaseUrl });
    await pg.connect();
  }, 120_000);
  afterAll(async () => {
    await pg?.end();
    await receiver?.close();
    await stack?.stop();
  });

  /** A tenant with an active client whose events go to the receiver. */
  async function tenantWithClient(name: string) {
    const t = await stack.createTenant({ name, email: `${name.toLowerCase().replace(/\W/g, '')}@shop.test`, webhook_url: receiver.url });
    const phone = await sim.phoneNumber();
    const c = await t.api.post('/api/clients', {
      display_name: 'Shop',
      business_account_id: phone.waba_id,
      phone_number_id: phone.phone_number_id,
      access_token: phone.access_token,
    });
    expect(c.status).toBe(200);
    return { ...t, clientId: (c.json as any).id as string, phone };
  }

  /** Every row of every service's schema mentioning one of `ids`: `schema.table` → count. */
  async function rowsMentioning(ids: string[]): Promise<Record<string, number>> {
    const tables = await pg.query<{ table_schema: string; table_name: string }>(
      `SELECT table_schema, table_name FROM information_schema.tables
       WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema', 'public')`,
    );
    const out: Record<string, number> = {};
    for (const t of tables.rows) {
      const res = await pg.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "${t.table_schema}"."${t.table_name}" r WHERE row_to_json(r)::text LIKE ANY ($1::text[])`,
        [ids.map((id) => `%${id}%`)],
      );
      if (res.rows[0].n) out[`${t.table_schema}.${t.table_name}`] = res.rows[0].n;
    }
    return out;
  }

  async function signIn(apiKey: string): Promise<string> {
    const res = await fetch(`${stack.baseUrl}/dashboard/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: apiKey }),
    });
    expect(res.status).toBe(201);
    return res.headers.get('set-cookie')!.split(';')[0];
  }

  it('lists and searches tenants, pages them, and changes one (a plan outside PLANS is a 422 naming plan)', async () => {
    const a = await stack.createTenant({ name: 'Searchable Bakery', email: 'owner@bakery.test' });
    await stack.createTenant({ name: 'Other Co', email: 'x@other.test' });
    const admin = stack.admin();
    const found = await admin.get('/admin/tenants?query=BAKERY');
    expect((found.json as any).data.map((t: any) => t.id)).toEqual([a.tenant.id]);
    const byEmail = await admin.get('/admin/tenants?query=bakery.test');
    expect((byEmail.json as any).data).toHaveLength(1);
    const first = await admin.get('/admin/tenants?limit=1');
    expect((first.json as any).data).toHaveLength(1);
    const next = await admin.get(`/admin/tenants?limit=1&cursor=${encodeURIComponent((first.json as any).next_cursor)}`);
    expect((next.json as any).data[0].id).not.toBe((first.json as any).data[0].id);

    const patched = await admin.patch(`/admin/tenants/${a.tenant.id}`, { plan: 'pro', billing_customer_id: 'cus_9', name: 'Bakery Ltd' });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ plan: 'pro', billing_customer_id: 'cus_9', name: 'Bakery Ltd' });
    const bad = await admin.patch(`/admin/tenants/${a.tenant.id}`, { plan: 'platinum' });
    expect(bad.status).toBe(422);
    expect((bad.json as any).detail[0].loc).toEqual(['body', 'plan']);
    expect((await admin.patch('/admin/tenants/00000000-0000-4000-8000-000000000000', { name: 'x' })).status).toBe(404);
  });

  it('suspend: keys and sessions refused at once, events held; resume: they work again and the held events arrive', async () => {
    const t = await tenantWithClient('Suspended Shop');
    const cookie = await signIn(t.apiKey);
    const admin = stack.admin();
    const suspended = await admin.post(`/admin/tenants/${t.tenant.id}/suspend`);
    expect(suspended.status).toBe(200);
    expect((suspended.json as any).suspended_at).toEqual(expect.any(String));

    const byKey = await t.api.get('/api/clients');
    expect([byKey.status, (byKey.json as any).code]).toEqual([403, 'tenant_suspended']);
    const bySession = await fetch(`${stack.baseUrl}/api/clients`, { headers: { cookie } });
    expect([bySession.status, ((await bySession.json()) as any).code]).toEqual([403, 'tenant_suspended']);

    // nor can a new dashboard session be opened
    const signInRefused = await fetch(`${stack.baseUrl}/dashboard/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: t.apiKey }),
    });
    expect([signInRefused.status, ((await signInRefused.json()) as any).code]).toEqual([403, 'tenant_suspended']);

    // an event while suspended: recorded as held, not sent
    const inbound = await sim.inboundMessage(t.phone.phone_number_id, '16505550111', 'text', { body: 'are you open?' });
    await waitFor(
      async () =>
        (await pg.query("SELECT 1 FROM dispatcher.deliveries WHERE client_id = $1 AND last_error = 'held: tenant suspended'", [t.clientId])).rowCount! > 0,
      { timeoutMs: 20_000, what: 'the held delivery' },
    );
    const mine = () => receiver.received.filter((r) => JSON.stringify(r.body).includes(inbound.wamid));
    expect(mine()).toHaveLength(0);

    const resumed = await admin.post(`/admin/tenants/${t.tenant.id}/resume`);
    expect(resumed.status).toBe(200);
    expect((resumed.json as any).suspended_at ?? null).toBeNull();
    expect((await t.api.get('/api/clients')).status).toBe(200);
    expect((await fetch(`${stack.baseUrl}/api/clients`, { headers: { cookie } })).status).toBe(200);
    await waitFor(() => mine().length > 0, { timeoutMs: 20_000, what: 'the held event delivered after resume' });
  });

  it('delete: nothing of the tenant is left in any service table; another tenant keeps everything', async () => {
    const gone = await tenantWithClient('Deleted Shop');
    const kept = await tenantWithClient('Kept Shop');
    // data in several services: a message, its delivery, a flow, a signup-pending client
    expect((await gone.api.post('/api/messaging/send-location', { client_id: gone.clientId, to: '+16505550123', latitude: 1, longitude: 2 })).status).toBe(200);
    await sim.inboundMessage(gone.phone.phone_number_id, '16505550123', 'text', { body: 'hello' });
    expect((await gone.api.post('/api/flows', { client_id: gone.clientId, name: 'Booking', categories: ['OTHER'] })).status).toBe(200);
    const pending = await gone.api.post('/api/clients', { display_name: 'Pending' });
    const ids = [gone.tenant.id, gone.clientId, (pending.json as any).id];
    await waitFor(async () => Object.keys(await rowsMentioning(ids)).some((t) => t.startsWith('dispatcher.')), {
      timeoutMs: 20_000,
      what: 'a delivery record',
    });
    const before = await rowsMentioning(ids);
    expect(Object.keys(before).map((t) => t.split('.')[0])).toEqual(expect.arrayContaining(['tenant_directory', 'messaging', 'flows', 'dispatcher']));
    const keptBefore = await rowsMentioning([kept.tenant.id, kept.clientId]);

    const res = await stack.admin().delete(`/admin/tenants/${gone.tenant.id}`);
    expect(res.status).toBe(204);
    // all that is left is the operators' audit entry of the deletion itself (who deleted which tenant id, when)
    expect(await rowsMentioning(ids)).toEqual({ 'tenant_directory.audit_log': 1 });
    const left = await pg.query('SELECT actor_kind, action, status, target_id FROM tenant_directory.audit_log WHERE row_to_json(audit_log)::text LIKE $1', [
      `%${gone.tenant.id}%`,
    ]);
    expect(left.rows).toEqual([{ actor_kind: 'operator', action: 'adminDeleteTenant', status: 204, target_id: gone.tenant.id }]);
    expect(await rowsMentioning([kept.tenant.id, kept.clientId])).toEqual(keptBefore);
    // its key no longer works, and the tenant is gone for the operator too
    expect((await gone.api.get('/api/clients')).status).toBe(401);
    expect((await stack.admin().get(`/admin/tenants/${gone.tenant.id}`)).status).toBe(404);
    expect((await stack.admin().delete(`/admin/tenants/${gone.tenant.id}`)).status).toBe(404);
    expect((await kept.api.get(`/api/clients/${kept.clientId}`)).status).toBe(200);
  });

  it("another tenant's ids are 404 on the new admin routes (unknown tenant ids)", async () => {
    const admin: ApiClient = stack.admin();
    const unknown = '00000000-0000-4000-8000-000000000001';
    for (const res of [
      await admin.post(`/admin/tenants/${unknown}/suspend`),
      await admin.post(`/admin/tenants/${unknown}/resume`),
      await admin.delete(`/admin/tenants/${unknown}`),
    ])
      expect(res.status).toBe(404);
  });
});
