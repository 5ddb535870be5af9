import { verify } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import { startStack, type Stack } from '@gateway/test-stack';
import { startWebhookReceiver, waitFor, type ReceivedWebhook, type WebhookReceiver } from '@gateway/testing';

/** What a receiver holding `secret` concludes about a delivery, with the two libraries tenants use. */
function verifies(secret: string, got: ReceivedWebhook, raw = got.raw.toString('utf8'), headers: Record<string, string> = {}) {
  const h = {
    'webhook-id': String(got.headers['webhook-id']),
    'webhook-timestamp': String(got.headers['webhook-timestamp']),
    'webhook-signature': String(got.headers['webhook-signature']),
    ...headers,
  };
  try {
    new Webhook(secret).verify(raw, h);
    return true;
  } catch {
    return false;
  }
}

describe('Standard Webhooks headers beside the spec headers, and secret rotation without downtime', () => {
  let stack: Stack;
  const receivers: WebhookReceiver[] = [];
  const OVERLAP_MS = 6000;

  beforeAll(async () => {
    stack = await startStack({
      services: ['tenant-directory', 'dispatcher', 'edge'],
      sim: false,
      env: { WEBHOOK_RETRY_DELAYS_MS: '300,600', WEBHOOK_ROTATION_OVERLAP_MS: String(OVERLAP_MS) },
    });
  }, 120_000);
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await stack?.stop();
  });

  const setup = async (replies: number[] = []) => {
    const r = await startWebhookReceiver({ replies });
    receivers.push(r);
    const t = await stack.createTenant();
    const clientId = ((await t.api.post('/api/clients/', { display_name: 'Signed', webhook_url: r.url })).json as { id: string }).id;
    const test = async () => ((await t.api.post(`/api/clients/${clientId}/webhook/test`)).json as { event_id: string }).event_id;
    return { ...t, r, clientId, test };
  };

  it('every attempt verifies with standardwebhooks and @octokit/webhooks-methods; a tampered body or timestamp does not', async () => {
    const { tenant, r, test } = await setup([500, 503]);
    expect(tenant.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    const eventId = await test();
    await waitFor(() => r.byEventId(eventId).length === 3, { what: 'three attempts' });
    for (const got of r.byEventId(eventId)) {
      const raw = got.raw.toString('utf8');
      expect(got.headers['webhook-id']).toBe(eventId);
      expect(Math.abs(Number(got.headers['webhook-timestamp']) - got.at / 1000)).toBeLessThan(5);
      expect(String(got.headers['webhook-signature'])).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(verifies(tenant.webhook_secret, got)).toBe(true);
      expect(await verify(tenant.webhook_secret, raw, String(got.headers['x-signature-256']))).toBe(true);

      expect(verifies(tenant.webhook_secret, got, raw.replace('"test":true', '"test":false'))).toBe(false);
      expect(verifies(tenant.webhook_secret, got, raw, { 'webhook-timestamp': String(Number(got.headers['webhook-timestamp']) - 1) })).toBe(false);
      expect(await verify(tenant.webhook_secret, raw.replace('"test":true', '"test":false'), String(got.headers['x-signature-256']))).toBe(false);
    }
  });

  it('rotation: during the overlap a receiver with only the old secret and one with only the new verify every delivery; after it, only the new', async () => {
    const { tenant, api, r, test } = await setup();
    const old = tenant.webhook_secret;
    const before = Date.now();
    const rotated = await api.post<{ webhook_secret: string; previous_secret_expires_at: string }>('/api/tenants/webhook-secret/rotate');
    expect(rotated.status).toBe(200);
    expect(Object.keys(rotated.json).sort()).toEqual(['previous_secret_expires_at', 'webhook_secret']);
    const fresh = rotated.json.webhook_secret;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(old);
    const expiresAt = Date.parse(rotated.json.previous_secret_expires_at);
    expect(expiresAt - before).toBeGreaterThanOrEqual(OVERLAP_MS - 1000);
    expect(expiresAt - before).toBeLessThanOrEqual(OVERLAP_MS + 5000);
    // the tenant record keeps its shape and shows the new secret
    const record = (await stack.admin().get<Record<string, unknown>>(`/admin/tenants/${tenant.id}`)).json;
    expect(Object.keys(record).sort()).toEqual(Object.keys(tenant).sort());
    expect(record.webhook_secret).toBe(fresh);

    const during = [await test(), await test(), await test()];
    await waitFor(() => during.every((id) => r.byEventId(id).length === 1), { what: 'deliveries during the overlap' });
    for (const id of during) {
      const got = r.byEventId(id)[0];
      expect(got.at).toBeLessThan(expiresAt);
      expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(2);
      expect(verifies(old, got)).toBe(true);
      expect(verifies(fresh, got)).toBe(true);
      expect(await verify(fresh, got.raw.toString('utf8'), String(got.headers['x-signature-256']))).toBe(true);
    }

    await new Promise((res) => setTimeout(res, Math.max(0, expiresAt - Date.now() + 200)));
    const after = await test();
    await waitFor(() => r.byEventId(after).length === 1, { what: 'delivery after the overlap' });
    const got = r.byEventId(after)[0];
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifies(fresh, got)).toBe(true);
    expect(verifies(old, got)).toBe(false);
  }, 60_000);

  it("rotation concerns the caller's tenant only, and needs a valid key", async () => {
    const a = await setup();
    const b = await setup();
    await a.api.post('/api/tenants/webhook-secret/rotate');
    const bRecord = (await stack.admin().get<{ webhook_secret: string }>(`/admin/tenants/${b.tenant.id}`)).json;
    expect(bRecord.webhook_secret).toBe(b.tenant.webhook_secret);
    const eventId = await b.test();
    await waitFor(() => b.r.byEventId(eventId).length === 1, { what: 'delivery of the other tenant' });
    expect(String(b.r.byEventId(eventId)[0].headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect((await stack.api('gw_nope').post('/api/tenants/webhook-secret/rotate')).status).toBe(401);
  });
});
