import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import { startWebhookReceiver, waitFor, type WebhookReceiver } from '@gateway/testing';
import { launchChromium, screenshot, seriousViolations, watchConsole } from './testing/browser';

interface ClientJson {
  id: string;
  display_name: string;
  is_active: boolean;
  signup_status: string;
  embed_signup_url: string;
}

const validFlow = {
  version: '7.0',
  screens: [
    {
      id: 'BOOKING',
      title: 'Book a table',
      terminal: true,
      layout: {
        type: 'SingleColumnLayout',
        children: [
          { type: 'TextHeading', text: 'When?' },
          { type: 'Form', name: 'form', children: [{ type: 'DatePicker', name: 'date', label: 'Date' }, { type: 'Footer', label: 'Book', 'on-click-action': { name: 'complete', payload: {} } }] },
        ],
      },
    },
  ],
};

/** Long enough for a loaded two-core machine; every wait is for a state, never a fixed time. */
const UI_TIMEOUT_MS = 30_000;
// each test is a whole user journey through several pages and real deliveries: its budget, not a speed goal
jest.setTimeout(180_000);

describe('the tenant dashboard in Chromium against a real gateway', () => {
  let stack: Stack;
  let browser: Browser;
  let receiver: WebhookReceiver;
  let tenantA: { api: ApiClient; apiKey: string; tenant: { id: string } };
  let context: BrowserContext;
  let page: Page;
  let problems: string[];

  const sim = async <T = unknown>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${stack.sim!.url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    if (!res.ok) throw new Error(`simulator ${method} ${path}: ${res.status}`);
    return (res.status === 204 ? undefined : await res.json()) as T;
  };
  const activeClient = async (api: ApiClient, name: string) => {
    const account = await sim<{ waba_id: string; phone_number_id: string; access_token: string }>('POST', '/_sim/phone-numbers');
    const res = await api.post<ClientJson>('/api/clients/', { display_name: name, business_account_id: account.waba_id, phone_number_id: account.phone_number_id, access_token: account.access_token });
    expect(res.status).toBe(200);
    // the test recipient wrote in: free-form messages need the provider's 24-hour window open
    await sim('POST', '/_sim/inbound/message', { phone_number_id: account.phone_number_id, from: '16505551234' });
    return res.json;
  };

  const url = (path: string) => `${stack.baseUrl}/dashboard/${path}`;
  const heading = (title: string) => page.getByRole('heading', { level: 1, name: title });

  async function signIn(key: string): Promise<void> {
    await page.goto(url(''));
    await page.getByLabel('API key', { exact: true }).fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Overview').waitFor();
  }

  /** Opens a page from the navigation bar and waits until nothing is loading. */
  async function openFromNav(title: string): Promise<void> {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: title }).click();
    await heading(title).waitFor();
    await settled();
  }

  const settled = () => page.locator('.state.loading').first().waitFor({ state: 'detached' });

  /** Axe finds no serious or critical violation, and the screenshot is written. */
  async function check(name: string): Promise<void> {
    await settled();
    await screenshot(page, name);
    expect(await seriousViolations(page)).toEqual([]);
  }

  /** Clicks Refresh (in `scope`) until `done` holds: the UI shows what the server has now. */
  async function refreshUntil(scope: Page | ReturnType<Page['locator']>, done: () => Promise<boolean>, what: string): Promise<void> {
    await waitFor(
      async () => {
        if (await done()) return true;
        await scope.getByRole('button', { name: 'Refresh' }).first().click();
        await settled();
        return done();
      },
      { timeoutMs: UI_TIMEOUT_MS, intervalMs: 300, what },
    );
  }

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    stack = await startStack({ services: ['tenant-directory', 'messaging', 'dispatcher', 'signup', 'flows', 'edge'], env: { WEBHOOK_RETRY_DELAYS_MS: '300,600', PROVIDER_TIMEOUT_MS: '5000' } });
    tenantA = await stack.createTenant({ name: 'Tenant A', webhook_url: receiver.url });
    browser = await launchChromium();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await receiver?.close();
  });
  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(UI_TIMEOUT_MS);
    page = await context.newPage();
    problems = watchConsole(page);
  });
  afterEach(async () => {
    await context?.close();
    expect(problems).toEqual([]);
  });

  it('is served by the edge with a strict CSP: hashed assets of this build, no inline script, nothing from another origin', async () => {
    const res = await fetch(url(''));
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    const html = await res.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const assets = [...html.matchAll(/(?:src|href)="(\/dashboard\/assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const a of assets) {
      const r = await fetch(`${stack.baseUrl}${a}`);
      expect([a, r.status, r.headers.get('cache-control')]).toEqual([a, 200, 'max-age=31536000,immutable']);
    }
    // client-side routes are the same page; an unknown asset is a 404
    expect((await fetch(url('deliveries?client=x'))).status).toBe(200);
    expect((await fetch(url('assets/nope.js'))).status).toBe(404);
    expect((await fetch(`${stack.baseUrl}/dashboard`, { redirect: 'manual' })).headers.get('location')).toBe('/dashboard/');
  });

  it('signs in with a key (overview shows the tenant’s clients), refuses a wrong key without a cookie, and signs out for good', async () => {
    const { api, apiKey } = await stack.createTenant({ name: 'Overview tenant' });
    await api.post('/api/clients/', { display_name: 'Pending one' });
    await api.post('/api/clients/', { display_name: 'Pending two' });
    await activeClient(api, 'Live shop');

    await page.goto(url(''));
    await page.getByLabel('API key', { exact: true }).waitFor();
    await check('sign-in');
    await page.getByLabel('API key', { exact: true }).fill(`${apiKey.slice(0, -2)}zz`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('not valid');
    expect(await context.cookies()).toEqual([]);
    await screenshot(page, 'sign-in-wrong-key');

    await page.getByLabel('API key', { exact: true }).fill(apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Overview').waitFor();
    await settled();
    const stat = (label: string) => page.locator('.stat', { hasText: label }).locator('dd').textContent();
    await expect(stat('Active')).resolves.toBe('1');
    await expect(stat('Pending signup')).resolves.toBe('2');
    await expect(stat('Signup failed')).resolves.toBe('0');
    await check('overview');

    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({ name: 'gw_session', httpOnly: true, sameSite: 'Strict', path: '/' });
    // the page never sees the key or the session token
    expect(await page.evaluate(() => document.cookie)).toBe('');
    expect(await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }))).toBe('{}{}');

    // a state-changing request with the cookie but without the CSRF token is refused
    const forged = await page.evaluate(async () => (await fetch('/api/clients/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ display_name: 'Forged' }) })).status);
    expect(forged).toBe(403);
    expect((await api.get<{ data: unknown[] }>('/api/clients')).json.data).toHaveLength(3);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key', { exact: true }).waitFor();
    expect(await context.cookies()).toEqual([]);
    const replay = await fetch(`${stack.baseUrl}/api/clients`, { headers: { cookie: `${cookie.name}=${cookie.value}` } });
    expect(replay.status).toBe(401);
  });

  it('creates a pending client whose signup link opens the hosted page; finishing signup makes it active with signup_completed in its deliveries', async () => {
    await signIn(tenantA.apiKey);
    await openFromNav('Clients');
    await check('clients');
    await page.getByLabel('Display name').fill('Corner bakery');
    await page.getByLabel('External id (optional)').fill('bakery-1');
    await page.getByRole('button', { name: 'Create client' }).click();
    const link = page.getByLabel('Embedded signup link');
    await link.waitFor();
    const signupUrl = await link.inputValue();
    expect(signupUrl).toMatch(new RegExp(`^${stack.baseUrl}/signup/[0-9a-f-]{36}$`));
    const clientId = signupUrl.split('/').pop()!;
    const bakeryBadge = page.getByRole('row', { name: /Corner bakery/ }).locator('.badge');
    await bakeryBadge.waitFor();
    await expect(bakeryBadge.textContent()).resolves.toBe('pending');
    await check('clients-created');

    const [signupPage] = await Promise.all([context.waitForEvent('page'), page.getByRole('link', { name: 'Open the signup page' }).click()]);
    await signupPage.waitForLoadState();
    expect(signupPage.url()).toBe(signupUrl);
    const connect = signupPage.getByRole('button', { name: 'Connect account' });
    await waitFor(() => connect.isEnabled(), { timeoutMs: UI_TIMEOUT_MS, what: 'the provider SDK to load' });
    const [providerWindow] = await Promise.all([signupPage.waitForEvent('popup'), connect.click()]);
    await providerWindow.waitForLoadState();
    await providerWindow.getByRole('button', { name: 'Finish' }).click();
    await signupPage.getByRole('heading', { name: 'Your account is connected' }).waitFor();

    const row = page.getByRole('row', { name: /Corner bakery/ });
    await refreshUntil(page, async () => (await row.locator('.badge').textContent()) === 'active', 'the client to show as active');
    await row.getByRole('link', { name: 'Deliveries of Corner bakery' }).click();
    await heading('Deliveries').waitFor();
    expect(page.url()).toContain(`client=${clientId}`);
    const signupRow = page.getByRole('row', { name: /signup_completed/ });
    await refreshUntil(page, async () => (await signupRow.count()) === 1 && (await signupRow.locator('.badge').textContent()) === 'succeeded', 'the signup_completed delivery');
    expect(receiver.byType('signup_completed').filter((r) => (r.body as { client_id: string }).client_id === clientId)).toHaveLength(1);
    await check('deliveries-signup-completed');
  });

  it('sends a test event from the Clients page and shows its delivery; a failing receiver shows three attempts and is retried from the UI', async () => {
    const hooks = await startWebhookReceiver();
    try {
      await signIn(tenantA.apiKey);
      await openFromNav('Clients');
      await page.getByLabel('Display name').fill('Flaky hooks');
      await page.getByLabel('Webhook URL (optional)').fill(hooks.url);
      await page.getByRole('button', { name: 'Create client' }).click();
      await page.getByRole('button', { name: 'Send test event to Flaky hooks' }).waitFor();

      // the edit form changes what it shows
      await page.getByRole('button', { name: 'Edit Flaky hooks' }).click();
      await page.getByLabel('External id', { exact: true }).fill('flaky-1');
      await check('clients-edit');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByText('Saved Flaky hooks.').waitFor();
      await page.getByRole('row', { name: /Flaky hooks/ }).getByText('flaky-1').waitFor();

      // a test event to a healthy receiver: one attempt, 200
      await page.getByRole('button', { name: 'Send test event to Flaky hooks' }).click();
      await page.getByText(/Test event sent to Flaky hooks/).waitFor();
      await page.getByRole('link', { name: 'View its deliveries' }).click();
      await heading('Deliveries').waitFor();
      const testRows = page.getByRole('row', { name: /test/ });
      await refreshUntil(page, async () => (await testRows.count()) === 1 && (await testRows.locator('.badge').textContent()) === 'succeeded', 'the test delivery to succeed');
      await expect(testRows.locator('td').nth(3).textContent()).resolves.toBe('1');
      await expect(testRows.locator('td').nth(4).textContent()).resolves.toBe('200');
      await check('deliveries');

      // the receiver fails from now on: three attempts, then failed
      hooks.fallback = 500;
      await openFromNav('Clients');
      await page.getByRole('button', { name: 'Send test event to Flaky hooks' }).click();
      await page.getByText(/Test event sent to Flaky hooks/).waitFor();
      await page.getByRole('link', { name: 'View its deliveries' }).click();
      await heading('Deliveries').waitFor();
      await page.getByLabel('Status').selectOption('failed');
      await refreshUntil(page, async () => (await testRows.count()) === 1, 'the failed test delivery');
      await expect(testRows.locator('td').nth(3).textContent()).resolves.toBe('3');
      await expect(testRows.locator('td').nth(4).textContent()).resolves.toBe('500');
      await check('deliveries-failed-filter');
      await testRows.getByRole('link', { name: /^Open test delivery/ }).click();
      await page.getByRole('heading', { level: 3, name: 'Attempts' }).waitFor();
      const attempts = page.getByRole('table').locator('tbody tr');
      await expect(attempts.count()).resolves.toBe(3);
      for (let i = 0; i < 3; i++) await expect(attempts.nth(i).locator('td').nth(3).textContent()).resolves.toBe('500');
      const failedEventId = hooks.received.at(-1)!.headers['x-event-id'];
      // the body shown is the exact one that was signed and sent
      expect(await page.locator('pre.code').first().textContent()).toBe(hooks.received.at(-1)!.raw.toString('utf8'));
      await check('delivery-detail-failed');

      hooks.fallback = 200;
      await page.getByRole('button', { name: 'Retry delivery' }).click();
      await page.getByRole('link', { name: /^delivery [0-9a-f]{8}$/ }).click();
      await refreshUntil(page, async () => (await page.locator('#delivery-title .badge').textContent()) === 'succeeded', 'the retried delivery to succeed');
      await expect(page.getByRole('table').locator('tbody tr').count()).resolves.toBe(1);
      expect(hooks.received.at(-1)!.headers['x-event-id']).toBe(failedEventId);
      await check('delivery-detail-retried');

      // the first series stays failed: the overview lists it among the latest failures
      await openFromNav('Overview');
      await page.getByRole('region', { name: 'Latest failures' }).getByRole('row', { name: /Flaky hooks/ }).waitFor();
      await check('overview-failures');
    } finally {
      await hooks.close();
    }
  });

  it('shows the provider’s errors next to a flow JSON, and publishes a flow after a confirmation that says it cannot be undone', async () => {
    const client = await activeClient(tenantA.api, 'Bistro');
    await signIn(tenantA.apiKey);
    await openFromNav('Flows');
    await check('flows-choose-client');
    await page.getByLabel('Client', { exact: true }).selectOption(client.id);
    await page.getByText('This client has no flows yet.').waitFor();
    await page.getByLabel('New flow name').fill('Table booking');
    await page.getByLabel('Category').selectOption('APPOINTMENT_BOOKING');
    await page.getByRole('button', { name: 'Create draft' }).click();
    const editor = page.getByLabel('Flow JSON');
    await editor.waitFor();

    const broken = { screens: [{ ...validFlow.screens[0], layout: { type: 'SingleColumnLayout', children: [{ type: 'Carousel', images: [] }] } }] };
    await editor.fill(JSON.stringify(broken, null, 2));
    await page.getByRole('button', { name: 'Save JSON' }).click();
    const errors = page.getByRole('complementary', { name: 'Validation errors' }).getByRole('listitem');
    await waitFor(async () => (await errors.count()) === 2, { timeoutMs: UI_TIMEOUT_MS, what: 'the provider errors' });
    await expect(errors.nth(0).textContent()).resolves.toContain('MISSING_REQUIRED_PROPERTY');
    await expect(errors.nth(1).textContent()).resolves.toContain('INVALID_PROPERTY_VALUE');
    await expect(errors.nth(1).textContent()).resolves.toContain('screens[0].layout.children[0].type');
    await check('flow-validation-errors');

    await editor.fill(JSON.stringify(validFlow, null, 2));
    await page.getByRole('button', { name: 'Save JSON' }).click();
    await page.getByText('Flow JSON saved; the provider reported no errors.').waitFor();
    await page.getByRole('button', { name: 'Publish' }).click();
    const dialog = page.getByRole('dialog', { name: 'Publish this flow?' });
    await expect(dialog.textContent()).resolves.toContain('cannot be undone');
    await check('flow-publish-confirm');
    await dialog.getByRole('button', { name: 'Publish flow' }).click();
    await page.getByText('Flow published.').waitFor();
    await expect(page.locator('#flow-title .badge').textContent()).resolves.toBe('published');
    await expect(page.getByRole('button', { name: 'Deprecate' }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('button', { name: 'Delete' }).count()).resolves.toBe(0);
    await check('flow-published');
    await page.getByRole('link', { name: '← All flows of this client' }).click();
    await expect(page.getByRole('row', { name: /Table booking/ }).locator('.badge').textContent()).resolves.toBe('published');
    await check('flows');
  });

  it('looks up a message and shows its status timeline; settings reveal the secret on demand and manage keys', async () => {
    const client = await activeClient(tenantA.api, 'Messenger');
    const send = await tenantA.api.post('/api/messaging/send-location', { client_id: client.id, to: '+16505551234', latitude: 52.52, longitude: 13.405 });
    expect(send.status).toBe(200);
    const messageId = send.headers.get('x-message-id')!;
    await signIn(tenantA.apiKey);
    await openFromNav('Messages');
    await check('messages-empty');
    await page.getByLabel('Client', { exact: true }).selectOption(client.id);
    await page.getByLabel('Message id').fill(messageId);
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.getByRole('heading', { name: 'Status timeline' }).waitFor();
    await expect(page.locator('.props').textContent()).resolves.toContain(messageId);
    expect(await page.locator('.timeline li').count()).toBeGreaterThanOrEqual(1);
    await check('messages');
    await page.getByLabel('Message id').fill('wamid.unknown');
    await page.getByRole('button', { name: 'Look up' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('not found');
    await check('messages-not-found');

    await openFromNav('Settings');
    const secret = page.locator('#webhook-secret');
    expect(await secret.textContent()).not.toContain('whsec_');
    await page.getByRole('button', { name: 'Reveal secret' }).click();
    await expect(secret.textContent()).resolves.toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Hide secret' }).click();
    await page.getByRole('button', { name: 'Create API key' }).click();
    const newKey = await page.getByLabel(/^New key gw_/).inputValue();
    expect((await stack.api(newKey).get('/api/clients')).status).toBe(200);
    await check('settings');

    // revoking another key asks first; that key stops working
    const prefix = newKey.slice(0, 11);
    await page.getByRole('button', { name: `Revoke key ${prefix}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await page.getByRole('row', { name: new RegExp(prefix) }).getByText('revoked').waitFor();
    await waitFor(async () => (await stack.api(newKey).get('/api/clients')).status === 401, { timeoutMs: 8000, what: 'the revoked key to stop working' });
  });

  it('revoking the key of the current session asks for confirmation, then signs out', async () => {
    const t = await stack.createTenant({ name: 'Short lived' });
    await signIn(t.apiKey);
    await openFromNav('Settings');
    await page.getByRole('button', { name: `Revoke key ${t.apiKey.slice(0, 11)}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke the key of this session?' });
    await expect(dialog.textContent()).resolves.toContain('signs you out');
    await check('settings-revoke-current');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await t.api.get('/api/clients')).status).toBe(200);
    await page.getByRole('button', { name: `Revoke key ${t.apiKey.slice(0, 11)}` }).click();
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByLabel('API key', { exact: true }).waitFor();
    await expect(page.getByRole('main').getByRole('status').textContent()).resolves.toContain('session has ended');
    await check('sign-in-session-ended');
  });

  it('pages the clients table with cursors, and shows a loading state while a page is on its way', async () => {
    const t = await stack.createTenant({ name: 'Many clients' });
    for (let i = 1; i <= 23; i++) await t.api.post('/api/clients/', { display_name: `Client ${String(i).padStart(2, '0')}` });
    await signIn(t.apiKey);
    // hold the next clients request until the loading state has been seen (the request itself is real)
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    await page.route((u) => u.pathname === '/api/clients' && u.searchParams.get('limit') === '20' && !u.searchParams.has('cursor'), async (route) => {
      await released;
      await route.continue();
    });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clients' }).click();
    await page.getByRole('status').filter({ hasText: 'Loading clients' }).waitFor();
    await screenshot(page, 'clients-loading');
    release();
    await settled();
    const rows = page.getByRole('table').locator('tbody tr');
    await expect(rows.count()).resolves.toBe(20);
    await expect(rows.first().locator('th').textContent()).resolves.toBe('Client 23');
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('Page 2').waitFor();
    await settled();
    await expect(rows.count()).resolves.toBe(3);
    await expect(rows.last().locator('th').textContent()).resolves.toBe('Client 01');
    await expect(page.getByRole('button', { name: 'Next page' }).isDisabled()).resolves.toBe(true);
    await check('clients-page-2');
    await page.getByRole('button', { name: 'Previous page' }).focus();
    await page.keyboard.press('Enter');
    await page.getByText('Page 1').waitFor();
    await settled();
    await expect(rows.first().locator('th').textContent()).resolves.toBe('Client 23');
  });

  it('tenant B’s session cannot load any of tenant A’s pages or data, direct URLs included', async () => {
    const a = await activeClient(tenantA.api, 'A private');
    const { delivery_id: deliveryId } = (await tenantA.api.post<{ delivery_id: string }>(`/api/clients/${a.id}/webhook/test`)).json;
    const flow = (await tenantA.api.post<{ id: string }>('/api/flows', { client_id: a.id, name: 'A flow', categories: ['OTHER'] })).json;
    const b = await stack.createTenant({ name: 'Tenant B' });
    await signIn(b.apiKey);
    await settled();
    await expect(page.getByText('No clients yet.').isVisible()).resolves.toBe(true);
    await check('overview-empty');
    await openFromNav('Clients');
    await expect(page.getByText(/No clients yet/).isVisible()).resolves.toBe(true);
    await openFromNav('Deliveries');
    await check('deliveries-choose-client');

    for (const [path, name] of [
      [`deliveries?client=${a.id}`, 'b-deliveries'],
      [`deliveries?client=${a.id}&delivery=${deliveryId}`, 'b-delivery'],
      [`flows?client=${a.id}`, 'b-flows'],
      [`flows?client=${a.id}&flow=${flow.id}`, 'b-flow'],
      [`messages?client=${a.id}&id=wamid.x`, 'b-message'],
    ] as const) {
      await page.goto(url(path));
      const alert = page.getByRole('alert');
      await alert.waitFor();
      await expect(alert.textContent()).resolves.toMatch(/not found/i);
      expect(await page.content()).not.toContain('A private');
      await check(`isolation-${name}`);
    }
  });
});
