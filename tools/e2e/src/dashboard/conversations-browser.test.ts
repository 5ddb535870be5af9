import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import { SimControl, startWebhookReceiver, waitFor, type WebhookReceiver } from '@gateway/testing';
import { launchChromium, screenshot, seriousViolations, watchConsole } from './testing/browser';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON */

/** Long enough for a loaded two-core machine; every wait is for a state, never a fixed time. */
const UI_TIMEOUT_MS = 30_000;
jest.setTimeout(180_000);

/** A 1×1 PNG and a one-page PDF: real files, as the edge reads the type from the bytes (docs/media.md). */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const PDF = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n');

/**
 * Issue 27 in the dashboard, in Chromium against a real gateway: the Overview's charts of messages per day, the
 * delivery success rate and webhook delivery outcomes (drawn, with their numbers in a table for screen readers),
 * and the Inbox's compose box sending an image and a document it uploaded.
 */
describe('dashboard: activity charts and media from the Inbox', () => {
  let stack: Stack;
  let sim: SimControl;
  let receiver: WebhookReceiver;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let tenant: { api: ApiClient; apiKey: string };
  let client: { id: string; phone_number_id: string };
  const user = '16505551234';
  const today = new Date().toISOString().slice(0, 10);

  const url = (path: string) => `${stack.baseUrl}/dashboard/${path}`;
  const settled = () => page.locator('.state.loading').first().waitFor({ state: 'detached' });
  async function check(name: string): Promise<void> {
    await settled();
    await screenshot(page, name);
    expect(await seriousViolations(page)).toEqual([]);
  }
  async function signIn(): Promise<void> {
    await page.goto(url(''));
    await page.getByLabel('API key', { exact: true }).fill(tenant.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  }
  const send = async (text: string, statuses: string[]) => {
    const res = await tenant.api.post('/api/messaging/send-text', { client_id: client.id, to: `+${user}`, text });
    expect(res.status).toBe(200);
    const id = res.headers.get('x-message-id')!;
    await sim.sendStatuses(id, statuses, statuses.includes('failed') ? { errors: [{ code: 131026, title: 'Message undeliverable' }] } : {});
    await waitFor(async () => (await tenant.api.get<any>(`/api/messages/${id}?client_id=${client.id}`)).json.status === statuses.at(-1), {
      what: `the send ${statuses.at(-1)}`,
      timeoutMs: UI_TIMEOUT_MS,
    });
  };

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    stack = await startStack({ services: ['tenant-directory', 'messaging', 'dispatcher', 'signup', 'flows', 'edge'] });
    sim = new SimControl(stack.sim!.url);
    await sim.autoStatuses(false);
    tenant = await stack.createTenant({ name: 'Charts', webhook_url: receiver.url });
    const account = await sim.phoneNumber();
    const res = await tenant.api.post<any>('/api/clients/', {
      display_name: 'Chart shop',
      business_account_id: account.waba_id,
      phone_number_id: account.phone_number_id,
      access_token: account.access_token,
    });
    expect(res.status).toBe(200);
    client = { id: res.json.id, phone_number_id: account.phone_number_id };
    // two inbound messages (a text and an image) and three sends: delivered, read, failed
    await sim.inboundMessage(client.phone_number_id, user, 'text', { body: 'Hello there' });
    await sim.inboundMedia(client.phone_number_id, user, 'image', { caption: 'my receipt' });
    await waitFor(async () => (await tenant.api.get<any>(`/api/messages?client_id=${client.id}&direction=in`)).json.data.length === 2, {
      what: 'the inbound messages logged',
      timeoutMs: UI_TIMEOUT_MS,
    });
    await send('one', ['sent', 'delivered']);
    await send('two', ['sent', 'delivered', 'read']);
    await send('three', ['failed']);
    browser = await launchChromium();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await receiver?.close();
  });
  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    context.setDefaultTimeout(UI_TIMEOUT_MS);
    page = await context.newPage();
    problems = watchConsole(page);
  });
  afterEach(async () => {
    await context?.close();
    expect(problems).toEqual([]);
  });

  /** The cells of today's row of a chart's table. */
  const todayRow = async (id: string) => {
    const row = page.locator(`#${id}-table tbody tr`, { has: page.locator('th', { hasText: today }) });
    return row.locator('td').allTextContents();
  };

  it('the Overview charts messages per day, the delivery success rate and webhook outcomes, each with its numbers as a table', async () => {
    // every webhook delivery has its outcome (the receiver answers 200): the numbers the chart must show
    const outcomes = await waitFor(
      async () => {
        const d = (await tenant.api.get<any>(`/api/clients/${client.id}/webhook/deliveries?limit=100`)).json.data;
        if (!d.length || d.some((x: any) => x.status === 'pending')) return undefined;
        const n: Record<string, number> = { succeeded: 0, failed: 0, pending: 0, skipped: 0 };
        for (const x of d) n[x.status]++;
        return n;
      },
      { what: 'every delivery with an outcome', timeoutMs: UI_TIMEOUT_MS },
    );
    expect(outcomes.succeeded).toBeGreaterThan(0);
    await signIn();
    await page.getByLabel('Client', { exact: true }).selectOption(client.id);
    await settled();
    expect(new URL(page.url()).searchParams.get('client')).toBe(client.id);
    for (const id of ['chart-messages', 'chart-rate', 'chart-webhooks']) await page.locator(`#${id}-canvas[data-drawn="true"]`).waitFor();
    // the canvases hold a drawing (pixels that are not blank)
    const inked = await page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLCanvasElement>('.chart canvas')).map((c) => {
        const px = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 3; i < px.length; i += 4) if (px[i] > 0) n++;
        return n;
      }),
    );
    expect(inked).toHaveLength(3);
    for (const n of inked) expect(n).toBeGreaterThan(500);
    // the text alternative: each canvas is an image named by its summary, each table holds today's numbers
    await expect(page.getByRole('img', { name: /^Messages per day, last 14 days\. 2 inbound and 3 outbound/ }).count()).resolves.toBe(1);
    await expect(page.getByRole('img', { name: /^Delivery success rate\. 66\.7 % \(2 of 3 sends/ }).count()).resolves.toBe(1);
    // Inbound, Sent not yet delivered, Delivered, Read or played, Failed
    expect(await todayRow('chart-messages')).toEqual(['2', '0', '1', '1', '1']);
    expect(await todayRow('chart-rate')).toEqual(['2', '1', '66.7 %']);
    expect(await todayRow('chart-webhooks')).toEqual([outcomes.succeeded, outcomes.failed, outcomes.pending, outcomes.skipped].map(String));
    await expect(page.locator('#chart-messages-table tbody tr').count()).resolves.toBe(14);
    await check('overview-charts');
    await page.getByText('Numbers of “Messages per day, last 14 days” as a table').click();
    await check('overview-charts-table');
    // every client of the tenant (it has one): the same numbers
    await page.getByLabel('Client', { exact: true }).selectOption('');
    await settled();
    await page.locator('#chart-messages-canvas[data-drawn="true"]').waitFor();
    expect(await todayRow('chart-messages')).toEqual(['2', '0', '1', '1', '1']);
  });

  it('the Inbox compose box uploads an image and a document and sends them by media id; an empty reply is refused on the page', async () => {
    const uploads: Array<{ id: string; mime_type: string }> = [];
    page.on('response', (r) => {
      if (r.request().method() === 'POST' && new URL(r.url()).pathname === '/api/media') void r.json().then((j) => uploads.push(j));
    });
    // a fresh message from the user: the 24-hour window is open
    await sim.inboundMessage(client.phone_number_id, user, 'text', { body: 'Can you send the invoice?' });
    const contact = await waitFor(
      async () =>
        (await tenant.api.get<any>(`/api/conversations?client_id=${client.id}`)).json.data.find(
          (c: any) => c.last_message?.text === 'Can you send the invoice?',
        ),
      { what: 'the conversation', timeoutMs: UI_TIMEOUT_MS },
    );
    await signIn();
    await page.goto(url(`inbox?client=${client.id}&contact=${contact.contact.id}`));
    await page.getByRole('heading', { name: 'Conversation with Test User' }).waitFor();
    await page.getByRole('status').getByText('Live').waitFor();
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByText('Write a message or attach a file.').waitFor();

    const mediaSends = async () => (await sim.calls('/messages')).filter((c) => c.method === 'POST' && ['image', 'document'].includes((c.body as any)?.type));
    await page.getByLabel('Attach an image or document (optional)').setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: PNG });
    await page.getByRole('textbox', { name: /^Message/ }).fill('Here is the photo');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByText('Sent.').waitFor();
    await waitFor(async () => uploads.length === 1 && (await mediaSends()).length === 1, { what: 'the image at the simulator', timeoutMs: UI_TIMEOUT_MS });
    expect(uploads[0].mime_type).toBe('image/png');
    expect((await mediaSends())[0].body).toMatchObject({
      to: expect.stringContaining(user),
      type: 'image',
      image: { id: uploads[0].id, caption: 'Here is the photo' },
    });
    await page.locator('.bubble-out', { hasText: 'Here is the photo' }).waitFor();
    // the form is empty again: a document next, without a caption
    await expect(page.getByLabel('Attach an image or document (optional)').inputValue()).resolves.toBe('');
    await page.getByLabel('Attach an image or document (optional)').setInputFiles({ name: 'invoice.pdf', mimeType: 'application/pdf', buffer: PDF });
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await waitFor(async () => uploads.length === 2 && (await mediaSends()).length === 2, { what: 'the document at the simulator', timeoutMs: UI_TIMEOUT_MS });
    expect(uploads[1].mime_type).toBe('application/pdf');
    expect((await mediaSends())[1].body).toMatchObject({
      to: expect.stringContaining(user),
      type: 'document',
      document: { id: uploads[1].id, filename: 'invoice.pdf' },
    });
    expect(((await mediaSends())[1].body as any).document).not.toHaveProperty('caption');
    // both are in the thread as the kinds they were sent as
    await waitFor(
      async () => {
        const thread = (await tenant.api.get<any>(`/api/conversations/${contact.contact.id}/messages?client_id=${client.id}`)).json.data;
        return thread[0]?.kind === 'document' && thread[1]?.kind === 'image';
      },
      { what: 'the image and document in the thread', timeoutMs: UI_TIMEOUT_MS },
    );
    await page.locator('.bubble-out', { hasText: '[document]' }).waitFor();
    await check('inbox-media-sent');
  });
});
