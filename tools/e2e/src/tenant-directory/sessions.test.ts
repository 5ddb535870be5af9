import { tenantDirectory as td } from '@gateway/contracts';
import { createServiceClient, type ServiceClient } from '@gateway/rpc';
import { startStack, type Stack } from '@gateway/test-stack';

type Directory = ServiceClient<typeof td.TenantDirectoryService>;

/** A tenant directory alone, with these session lifetimes; `dir()` is its client once started. */
function directoryWith(idleMs: number, maxMs: number) {
  let stack: Stack | undefined;
  let client: Directory | undefined;
  beforeAll(async () => {
    stack = await startStack({
      services: ['tenant-directory'],
      sim: false,
      env: { DASHBOARD_SESSION_IDLE_MS: String(idleMs), DASHBOARD_SESSION_MAX_MS: String(maxMs) },
    });
    client = createServiceClient(td.TenantDirectoryService, stack.env.TENANT_DIRECTORY_ADDR!);
  }, 60_000);
  afterAll(async () => {
    client?.close();
    await stack?.stop();
  });
  return () => client!;
}

const tenantOf = (dir: Directory) => dir.createTenant({ name: 'Acme', email: 'ops@acme.test' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Dashboard sessions over gRPC. What a session is and when it ends early (sign-out, a revoked key) is tested with
 * lifetimes of an hour, so no step depends on how fast a loaded machine answers; the lifetimes themselves with short
 * ones, in their own directory.
 */
describe('dashboard sessions in the tenant directory', () => {
  const MAX_MS = 3_600_000;
  const directory = directoryWith(MAX_MS, MAX_MS);
  let dir: Directory;
  beforeAll(() => {
    dir = directory();
  });
  const tenant = () => tenantOf(dir);

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
});

describe('dashboard session lifetimes in the tenant directory', () => {
  // long enough that one call on a loaded machine never lapses a session used every IDLE_MS/3 of sleep
  const IDLE_MS = 3000;
  const MAX_MS = 8000;
  const directory = directoryWith(IDLE_MS, MAX_MS);

  it('ends a session left idle, keeps a used one alive until its absolute lifetime', async () => {
    const dir = directory();
    const t = await tenantOf(dir);
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
    expect(Date.parse(live.expiresAt) - Date.parse(live.createdAt)).toBe(MAX_MS);
    while (Date.now() - started < MAX_MS + 500) {
      await dir.authenticateSession({ sessionToken: used.sessionToken }).catch(() => undefined);
      await sleep(IDLE_MS / 3);
    }
    await expect(dir.authenticateSession({ sessionToken: used.sessionToken })).rejects.toMatchObject({ kind: 'unauthenticated' });
  }, 30_000);
});
