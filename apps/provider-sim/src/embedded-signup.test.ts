import { SimControl, type Onboarded } from '@gateway/testing';
import type { Onboarded as SimOnboarded } from './embedded-signup/onboarding';
import { startProviderSim, type RunningProviderSim } from './index';

// SimControl's answer type is written out in the test tooling (which imports no app): a type error here when they part
const sameShape: [Onboarded, SimOnboarded] extends [SimOnboarded, Onboarded] ? true : false = true;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary provider JSON
type Loose = Record<string, any>;

describe('provider simulator: embedded signup', () => {
  let sim: RunningProviderSim;

  const call = (method: string, path: string, opts: { token?: string; body?: unknown } = {}) =>
    fetch(`${sim.url}${path}`, {
      method,
      headers: { ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), 'content-type': 'application/json' },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    }).then(async (r) => ({
      status: r.status,
      text: await r.clone().text(),
      json: (await r.json().catch(() => ({}))) as Loose,
      type: r.headers.get('content-type'),
    }));
  const onboard = (withCatalog = true) => new SimControl(sim.url).onboard({ withCatalog });
  const exchange = (code: string, secret = 'app-secret', appId = 'app') =>
    call('GET', `/v21.0/oauth/access_token?client_id=${appId}&client_secret=${secret}&code=${encodeURIComponent(code)}`);

  beforeAll(async () => {
    sim = await startProviderSim({ port: 0, appId: 'app', appSecret: 'app-secret', verifyToken: 'v', configId: 'cfg' });
  });
  afterAll(() => sim.stop());

  it("answers the control API's onboarding in the shape SimControl declares", () => {
    expect(sameShape).toBe(true);
  });

  it('onboards a business whose code, once exchanged, registers, subscribes, reads its catalog and then sends', async () => {
    const o = await onboard();
    const send = () =>
      call('POST', `/v21.0/${o.phone_number_id}/messages`, {
        token,
        body: { messaging_product: 'whatsapp', to: '+16505551234', type: 'text', text: { body: 'hi' } },
      });
    const res = await exchange(o.code);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ access_token: expect.stringMatching(/^EAA/), token_type: 'bearer' });
    const token = res.json.access_token as string;
    expect((await send()).json.error.code).toBe(133010); // not registered yet, as after a real signup

    expect((await call('POST', `/v21.0/${o.phone_number_id}/register`, { token, body: { messaging_product: 'whatsapp', pin: '123456' } })).json).toEqual({
      success: true,
    });
    expect((await call('POST', `/v21.0/${o.waba_id}/subscribed_apps`, { token })).json).toEqual({ success: true });
    expect((await call('GET', `/v21.0/${o.waba_id}/subscribed_apps`, { token })).json.data[0].whatsapp_business_api_data.id).toBe('app');
    expect((await call('GET', `/v21.0/${o.waba_id}/product_catalogs`, { token })).json).toEqual({ data: [{ id: o.catalog_id, name: expect.any(String) }] });
    await call('POST', '/_sim/inbound/message', { body: { phone_number_id: o.phone_number_id, from: '16505551234' } });
    expect((await send()).status).toBe(200);
    expect(sim.state.phones.get(o.phone_number_id)).toMatchObject({ registered: true, pin: '123456' });
  });

  it('lists no catalog for a business without one', async () => {
    const o = await onboard(false);
    const token = (await exchange(o.code)).json.access_token as string;
    expect((await call('GET', `/v21.0/${o.waba_id}/product_catalogs`, { token })).json).toEqual({ data: [] });
  });

  it('refuses a used or unknown code, a wrong app secret and a wrong app id with the Graph error envelope', async () => {
    const o = await onboard();
    expect((await exchange(o.code, 'wrong')).json.error).toMatchObject({ code: 1, type: 'OAuthException' });
    expect((await exchange(o.code, 'app-secret', 'other-app')).json.error).toMatchObject({ code: 101 });
    expect((await exchange(o.code)).status).toBe(200);
    const again = await exchange(o.code);
    expect(again.status).toBe(400);
    expect(again.json.error).toMatchObject({ code: 100, error_subcode: 36009, fbtrace_id: expect.any(String) });
    expect((await exchange('nope')).json.error).toMatchObject({ code: 100, error_subcode: 36007 });
  });

  it('refuses a PIN that is not 6 digits and a token of another business', async () => {
    const a = await onboard();
    const b = await onboard();
    const token = (await exchange(a.code)).json.access_token as string;
    const bad = await call('POST', `/v21.0/${a.phone_number_id}/register`, { token, body: { messaging_product: 'whatsapp', pin: '12345' } });
    expect(bad.json.error).toMatchObject({ code: 100 });
    expect(
      (await call('POST', `/v21.0/${b.phone_number_id}/register`, { token, body: { messaging_product: 'whatsapp', pin: '123456' } })).json.error,
    ).toMatchObject({ code: 100, error_subcode: 33 });
    expect((await call('POST', `/v21.0/${b.waba_id}/subscribed_apps`, { token })).json.error).toMatchObject({ code: 100, error_subcode: 33 });
  });

  it('registration presents the two-step PIN set on the number (133005), locks guessing (133008), limits attempts (133016)', async () => {
    const control = new SimControl(sim.url);
    const o = await onboard();
    const token = (await exchange(o.code)).json.access_token as string;
    const register = (pin: string) => call('POST', `/v21.0/${o.phone_number_id}/register`, { token, body: { messaging_product: 'whatsapp', pin } });
    // the business set a PIN on the number itself (WhatsApp Manager): registering must present it
    await control.setTwoStepPin(o.phone_number_id, '111111');
    const mismatch = await register('222222');
    expect([mismatch.status, mismatch.json.error.code]).toEqual([400, 133005]);
    expect((await register('111111')).json).toEqual({ success: true });
    // the registration's PIN stays the number's: another one is refused, the same one registers again
    expect((await register('333333')).json.error.code).toBe(133005);
    expect((await register('111111')).json).toEqual({ success: true });
    await control.registrationLimits({ pin_guesses: 3 });
    expect((await register('444444')).json.error.code).toBe(133005);
    expect((await register('444444')).json.error.code).toBe(133005);
    expect((await register('444444')).json.error.code).toBe(133008);
    // locked: even the right PIN is refused until the lock ends
    expect((await register('111111')).json.error.code).toBe(133008);
    await control.advanceClock(12 * 3_600_000 + 1000);
    try {
      expect((await register('111111')).json).toEqual({ success: true });
      // 10 register calls per 72 hours, whatever their PIN: the 11th is refused
      const b = await onboard();
      const tokenB = (await exchange(b.code)).json.access_token as string;
      const registerB = () => call('POST', `/v21.0/${b.phone_number_id}/register`, { token: tokenB, body: { messaging_product: 'whatsapp', pin: '123456' } });
      for (let i = 0; i < 10; i++) expect((await registerB()).json).toEqual({ success: true });
      const limited = await registerB();
      expect([limited.status, limited.json.error.code]).toEqual([400, 133016]);
    } finally {
      await control.resetClock();
      await control.registrationLimits({ pin_guesses: 5 });
    }
  });

  it.each([
    ['the code exchange', 'GET', 'oauth/access_token'],
    ['the registration', 'POST', '/register'],
    ['the subscription', 'POST', '/subscribed_apps'],
    ['the catalog read', 'GET', '/product_catalogs'],
  ])('fails %s on demand through /_sim/faults', async (_name, method, part) => {
    const o = await onboard();
    await call('POST', '/_sim/faults', { body: { match: { method, path_contains: part }, status: 400, error: { code: 100, message: 'Injected' } } });
    const token = part === 'oauth/access_token' ? undefined : ((await exchange(o.code)).json.access_token as string);
    const res =
      part === 'oauth/access_token'
        ? await exchange(o.code)
        : part === '/register'
          ? await call('POST', `/v21.0/${o.phone_number_id}/register`, { token, body: { messaging_product: 'whatsapp', pin: '123456' } })
          : await call(method, `/v21.0/${o.waba_id}${part}`, { token });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 100, message: 'Injected' });
  });

  it('serves the SDK stand-in and a dialog that checks the app, the configuration and the response type', async () => {
    const sdk = await call('GET', '/sdk.js');
    expect(sdk.type).toMatch(/javascript/);
    expect(sdk.text).toContain('window.FB');
    const dialog = (q: string) => call('GET', `/dialog/oauth?${q}`);
    const good = 'client_id=app&config_id=cfg&response_type=code&override_default_response_type=true&origin=http%3A%2F%2F127.0.0.1%3A8080&nonce=n';
    expect((await dialog(good)).text).toContain('id="finish"');
    expect((await dialog(good.replace('config_id=cfg', 'config_id=other'))).text).toContain('Invalid configuration');
    expect((await dialog(good.replace('client_id=app', 'client_id=x'))).text).toContain('Invalid App ID');
    expect((await dialog(good.replace('response_type=code', 'response_type=token'))).text).toContain('response_type');
    expect((await dialog(good.replace('origin=http%3A%2F%2F127.0.0.1%3A8080', 'origin=javascript%3Aalert(1)'))).text).toContain('without a valid origin');
    // Embedded Signup v4 (provider-2026.md §10): extras {} only; v2's sessionInfoVersion and v3's version are retired
    const extras = (e: unknown) => `${good}&extras=${encodeURIComponent(JSON.stringify(e))}`;
    expect((await dialog(extras({}))).text).toContain('id="finish"');
    expect((await dialog(extras({ setup: {}, sessionInfoVersion: '3' }))).text).toContain('v2 was deprecated on 2026-10-15');
    expect((await dialog(extras({ setup: {}, featureType: '', version: 'v3' }))).text).toContain('Embedded Signup v3 is no longer available');
    // the dialog's Finish: a business account and a code for the configured app only
    expect((await call('POST', '/dialog/oauth/confirm', { body: { client_id: 'app', config_id: 'other' } })).status).toBe(400);
    const confirmed = (await call('POST', '/dialog/oauth/confirm', { body: { client_id: 'app', config_id: 'cfg', with_catalog: true } })).json;
    expect(Object.keys(confirmed).sort()).toEqual(['business_id', 'code', 'phone_number_id', 'waba_id']);
    expect((await exchange(confirmed.code)).status).toBe(200);
  });
});
