import { runConsumer, ACK, STREAMS, connectBus, type Bus } from '@gateway/bus';
import { tenantDirectory as td } from '@gateway/contracts';
import { createLogger } from '@gateway/logger';
import { createServiceClient, type ServiceClient } from '@gateway/rpc';
import { openDb } from '@gateway/store';
import { startStack, type Stack } from '@gateway/test-stack';
import { waitFor } from '@gateway/testing';

const logger = createLogger({ name: 'td-test', level: 'silent' });

describe('tenant directory over gRPC', () => {
  let stack: Stack;
  let dir: ServiceClient<typeof td.TenantDirectoryService>;
  let bus: Bus;

  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory'], sim: false });
    dir = createServiceClient(td.TenantDirectoryService, stack.env.TENANT_DIRECTORY_ADDR!);
    bus = await connectBus({ url: stack.nats.url, name: 'td-test', logger, streams: [STREAMS.events] });
  }, 60_000);
  afterAll(async () => {
    dir?.close();
    await bus?.close();
    await stack?.stop();
  });

  const tenant = async () => await dir.createTenant({ name: 'Acme', email: 'ops@acme.test' });

  it('creates a tenant with a random secret and a key that authenticates until revoked', async () => {
    const a = await tenant();
    const b = await tenant();
    expect(a.tenant!.webhookSecret).toMatch(/^.{32,}$/);
    expect(a.tenant!.webhookSecret).not.toBe(b.tenant!.webhookSecret);
    expect(a.tenant!.activeWabas).toBe(0);
    const auth = await dir.authenticateApiKey({ apiKey: a.apiKey });
    expect(auth.tenantId).toBe(a.tenant!.id);
    const second = await dir.createApiKey({ tenantId: a.tenant!.id });
    expect((await dir.listApiKeys({ tenantId: a.tenant!.id })).keys.map((k) => k.prefix).sort()).toEqual([auth.prefix, second.prefix].sort());
    await dir.revokeApiKey({ tenantId: a.tenant!.id, prefix: auth.prefix });
    await expect(dir.authenticateApiKey({ apiKey: a.apiKey })).rejects.toMatchObject({ kind: 'unauthenticated' });
    expect((await dir.authenticateApiKey({ apiKey: second.apiKey })).tenantId).toBe(a.tenant!.id);
    await expect(dir.authenticateApiKey({ apiKey: `${a.apiKey.slice(0, -1)}x` })).rejects.toMatchObject({ kind: 'unauthenticated' });
  });

  it('keeps a client to its tenant, hides its token and finds it by phone number and business account', async () => {
    const a = await tenant();
    const b = await tenant();
    const { client } = await dir.registerClient({
      tenantId: a.tenant!.id,
      displayName: 'Shop',
      businessAccountId: 'waba-td-1',
      phoneNumberId: 'pn-td-1',
      accessToken: 'EAAG-secret',
    });
    expect(client!.isActive).toBe(true);
    expect(JSON.stringify(client)).not.toContain('EAAG-secret');
    expect((await dir.getTenant({ tenantId: a.tenant!.id })).tenant!.activeWabas).toBe(1);
    await expect(dir.getClient({ tenantId: b.tenant!.id, clientId: client!.id })).rejects.toMatchObject({ kind: 'not_found' });
    expect((await dir.getClientCredentials({ tenantId: a.tenant!.id, clientId: client!.id })).accessToken).toBe('EAAG-secret');
    expect((await dir.findClientsByPhoneNumberId({ phoneNumberId: 'pn-td-1' })).clients.map((c) => c.id)).toEqual([client!.id]);
    expect((await dir.findClientsByBusinessAccountId({ businessAccountId: 'waba-td-1' })).clients.map((c) => c.id)).toEqual([client!.id]);
    expect((await dir.findClientsByPhoneNumberId({ phoneNumberId: 'pn-unknown' })).clients).toEqual([]);
  });

  it('stores access tokens and webhook secrets encrypted, never in clear', async () => {
    const a = await tenant();
    await dir.registerClient({
      tenantId: a.tenant!.id,
      displayName: 'Enc',
      businessAccountId: 'waba-enc',
      phoneNumberId: 'pn-enc',
      accessToken: 'EAAG-plain-needle',
    });
    // an embedded PGlite directory is held by its one process: the service steps aside while the rows are read
    const embedded = !stack.db.databaseUrl;
    if (embedded) await stack.stopService('tenant-directory');
    const db = await openDb({ databaseUrl: stack.db.databaseUrl, dataDir: stack.dataDir, schema: 'tenant_directory', migrations: [] });
    try {
      const rows = await db.query<{ access_token_enc: string }>('SELECT access_token_enc FROM clients WHERE phone_number_id = $1', ['pn-enc']);
      expect(rows[0].access_token_enc).toBeTruthy();
      expect(rows[0].access_token_enc).not.toContain('EAAG-plain-needle');
      const t = await db.query<{ webhook_secret_enc: string }>('SELECT webhook_secret_enc FROM tenants WHERE id = $1', [a.tenant!.id]);
      expect(t[0].webhook_secret_enc).not.toContain(a.tenant!.webhookSecret);
    } finally {
      await db.close();
      if (embedded) {
        await stack.startService('tenant-directory');
        dir.close();
        dir = createServiceClient(td.TenantDirectoryService, stack.env.TENANT_DIRECTORY_ADDR!);
      }
    }
  });

  it('gives a pending client its signup link and completes it once, with exactly one signup_completed event', async () => {
    const a = await tenant();
    const { client } = await dir.registerClient({ tenantId: a.tenant!.id, displayName: 'Pending', externalId: 'ext-9' });
    expect(client!.isActive).toBe(false);
    expect(client!.signupStatus).toBe('pending');
    expect(client!.embedSignupUrl).toBe(`${stack.env.PUBLIC_BASE_URL}/signup/${client!.id}`);
    const complete = () =>
      dir.completeClientSignup({
        tenantId: a.tenant!.id,
        clientId: client!.id,
        businessAccountId: 'waba-p',
        phoneNumberId: 'pn-p',
        accessToken: 'tok-p',
        providerBusinessId: 'biz-p',
        catalogId: 'cat-p',
        webhookRegistered: true,
      });
    const [first, second] = await Promise.all([complete(), complete()]);
    for (const r of [first, second])
      expect(r.client).toMatchObject({ isActive: true, signupStatus: 'completed', phoneNumberId: 'pn-p', catalogId: 'cat-p', webhookRegistered: true });
    await complete();

    const seen: Array<{ subject: string; tenant?: string; body: Record<string, unknown> }> = [];
    const consumer = await runConsumer({
      bus,
      stream: STREAMS.events.name,
      durable: `td-test-${client!.id}`,
      logger,
      config: { filter_subject: `events.signup_completed.${a.tenant!.id}.>` },
      handle: async (m) => {
        seen.push({ subject: m.subject, tenant: m.headers?.get('X-Tenant-Id'), body: JSON.parse(new TextDecoder().decode(m.data)) });
        return ACK;
      },
    });
    await waitFor(() => seen.length >= 1, { timeoutMs: 10_000, what: 'signup_completed on the bus' });
    await new Promise((r) => setTimeout(r, 500));
    await consumer.stop();
    expect(seen).toHaveLength(1);
    expect(seen[0].subject).toBe(`events.signup_completed.${a.tenant!.id}.${client!.id}`);
    expect(seen[0].tenant).toBe(a.tenant!.id);
    expect(seen[0].body).toMatchObject({ type: 'signup_completed', client_id: client!.id, external_id: 'ext-9' });
  });
});
