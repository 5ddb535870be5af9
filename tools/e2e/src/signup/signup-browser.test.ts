import type { Browser, BrowserContext, Page } from 'playwright-core';
import { signatureHeader } from '@gateway/crypto';
import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import { startWebhookReceiver, waitFor, type WebhookReceiver } from '@gateway/testing';
import { clickClosing, launchChromium } from './testing/browser';
import { FORGED, startOtherSite, type OtherSite } from './testing/other-site';
import { SimControl } from '@gateway/testing';

interface ClientJson {
  id: string;
  is_active: boolean;
  signup_status: string;
  embed_signup_url: string;
  business_account_id: string | null;
  phone_number_id: string | null;
  provider_business_id: string | null;
  catalog_id: string | null;
  webhook_registered: boolean;
  [k: string]: unknown;
}

describe('embedded signup end to end in Chromium: hosted page, provider SDK stand-in, signup service, webhook', () => {
  let stack: Stack;
  let browser: Browser;
  let context: BrowserContext;
  let receiver: WebhookReceiver;
  let site: OtherSite;
  let sim: SimControl;
  let api: ApiClient;
  let webhookSecret: string;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    site = await startOtherSite();
    stack = await startStack({ services: ['tenant-directory', 'messaging', 'dispatcher', 'signup', 'edge'] });
    sim = new SimControl(stack.sim!.url);
    const t = await stack.createTenant({ webhook_url: receiver.url });
    api = t.api;
    webhookSecret = t.tenant.webhook_secret;
    browser = await launchChromium();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await site?.close();
    await receiver?.close();
  });
  beforeEach(async () => {
    await sim.reset();
    context = await browser.newContext();
  });
  afterEach(() => context.close());

  const pendingClient = async (name: string) => {
    const res = await api.post<ClientJson>('/api/clients/', {
      display_name: name,
      external_id: `ext-${name}`,
      success_redirect_url: `${site.url}/landing/done`,
      failure_redirect_url: `${site.url}/landing/failed`,
    });
    expect(res.status).toBe(200);
    return res.json;
  };
  const readClient = async (id: string) => (await api.get<ClientJson>(`/api/clients/${id}`)).json;
  const signupEvents = (clientId: string) => receiver.byType('signup_completed').filter((r) => (r.body as { client_id: string }).client_id === clientId);

  /** Opens the signup page, launches the provider's flow and returns its popup. */
  const launch = async (page: Page, label: 'Connect account' | 'Try again' = 'Connect account') => {
    const start = page.getByRole('button', { name: label });
    await start.waitFor();
    await waitFor(() => start.isEnabled(), { what: 'the SDK to load' });
    const [popup] = await Promise.all([page.waitForEvent('popup'), start.click()]);
    await popup.waitForLoadState();
    return popup;
  };

  it('a customer completes signup and lands on the success redirect; the client is active and the tenant gets one signed signup_completed', async () => {
    const client = await pendingClient('happy');
    const page = await context.newPage();
    await page.goto(client.embed_signup_url);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Connect your business messaging account');
    const popup = await launch(page);
    await clickClosing(popup, 'Finish');
    await page.waitForURL(`${site.url}/landing/done`);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Landed on /landing/done');

    const c = await readClient(client.id);
    expect(c).toMatchObject({ is_active: true, signup_status: 'completed', webhook_registered: true });
    for (const field of ['business_account_id', 'phone_number_id', 'provider_business_id', 'catalog_id'] as const) expect(c[field]).toMatch(/^\d+$/);

    await waitFor(() => signupEvents(client.id).length >= 1, { timeoutMs: 15_000, what: 'the signup_completed delivery' });
    await new Promise((r) => setTimeout(r, 1000));
    const [delivery, ...more] = signupEvents(client.id);
    expect(more).toHaveLength(0);
    expect(delivery.headers['x-signature-256']).toBe(signatureHeader(webhookSecret, delivery.raw));
    expect(delivery.headers['x-event-type']).toBe('signup_completed');
    expect(delivery.body).toEqual({
      type: 'signup_completed',
      client_id: client.id,
      external_id: 'ext-happy',
      payload: {
        business_account_id: c.business_account_id,
        phone_number_id: c.phone_number_id,
        catalog_id: c.catalog_id,
        provider_business_id: c.provider_business_id,
        signup_status: 'completed',
      },
    });

    // the number works: once the user has written in, a send goes through the provider with the token from the signup
    await sim.send('POST', '/_sim/inbound/message', { phone_number_id: c.phone_number_id, from: '16505551234' });
    const send = await api.post('/api/messaging/send-location', { client_id: client.id, to: '+16505551234', latitude: 52.52, longitude: 13.405 });
    expect(send.status).toBe(200);

    // the link now says signup is done, and completing nothing emits nothing
    const again = await context.newPage();
    const res = await again.goto(client.embed_signup_url);
    expect(res!.status()).toBe(200);
    await expect(again.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Signup already completed');
    await new Promise((r) => setTimeout(r, 500));
    expect(signupEvents(client.id)).toHaveLength(1);
  });

  it('a provider error in the dialog is reported by the page (its own session cookie) and lands on the failure redirect; the link still completes later', async () => {
    const client = await pendingClient('dialog-error');
    const page = await context.newPage();
    await page.goto(client.embed_signup_url);
    const popup = await launch(page);
    // the provider's window reports an error, as the real dialog does when it cannot go on
    await popup.evaluate(() => {
      const message = { type: 'WA_EMBEDDED_SIGNUP', event: 'ERROR', version: 3, data: { error_message: 'Something went wrong' } };
      window.opener.postMessage(JSON.stringify(message), '*');
    });
    await page.waitForURL(`${site.url}/landing/failed?reason=provider_error`);
    await popup.close();
    expect(await readClient(client.id)).toMatchObject({ is_active: false, signup_status: 'failed' });

    await page.goto(client.embed_signup_url);
    const retry = await launch(page);
    await clickClosing(retry, 'Finish');
    await page.waitForURL(`${site.url}/landing/done`);
    expect(await readClient(client.id)).toMatchObject({ is_active: true, signup_status: 'completed' });
  });

  it('a failing code exchange lands on the failure redirect with the reason and emits nothing; opening the link again completes it', async () => {
    const client = await pendingClient('retry');
    await sim.fail('GET', 'oauth/access_token');
    const page = await context.newPage();
    await page.goto(client.embed_signup_url);
    const popup = await launch(page);
    await clickClosing(popup, 'Finish');
    await page.waitForURL(`${site.url}/landing/failed?reason=code_exchange_failed`);
    expect(site.landings.at(-1)).toEqual({ path: '/landing/failed', query: { reason: 'code_exchange_failed' } });
    expect(await readClient(client.id)).toMatchObject({ is_active: false, signup_status: 'failed' });
    await new Promise((r) => setTimeout(r, 1000));
    expect(signupEvents(client.id)).toHaveLength(0);

    await page.goto(client.embed_signup_url);
    const retry = await launch(page);
    await clickClosing(retry, 'Finish');
    await page.waitForURL(`${site.url}/landing/done`);
    expect(await readClient(client.id)).toMatchObject({ is_active: true, signup_status: 'completed' });
    await waitFor(() => signupEvents(client.id).length >= 1, { timeoutMs: 15_000, what: 'the signup_completed delivery' });
    await new Promise((r) => setTimeout(r, 500));
    expect(signupEvents(client.id)).toHaveLength(1);
  });

  it('session-info messages from another origin are ignored: only the provider’s account is connected', async () => {
    const client = await pendingClient('forged');
    const attacker = await context.newPage();
    await attacker.goto(`${site.url}/attacker?target=${encodeURIComponent(client.embed_signup_url)}`);
    const [page] = await Promise.all([attacker.waitForEvent('popup'), attacker.getByRole('button', { name: 'Open signup' }).click()]);
    const popup = await launch(page);
    // forged FINISH messages keep arriving while the provider's window is open; the page itself posts one too
    const posted = async () => Number((await attacker.title()).replace('posted ', ''));
    const before = await posted();
    await waitFor(async () => (await posted()) > before + 20, { what: 'forged messages' });
    await page.evaluate((forged) => window.postMessage(JSON.stringify({ type: 'WA_EMBEDDED_SIGNUP', event: 'FINISH', version: 3, data: forged }), '*'), FORGED);
    await new Promise((r) => setTimeout(r, 200));
    expect(await page.locator('#step-details').getAttribute('data-state')).toBe('todo');

    await clickClosing(popup, 'Finish');
    await page.waitForURL(`${site.url}/landing/done`);
    expect(await posted()).toBeGreaterThan(before + 20);
    const c = await readClient(client.id);
    expect(c).toMatchObject({ is_active: true, signup_status: 'completed' });
    expect(c.business_account_id).not.toBe(FORGED.waba_id);
    const [register] = await sim.calls('/register');
    expect(register.path).toContain(`/${c.phone_number_id}/register`);
    expect(c.phone_number_id).not.toBe(FORGED.phone_number_id);
  });

  it('cancelling in the provider window leaves the client pending and lets the customer start again', async () => {
    const client = await pendingClient('cancel');
    const page = await context.newPage();
    await page.goto(client.embed_signup_url);
    const popup = await launch(page);
    await clickClosing(popup, 'Cancel');
    await waitFor(async () => (await page.getByRole('status').textContent())?.includes('cancelled'), { what: 'the cancelled message' });
    expect(await readClient(client.id)).toMatchObject({ signup_status: 'pending', is_active: false });
    const again = await launch(page, 'Try again');
    await clickClosing(again, 'Finish');
    await page.waitForURL(`${site.url}/landing/done`);
    expect(await readClient(client.id)).toMatchObject({ signup_status: 'completed' });
  });
});
