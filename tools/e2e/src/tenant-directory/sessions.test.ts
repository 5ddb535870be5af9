import { tenantDirectory as td } from '@gateway/contracts';
import { createServiceClient, type ServiceClient } from '@gateway/rpc';
import { startStack, type Stack } from '@gateway/test-stack';

/** Dashboard sessions over gRPC: lifetimes are short here so expiry is observable within a test. */
describe('dashboard sessions in the tenant directory', () => {
  let stack: Stack;
  let dir: ServiceClient<typeof td.TenantDirectoryService>;
  const IDLE_MS = 1500;
  const MAX_MS = 4000;

  beforeAll(async () => {
    stack = await startStack({
      services: ['tenant-directory'],
      sim: false,
      env: { DASHBOARD_SESSION_IDLE_MS: String(IDLE_MS), DASHBOARD_SESSION_MAX_MS: String(MAX_MS) },
    });
    dir = createServiceClient(td.TenantDirectoryService, stack.env.TENANT_DIRECTORY_ADDR!);
  }, 60_000);
  afterAll(async () => {
    dir?.close();
    await stack?.stop();
  });

  const tenant = () => dir.createTenant({ name: 'Acme', email: 'ops@acme.test' });
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('exchanges a key for a session token that resolves to the tenant and key, with a CSRF token; a wrong key opens nothing', async () => {
    const t = await tenant();
    const prefix = t.apiKey.slice(0, 11);
    const { sessionToken, session } = await dir.createSession({ apiKey: t.apiKey });
    expect(sessionToken).toMatch(/^gws_[A-Za-z0-9_-]{43}$/);
    expect(session).toMatchObject({ tenantId: t.tenant!.id, apiKeyPrefix: prefix });
    expect(session!.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const auth = (await dir.authenticateSession({ sessionToken })).session!;
    expect(auth).toMatchObject({ tenantId: t.tenant!.id, apiKeyPrefix: prefix, csrfToken: session!.csrfToken });
    expect(Date.parse(auth.expiresAt) - Date.parse(auth.createdAt)).toBe(MAX_MS);
    await expect(dir.createSession({ apiKey: `${t.apiKey.slice(0, -1)}x` })).rejects.toMatchObject({ kind: 'unauthenticated' });
    await expect(dir.authenticateSession({ sessionToken: `${sessionToken.slice(0, -1)}x` })).rejects.toMatchObject({
      kind: 'unauthenticated',
      code: 'invalid_session',
    });
  });

  it('ends a session at sign-out, and every session of a key when the key is revoked', async () => {
    const t = await tenant();
    const a = await dir.createSession({ apiKey: t.apiKey });
    const b = await dir.createSession({ apiKey: t.apiKey });
    const other = await dir.createApiKey({ tenantId: t.tenant!.id });
    const c = await dir.createSession({ apiKey: other.apiKey });
    await dir.endSession({ sessionToken: a.sessionToken });
    await expect(dir.authenticateSession({ sessionToken: a.sessionToken })).rejects.toMatchObject({ kind: 'unauthenticated' });
    await dir.authenticateSession({ sessionToken: b.sessionToken });

    await dir.revokeApiKey({ tenantId: t.tenant!.id, prefix: t.apiKey.slice(0, 11) });
    await expect(dir.authenticateSession({ sessionToken: b.sessionToken })).rejects.toMatchObject({ kind: 'unauthenticated' });
    // a session of another key of the same tenant lives on
    expect((await dir.authenticateSession({ sessionToken: c.sessionToken })).session!.apiKeyPrefix).toBe(other.prefix);
    await expect(dir.createSession({ apiKey: t.apiKey })).rejects.toMatchObject({ kind: 'unauthenticated' });
  });

  it('ends a session left idle, keeps a used one alive until its absolute lifetime', async () => {
    const t = await tenant();
    const idle = await dir.createSession({ apiKey: t.apiKey });
    const used = await dir.createSession({ apiKey: t.apiKey });
    const started = Date.now();
    // use one session every IDLE_MS/3 until the other has lapsed
    while (Date.now() - started < IDLE_MS + 500) {
      await dir.authenticateSession({ sessionToken: used.sessionToken });
      await sleep(IDLE_MS / 3);
    }
    await expect(dir.authenticateSession({ sessionToken: idle.sessionToken })).rejects.toMatchObject({ kind: 'unauthenticated' });
    const live = (await dir.authenticateSession({ sessionToken: used.sessionToken })).session!;
    expect(Date.parse(live.idleExpiresAt)).toBeGreaterThan(Date.now() - 1000);
    while (Date.now() - started < MAX_MS + 500) {
      await dir.authenticateSession({ sessionToken: used.sessionToken }).catch(() => undefined);
      await sleep(IDLE_MS / 3);
    }
    await expect(dir.authenticateSession({ sessionToken: used.sessionToken })).rejects.toMatchObject({ kind: 'unauthenticated' });
  });
});
