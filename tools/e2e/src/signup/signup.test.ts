import { connectBus, STREAMS, type Bus } from '@gateway/bus';
import { signup as s, tenantDirectory as td } from '@gateway/contracts';
import { SecretBox } from '@gateway/crypto';
import { createLogger } from '@gateway/logger';
import { createServiceClient, type ServiceClient } from '@gateway/rpc';
import { openDb } from '@gateway/store';
import { startStack, type Stack } from '@gateway/test-stack';
import { waitFor } from '@gateway/testing';
import { migrations } from '@gateway/app-signup';
import { signupEvent, signupEventCount } from './testing/events';
import { SimControl, type Onboarded } from '@gateway/testing';

const logger = createLogger({ name: 'signup-test', level: 'silent' });

describe('signup service over gRPC, with the tenant directory and the provider simulator', () => {
  let stack: Stack;
  let signup: ServiceClient<typeof s.SignupService>;
  let dir: ServiceClient<typeof td.TenantDirectoryService>;
  let bus: Bus;
  let sim: SimControl;

  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'signup'] });
    signup = createServiceClient(s.SignupService, stack.env.SIGNUP_ADDR!);
    dir = createServiceClient(td.TenantDirectoryService, stack.env.TENANT_DIRECTORY_ADDR!);
    bus = await connectBus({ url: stack.nats.url, name: 'signup-test', logger, streams: [STREAMS.events] });
    sim = new SimControl(stack.sim!.url);
  }, 60_000);
  afterAll(async () => {
    signup?.close();
    dir?.close();
    await bus?.close();
    await stack?.stop();
  });
  beforeEach(() => sim.reset());

  const pendingClient = async (extra: Partial<td.RegisterClientRequest> = {}) => {
    const { tenant } = await dir.createTenant({ name: 'Acme', email: 'ops@acme.test' });
    const { client } = await dir.registerClient({
      tenantId: tenant!.id,
      displayName: 'Corner shop',
      externalId: 'shop-7',
      successRedirectUrl: 'https://tenant.test/done',
      failureRedirectUrl: 'https://tenant.test/failed?src=signup',
      ...extra,
    });
    return client!;
  };
  const complete = (clientId: string, state: string, o: Onboarded) =>
    signup.completeSignup({ clientId, state, code: o.code, businessAccountId: o.waba_id, phoneNumberId: o.phone_number_id, providerBusinessId: o.business_id });
  const client = async (c: td.Client) => (await dir.getClient({ tenantId: c.tenantId, clientId: c.id })).client!;
  const events = (c: td.Client) => signupEventCount(bus, c.tenantId, c.id);
  /** The outbox relay publishes after the commit: wait until the count settles at `n`. */
  const expectEvents = async (c: td.Client, n: number) => {
    if (n > 0) await waitFor(async () => (await events(c)) >= n, { what: `${n} signup_completed event(s)` });
    await new Promise((r) => setTimeout(r, 300));
    expect(await events(c)).toBe(n);
  };

  it('opens a session for a pending client with the page configuration', async () => {
    const c = await pendingClient();
    const res = await signup.startSignup({ clientId: c.id });
    expect(res.alreadyCompleted).toBe(false);
    expect(res.state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(res.session).toMatchObject({ clientId: c.id, tenantId: c.tenantId, status: 'open' });
    const ttl = Date.parse(res.session!.expiresAt) - Date.parse(res.session!.createdAt);
    expect(ttl).toBeGreaterThan(59 * 60_000);
    expect(res.page).toMatchObject({
      appId: 'sim-app-id',
      configId: 'sim-config-id',
      sdkUrl: `${stack.sim!.url}/sdk.js`,
      providerOrigins: [stack.sim!.url],
      apiVersion: 'v25.0',
      successRedirectUrl: 'https://tenant.test/done',
      failureRedirectUrl: 'https://tenant.test/failed?src=signup',
      displayName: 'Corner shop',
    });
    const second = await signup.startSignup({ clientId: c.id });
    expect(second.state).not.toBe(res.state);
  });

  it('completes a signup: code exchanged, number registered with a 6-digit PIN, app subscribed, catalog read, client active, one event', async () => {
    const c = await pendingClient();
    const { state } = await signup.startSignup({ clientId: c.id });
    const o = await sim.onboard({ withCatalog: true });
    const res = await complete(c.id, state, o);
    expect(res).toMatchObject({ status: 'completed', redirectUrl: 'https://tenant.test/done', completedNow: true });
    expect(res.failureReason).toBeUndefined();
    expect(res.session).toMatchObject({ status: 'completed', completedAt: expect.any(String) });

    const paths = (await sim.calls('/v')).map((r) => `${r.method} ${r.path.replace(/^\/v\d+\.\d+/, '')}`);
    expect(paths).toEqual([
      'GET /oauth/access_token',
      `POST /${o.phone_number_id}/register`,
      `POST /${o.waba_id}/subscribed_apps`,
      `GET /${o.waba_id}/product_catalogs`,
    ]);
    const [register] = await sim.calls('/register');
    expect(register.body).toEqual({ messaging_product: 'whatsapp', pin: expect.stringMatching(/^\d{6}$/) });

    expect(await client(c)).toMatchObject({
      isActive: true,
      signupStatus: 'completed',
      businessAccountId: o.waba_id,
      phoneNumberId: o.phone_number_id,
      providerBusinessId: o.business_id,
      catalogId: o.catalog_id,
      webhookRegistered: true,
    });
    // the business's token is stored (encrypted) for later sends and works against the provider
    const { accessToken } = await dir.getClientCredentials({ tenantId: c.tenantId, clientId: c.id });
    // (the user wrote in first: free-form messages need the 24-hour window open)
    await fetch(`${stack.sim!.url}/_sim/inbound/message`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ phone_number_id: o.phone_number_id, from: '16505551234' }),
    });
    const send = await fetch(`${stack.sim!.url}/v21.0/${o.phone_number_id}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messaging_product: 'whatsapp', to: '+16505551234', type: 'text', text: { body: 'Welcome' } }),
    });
    expect(send.status).toBe(200);

    await expectEvents(c, 1);
    expect(await signupEvent(bus, c.tenantId, c.id)).toEqual({
      type: 'signup_completed',
      client_id: c.id,
      external_id: 'shop-7',
      payload: {
        business_account_id: o.waba_id,
        phone_number_id: o.phone_number_id,
        catalog_id: o.catalog_id,
        provider_business_id: o.business_id,
        signup_status: 'completed',
      },
    });
  });

  it('completing twice emits one event: the repeat calls no provider, and the link then opens no session', async () => {
    const c = await pendingClient();
    const { state } = await signup.startSignup({ clientId: c.id });
    const o = await sim.onboard();
    const [a, b] = await Promise.allSettled([complete(c.id, state, o), complete(c.id, state, o)]);
    const outcomes = [a, b].map((r) => (r.status === 'fulfilled' ? r.value.status : (r.reason as { code: string }).code));
    expect(outcomes).toContain('completed');
    for (const x of outcomes) expect(['completed', 'signup_in_progress']).toContain(x);
    expect(await sim.calls('oauth/access_token')).toHaveLength(1);

    const again = await complete(c.id, state, o);
    expect(again).toMatchObject({ status: 'completed', completedNow: false, redirectUrl: 'https://tenant.test/done' });
    expect(await sim.calls('oauth/access_token')).toHaveLength(1);
    const reopened = await signup.startSignup({ clientId: c.id });
    expect(reopened).toMatchObject({ alreadyCompleted: true, state: '' });
    expect(reopened.session).toBeUndefined();
    await expectEvents(c, 1);
  });

  it('a failing code exchange fails the signup with its reason and emits nothing; opening the link again completes it', async () => {
    const c = await pendingClient();
    const first = await signup.startSignup({ clientId: c.id });
    await sim.fail('GET', 'oauth/access_token');
    const o = await sim.onboard();
    const res = await complete(c.id, first.state, o);
    expect(res).toMatchObject({ status: 'failed', failureReason: 'code_exchange_failed', completedNow: false });
    const redirect = new URL(res.redirectUrl!);
    expect(`${redirect.origin}${redirect.pathname}`).toBe('https://tenant.test/failed');
    expect(Object.fromEntries(redirect.searchParams)).toEqual({ src: 'signup', reason: 'code_exchange_failed' });
    expect(res.session).toMatchObject({ status: 'failed', failureReason: 'code_exchange_failed' });
    expect(await client(c)).toMatchObject({ isActive: false, signupStatus: 'failed', signupFailureReason: 'code_exchange_failed' });
    expect(await sim.calls('/register')).toHaveLength(0);
    // the same page posting again gets the same answer, without another provider call
    expect(await complete(c.id, first.state, o)).toMatchObject({ status: 'failed', failureReason: 'code_exchange_failed' });
    expect(await sim.calls('oauth/access_token')).toHaveLength(1);
    await expectEvents(c, 0);

    const retry = await signup.startSignup({ clientId: c.id });
    const o2 = await sim.onboard();
    expect(await complete(c.id, retry.state, o2)).toMatchObject({ status: 'completed', completedNow: true });
    expect(await client(c)).toMatchObject({ isActive: true, signupStatus: 'completed', phoneNumberId: o2.phone_number_id });
    await expectEvents(c, 1);
  });

  it.each([
    ['registering the number', 'phone_registration_failed', 'POST', '/register', ['/subscribed_apps', '/product_catalogs']],
    ['subscribing the app', 'webhook_subscription_failed', 'POST', '/subscribed_apps', ['/product_catalogs']],
    ['reading the catalog', 'catalog_lookup_failed', 'GET', '/product_catalogs', []],
  ])('a failure %s stops the later steps, fails the client with %s and emits nothing', async (_name, reason, method, part, notCalled) => {
    const c = await pendingClient();
    const { state } = await signup.startSignup({ clientId: c.id });
    await sim.fail(method, part);
    const res = await complete(c.id, state, await sim.onboard());
    expect(res).toMatchObject({ status: 'failed', failureReason: reason });
    expect(new URL(res.redirectUrl!).searchParams.get('reason')).toBe(reason);
    for (const later of notCalled) expect(await sim.calls(later)).toHaveLength(0);
    const after = await client(c);
    expect(after).toMatchObject({ isActive: false, signupStatus: 'failed', signupFailureReason: reason });
    expect(after.phoneNumberId).toBeUndefined();
    await expectEvents(c, 0);
  });

  it('a client without a failure URL gets no redirect, and a business without a catalog completes without one', async () => {
    const c = await pendingClient({ successRedirectUrl: undefined, failureRedirectUrl: undefined });
    const first = await signup.startSignup({ clientId: c.id });
    await sim.fail('POST', '/subscribed_apps');
    const failed = await complete(c.id, first.state, await sim.onboard());
    expect(failed.status).toBe('failed');
    expect(failed.redirectUrl).toBeUndefined();
    const again = await signup.startSignup({ clientId: c.id });
    const done = await complete(c.id, again.state, await sim.onboard({ withCatalog: false }));
    expect(done).toMatchObject({ status: 'completed' });
    expect(done.redirectUrl).toBeUndefined();
    expect((await client(c)).catalogId).toBeUndefined();
    await expectEvents(c, 1);
  });

  it('rejects the state of another client, another tenant included, and an unknown state, changing nothing', async () => {
    const mine = await pendingClient();
    const theirs = await pendingClient();
    expect(theirs.tenantId).not.toBe(mine.tenantId);
    const { state } = await signup.startSignup({ clientId: mine.id });
    const o = await sim.onboard();
    await expect(complete(theirs.id, state, o)).rejects.toMatchObject({ kind: 'not_found', code: 'signup_session_not_found' });
    await expect(complete(mine.id, 'x'.repeat(43), o)).rejects.toMatchObject({ kind: 'not_found' });
    await expect(complete(mine.id, '', o)).rejects.toMatchObject({ kind: 'not_found' });
    await expect(signup.failSignup({ clientId: theirs.id, state, reason: 'provider_error' })).rejects.toMatchObject({ kind: 'not_found' });
    expect(await sim.calls('/v')).toHaveLength(0);
    expect(await client(theirs)).toMatchObject({ signupStatus: 'pending', isActive: false });
    expect(await complete(mine.id, state, o)).toMatchObject({ status: 'completed' });
  });

  it('opens no session for an unknown client', async () => {
    await expect(signup.startSignup({ clientId: '00000000-0000-4000-8000-000000000000' })).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('records a failure the page reports, with its reason, and refuses reasons it does not know', async () => {
    const c = await pendingClient();
    const { state } = await signup.startSignup({ clientId: c.id });
    await expect(signup.failSignup({ clientId: c.id, state, reason: 'bored' })).rejects.toMatchObject({ kind: 'validation' });
    const res = await signup.failSignup({ clientId: c.id, state, reason: 'provider_error' });
    expect(res.session).toMatchObject({ status: 'failed', failureReason: 'provider_error' });
    expect(new URL(res.redirectUrl!).searchParams.get('reason')).toBe('provider_error');
    expect(await client(c)).toMatchObject({ signupStatus: 'failed', signupFailureReason: 'provider_error' });
    // that session is over: posting a code to it replays the failure without calling the provider
    expect(await complete(c.id, state, await sim.onboard())).toMatchObject({ status: 'failed', failureReason: 'provider_error' });
    expect(await sim.calls('/v')).toHaveLength(0);
    await expectEvents(c, 0);
  });

  it('a number that already belongs to another client fails with phone_number_in_use', async () => {
    const o = await sim.onboard();
    const owner = await pendingClient();
    await dir.registerClient({
      tenantId: owner.tenantId,
      displayName: 'Owner',
      businessAccountId: o.waba_id,
      phoneNumberId: o.phone_number_id,
      accessToken: 'EAAowner',
    });
    const c = await pendingClient();
    const { state } = await signup.startSignup({ clientId: c.id });
    expect(await complete(c.id, state, o)).toMatchObject({ status: 'failed', failureReason: 'phone_number_in_use' });
    expect(await client(c)).toMatchObject({ signupStatus: 'failed', signupFailureReason: 'phone_number_in_use' });
    await expectEvents(c, 0);
  });

  it('a registration the provider cannot take right now (133004) is retried, and the signup completes', async () => {
    const c = await pendingClient();
    const { state } = await signup.startSignup({ clientId: c.id });
    await sim.failWith('POST', '/register', 133004, { times: 2, status: 503, message: '(#133004) Server Temporarily Unavailable' });
    const o = await sim.onboard();
    expect(await complete(c.id, state, o)).toMatchObject({ status: 'completed', completedNow: true });
    const pins = (await sim.calls('/register')).map((r) => (r.body as { pin: string }).pin);
    expect(pins).toHaveLength(3);
    expect(new Set(pins).size).toBe(1);
    expect(await client(c)).toMatchObject({ isActive: true, signupStatus: 'completed' });
    await expectEvents(c, 1);
  });

  it('a number whose two-step PIN the business set itself fails registration (133005) at once, without retries', async () => {
    const c = await pendingClient();
    const { state } = await signup.startSignup({ clientId: c.id });
    const o = await sim.onboard();
    await sim.setTwoStepPin(o.phone_number_id, '987654');
    const res = await complete(c.id, state, o);
    expect(res).toMatchObject({ status: 'failed', failureReason: 'phone_registration_failed' });
    expect(await sim.calls('/register')).toHaveLength(1);
    expect(await client(c)).toMatchObject({ isActive: false, signupStatus: 'failed', signupFailureReason: 'phone_registration_failed' });
    await expectEvents(c, 0);
  });

  // last: it stops the signup service to read its store
  it('keeps the PIN a number was registered with, encrypted, and presents it again when the signup is retried', async () => {
    const c = await pendingClient();
    const first = await signup.startSignup({ clientId: c.id });
    await sim.fail('POST', '/subscribed_apps');
    const o = await sim.onboard();
    expect((await complete(c.id, first.state, o)).status).toBe('failed');
    const retry = await signup.startSignup({ clientId: c.id });
    const again = await sim.onboard({ wabaId: o.waba_id });
    expect(again.phone_number_id).toBe(o.phone_number_id);
    expect((await complete(c.id, retry.state, again)).status).toBe('completed');
    const pins = (await sim.calls('/register')).map((r) => (r.body as { pin: string }).pin);
    expect(pins).toHaveLength(2);
    expect(pins[1]).toBe(pins[0]);

    await stack.stopService('signup');
    const db = await openDb({ databaseUrl: stack.env.DATABASE_URL, dataDir: stack.dataDir, schema: 'signup', migrations });
    try {
      const rows = await db.query<{ client_id: string; pin_enc: string }>('SELECT client_id, pin_enc FROM phone_pins WHERE phone_number_id = $1', [
        o.phone_number_id,
      ]);
      expect(rows).toHaveLength(1);
      expect(rows[0].client_id).toBe(c.id);
      expect(rows[0].pin_enc).not.toContain(pins[0]);
      expect(SecretBox.fromBase64(stack.env.SECRETS_KEY!).decrypt(rows[0].pin_enc)).toBe(pins[0]);
    } finally {
      await db.close();
    }
  });
});
