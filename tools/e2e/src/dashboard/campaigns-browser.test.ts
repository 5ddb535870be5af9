import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import { SimControl, waitFor } from '@gateway/testing';
import { campaign, clientWithTemplates, type SimPhone } from '../campaigns/testing';
import { launchChromium, nonPublicCalls, screenshot, seriousViolations, watchApiCalls, watchConsole } from './testing/browser';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON */

/** Long enough for a loaded two-core machine; every wait is for a state, never a fixed time. */
const UI_TIMEOUT_MS = 45_000;
/** A campaign's whole run (a few dozen recipients at a few per second, their statuses): a budget, not a speed goal. */
const RUN_TIMEOUT_MS = 120_000;
jest.setTimeout(300_000);

const digits = (n: string) => n.replace(/^\+/, '');

/*
 * The Campaigns page (issue 26) in Chromium against a real gateway and the provider simulator: a campaign made
 * from a CSV file with its preview and a test send, started and followed to completed without a reload, its
 * recipients filtered and exported; another made from pasted lines, paused, resumed and cancelled, each after
 * its confirmation. Axe checks every state; the screenshots go to .test-results/dashboard/campaigns-*.png.
 */
describe('the dashboard’s Campaigns page in Chromium', () => {
  let stack: Stack;
  let sim: SimControl;
  let browser: Browser;
  let api: ApiClient;
  let apiKey: string;
  let clientId: string;
  let phone: SimPhone;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let apiCalls: string[];
  let dir: string;

  const url = (path: string) => `${stack.baseUrl}/dashboard/${path}`;
  const settled = () => page.locator('.state.loading').first().waitFor({ state: 'detached' });
  const badge = () => page.locator('#campaign-title .badge');
  const stat = (label: string) => page.locator('.counts .stat', { has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) }).locator('dd');
  const actions = () => page.locator('#campaign-title + .actions');
  const bar = () => page.getByRole('progressbar', { name: 'Progress' });
  const rows = () => page.locator('section[aria-labelledby="recipients-title"] tbody tr');

  async function check(name: string): Promise<void> {
    await settled();
    await screenshot(page, `campaigns-${name}`);
    expect(await seriousViolations(page)).toEqual([]);
  }

  async function signInToCampaigns(): Promise<void> {
    await page.goto(url(''));
    await page.getByLabel('API key', { exact: true }).fill(apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Campaigns' }).click();
    await page.getByRole('heading', { level: 1, name: 'Campaigns' }).waitFor();
  }

  async function chooseClient(): Promise<void> {
    const picker = page.getByLabel('Client', { exact: true });
    await page.locator('#client option', { hasText: 'Shop' }).first().waitFor({ state: 'attached' });
    await picker.selectOption(clientId);
    await page.getByRole('heading', { level: 2, name: 'Campaigns' }).waitFor();
    await settled();
  }

  async function newCampaign(name: string): Promise<void> {
    await page.getByRole('link', { name: 'New campaign' }).click();
    await page.getByRole('heading', { level: 2, name: 'New campaign' }).waitFor();
    await settled();
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByLabel('Template', { exact: true }).selectOption({ label: 'shipping_notice (en_US) · utility' });
  }

  /** Opens the action's confirmation, checks it, and confirms (or keeps things as they are with `keep`). */
  async function control(button: string, confirmLabel: string, opts: { shot?: string; keep?: string } = {}): Promise<void> {
    await actions().getByRole('button', { name: button, exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    if (opts.shot) await check(opts.shot);
    await dialog.getByRole('button', { name: opts.keep ?? confirmLabel, exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
  }

  const waitText = (locator: ReturnType<Page['locator']>, ok: (text: string) => boolean, what: string) =>
    waitFor(async () => ok((await locator.textContent()) ?? ''), { timeoutMs: RUN_TIMEOUT_MS, intervalMs: 250, what });

  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'messaging', 'edge'] });
    sim = new SimControl(stack.sim!.url);
    const tenant = await stack.createTenant({ name: 'Campaigner' });
    ({ api, apiKey } = tenant);
    ({ clientId, phone } = await clientWithTemplates(stack, api));
    await sim.autoStatuses(true);
    browser = await launchChromium();
    dir = mkdtempSync(join(tmpdir(), 'campaigns-ui-'));
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await sim?.autoStatuses(false).catch(() => undefined);
    await stack?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    context.setDefaultTimeout(UI_TIMEOUT_MS);
    page = await context.newPage();
    problems = watchConsole(page);
    apiCalls = watchApiCalls(page);
  });
  afterEach(async () => {
    await context?.close();
    expect(problems).toEqual([]);
    expect(nonPublicCalls(apiCalls, stack.baseUrl)).toEqual([]);
  });

  it('creates a campaign from a CSV (preview, test send), starts it after a confirmation, follows it to completed without a reload, filters and exports its recipients', async () => {
    // 22 recipients (one line twice: sent once); the 5th fails at the provider
    const numbers = Array.from({ length: 22 }, (_, i) => `+1650777${String(1000 + i)}`);
    const lines = numbers.map((n, i) => `${n},Ann ${i},"A-${i}, blue"`);
    const csv = join(dir, 'recipients.csv');
    writeFileSync(csv, ['to,1,2', ...lines, lines[3]].join('\r\n') + '\r\n');
    const badCsv = join(dir, 'wrong-columns.csv');
    writeFileSync(badCsv, 'to,first_name\n+16507770001,Ann\n');
    // the provider reports it failed (131026), which the recipients table shows
    await sim.send('PUT', '/_sim/undeliverable', { numbers: [numbers[4]], code: 131026 });

    await signInToCampaigns();
    await page.getByText('Choose a client to see its campaigns').waitFor();
    await check('choose-client');
    await chooseClient();
    await page.getByText('This client has no campaigns yet.').waitFor();
    await check('empty');

    await newCampaign('Shipping notices');
    await page.getByText('A header row to,1,2').waitFor();
    // a file whose columns do not fit the template: told before anything is created
    await page.getByLabel('CSV file', { exact: true }).setInputFiles(badCsv);
    await page.getByText('The columns do not match the template').waitFor();
    await expect(page.locator('#recipients-problems').textContent()).resolves.toContain('Missing: 1, 2. Not in the template: first_name.');
    await check('new-wrong-columns');

    await page.getByLabel('CSV file', { exact: true }).setInputFiles(csv);
    await page.getByText('22 recipients read (1 more line repeated a number: each number is sent once).').waitFor();
    const preview = page.getByTestId('campaign-preview');
    await waitText(preview, (t) => t === 'Hi Ann 0, order A-0, blue ships today', 'the preview filled from the first row');
    await expect(page.locator('.preview').textContent()).resolves.toContain(`To ${numbers[0]}`);
    await page.getByLabel('Messages per second (optional)').fill('4');
    await check('new-preview');

    // the test send: the first row's values to one number, through send-template
    await page.getByLabel('Test number').fill('+16505550999');
    await page.getByRole('button', { name: 'Send test message' }).click();
    await page.getByText('Test message sent to +16505550999').waitFor();
    const testArrival = await waitFor(async () => (await sim.sends(phone.phone_number_id)).find((s) => digits(s.to) === '16505550999'), {
      timeoutMs: UI_TIMEOUT_MS,
      what: 'the test send at the simulator',
    });
    expect(testArrival.accepted).toBe(true);
    const testBody = (await sim.calls(`/${phone.phone_number_id}/messages`)).find((c) => digits(String((c.body as any)?.to)) === '16505550999')!.body as any;
    expect(testBody.template).toMatchObject({
      name: 'shipping_notice',
      components: [
        {
          type: 'body',
          parameters: [
            { type: 'text', text: 'Ann 0' },
            { type: 'text', text: 'A-0, blue' },
          ],
        },
      ],
    });
    await check('new-test-sent');

    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.getByRole('heading', { level: 2, name: /Shipping notices/ }).waitFor();
    await settled();
    await expect(badge().textContent()).resolves.toBe('draft');
    await page.getByText('Created as a draft with 22 recipients').waitFor();
    const id = new URL(page.url()).searchParams.get('campaign')!;
    expect((await campaign(api, id)).rate_per_second).toBe(4);
    await expect(stat('Recipients').textContent()).resolves.toBe('22');
    await expect(bar().getAttribute('aria-valuenow')).resolves.toBe('0');
    await expect(bar().getAttribute('aria-valuetext')).resolves.toBe('0 %: 0 of 22 recipients done, 22 waiting');
    await check('draft');

    // started after its confirmation; from here on the page is never reloaded
    await page.evaluate(() => ((window as any).__sameDocument = true));
    await control('Start', 'Start sending', { shot: 'start-confirm' });
    const seen = new Set<string>();
    await waitFor(
      async () => {
        seen.add((await bar().getAttribute('aria-valuenow')) ?? '');
        return (await badge().textContent()) === 'completed';
      },
      { timeoutMs: RUN_TIMEOUT_MS, intervalMs: 200, what: 'the campaign completed on the page' },
    );
    expect(await page.evaluate(() => (window as any).__sameDocument)).toBe(true);
    // the bar moved on its own (the counts were read again while it ran), ending full
    expect([...seen].some((v) => v !== '0' && v !== '100')).toBe(true);
    await expect(bar().getAttribute('aria-valuenow')).resolves.toBe('100');
    await expect(bar().getAttribute('aria-valuetext')).resolves.toBe('100 %: 22 of 22 recipients done');
    await expect(stat('Failed').textContent()).resolves.toBe('1');
    const final = await campaign(api, id);
    expect(final.counts.delivered + final.counts.read).toBe(21);
    // (a delivered one may still be read after it completed: the two together are what the page must show)
    expect(Number(await stat('Delivered').textContent()) + Number(await stat('Read').textContent())).toBe(21);
    // each recipient reached the provider once
    const sent = (await sim.sends(phone.phone_number_id)).filter((s) => numbers.map(digits).includes(digits(s.to)));
    expect(sent.map((s) => digits(s.to)).sort()).toEqual(numbers.map(digits).sort());
    await check('completed');

    // the recipients: a page of 20 then 2, filtered by status
    await waitFor(async () => (await rows().count()) === 20, { timeoutMs: UI_TIMEOUT_MS, what: 'the first page of recipients' });
    await page.getByRole('navigation', { name: 'Recipients pages' }).getByRole('button', { name: 'Next page' }).click();
    await page.getByText('Page 2').waitFor();
    await page.locator('tbody th', { hasText: numbers[21] }).waitFor();
    await expect(rows().count()).resolves.toBe(2);
    await page.getByLabel('Status', { exact: true }).selectOption('failed');
    await page.locator('tbody th', { hasText: numbers[4] }).waitFor();
    await settled();
    await expect(rows().count()).resolves.toBe(1);
    await expect(rows().first().textContent()).resolves.toContain('131026');
    await check('filtered-failed');
    await page.getByLabel('Status', { exact: true }).selectOption('queued');
    await page.getByText('No recipient is queued.').waitFor();
    await check('filtered-none');
    expect(await page.evaluate(() => (window as any).__sameDocument)).toBe(true);

    // the export, with the dashboard's session cookie
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export all recipients (CSV)' }).click()]);
    expect(download.suggestedFilename()).toBe(`campaign-${id}.csv`);
    const exported = readFileSync((await download.path())!, 'utf8')
      .trim()
      .split('\n');
    expect(exported[0]).toBe('to,status,message_id,error_code,reason,updated_at');
    expect(exported.slice(1).map((l) => `+${l.split(',')[0]}`)).toEqual(numbers);
    expect(exported.find((l) => l.startsWith(digits(numbers[4])))).toContain(',failed,');

    // the list shows it completed
    await page.getByRole('link', { name: '← All campaigns of this client' }).click();
    const row = page.getByRole('row', { name: /Shipping notices/ });
    await row.waitFor();
    await expect(row.locator('.badge').textContent()).resolves.toBe('completed');
    await expect(row.textContent()).resolves.toContain('100 % (22 of 22)');
    await check('list');
  });

  it('pauses, resumes and cancels a campaign of pasted numbers, each after its confirmation', async () => {
    const numbers = Array.from({ length: 40 }, (_, i) => `+1650778${String(1000 + i)}`);
    await signInToCampaigns();
    await chooseClient();
    await newCampaign('Weekend reminders');
    await page.getByLabel('Paste numbers').check();
    await page.getByLabel('Recipients, one per line').fill(`${numbers[0]},Bo\n`);
    await page.getByText('Line 1 has 2 fields; 3 expected.').waitFor();
    await check('new-paste-problem');
    await page.getByLabel('Recipients, one per line').fill(numbers.map((n, i) => `${n},Bo ${i},B-${i}`).join('\n'));
    await page.getByText('40 recipients read.').waitFor();
    await waitText(page.getByTestId('campaign-preview'), (t) => t === 'Hi Bo 0, order B-0 ships today', 'the preview of the pasted lines');
    await page.getByLabel('Messages per second (optional)').fill('2');
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.getByRole('heading', { level: 2, name: /Weekend reminders/ }).waitFor();
    await settled();
    const id = new URL(page.url()).searchParams.get('campaign')!;
    await expect(stat('Recipients').textContent()).resolves.toBe('40');

    await control('Start', 'Start sending');
    await waitText(badge(), (t) => t === 'running', 'running');
    await waitText(stat('Waiting'), (t) => Number(t) <= 38, 'a few sends');

    // pause: first kept running from the dialog, then paused
    await control('Pause', 'Pause campaign', { shot: 'pause-confirm', keep: 'Keep sending' });
    expect((await campaign(api, id)).status).toBe('running');
    await control('Pause', 'Pause campaign');
    await waitText(badge(), (t) => t === 'paused', 'paused on the page');
    expect((await campaign(api, id)).status).toBe('paused');
    await page.getByText('Paused.', { exact: true }).waitFor();
    await check('paused');

    await control('Resume', 'Resume campaign', { shot: 'resume-confirm' });
    await waitText(badge(), (t) => t === 'running', 'running again');
    await control('Cancel campaign', 'Cancel campaign', { shot: 'cancel-confirm' });
    await waitText(badge(), (t) => t === 'cancelled', 'cancelled on the page');
    const done = await waitFor(
      async () => {
        const c = await campaign(api, id);
        return c.counts.queued === 0 ? c : undefined;
      },
      { timeoutMs: UI_TIMEOUT_MS, what: 'nothing queued' },
    );
    expect(done.status).toBe('cancelled');
    expect(done.counts.skipped).toBeGreaterThan(0);
    // the page shows what the API says, with no control left but Refresh
    await page.getByRole('button', { name: 'Refresh', exact: true }).click();
    await waitText(stat('Skipped'), (t) => t === String(done.counts.skipped), 'the skipped count');
    await expect(
      actions()
        .getByRole('button', { name: /Start|Pause|Resume|Cancel/ })
        .count(),
    ).resolves.toBe(0);
    await page.getByLabel('Status', { exact: true }).selectOption('skipped');
    await waitFor(async () => (await rows().count()) === Math.min(20, done.counts.skipped), { timeoutMs: UI_TIMEOUT_MS, what: 'the skipped recipients' });
    await expect(rows().first().textContent()).resolves.toContain('cancelled');
    await check('cancelled');
    // no one twice
    const arrivals = (await sim.sends(phone.phone_number_id)).filter((s) => numbers.map(digits).includes(digits(s.to)));
    expect(new Set(arrivals.map((a) => a.to)).size).toBe(arrivals.length);
    expect(arrivals.length).toBe(40 - done.counts.skipped);
  });
  it('schedules a campaign for later: it waits as scheduled until started from its page after a confirmation', async () => {
    const numbers = ['+16507791000', '+16507791001'];
    const at = new Date(Date.now() + 2 * 3600_000);
    // the datetime-local input takes the browser's local time (the same zone as this process)
    const local = new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    await signInToCampaigns();
    await chooseClient();
    await newCampaign('Later');
    await page.getByLabel('Paste numbers').check();
    await page.getByLabel('Recipients, one per line').fill(numbers.map((n, i) => `${n},Cy ${i},C-${i}`).join('\n'));
    await page.getByText('2 recipients read.').waitFor();
    await page.getByLabel('Start at (optional)').fill(local);
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.getByRole('heading', { level: 2, name: /Later/ }).waitFor();
    await settled();
    await expect(badge().textContent()).resolves.toBe('scheduled');
    await page.getByText('Created: it starts by itself at the scheduled time.').waitFor();
    const id = new URL(page.url()).searchParams.get('campaign')!;
    const scheduled = await campaign(api, id);
    expect(Math.abs(Date.parse(scheduled.schedule_at) - at.getTime())).toBeLessThan(60_000);
    await expect(page.locator('.props').textContent()).resolves.toContain('Scheduled for');
    await check('scheduled');

    // more recipients from its page: a refused line is named (the lines before it are kept), a known number is sent once
    const bad = join(dir, 'more-bad.csv');
    writeFileSync(bad, 'to,1,2\n+16507791002,Cy 2,C-2\nnot-a-number,Cy 3,C-3\n');
    await page.getByLabel('CSV file', { exact: true }).setInputFiles(bad);
    await page.getByRole('button', { name: 'Upload recipients' }).click();
    await page.getByText('Line 3: to must be a phone number').waitFor();
    await waitText(stat('Recipients'), (t) => t === '3', 'the line before the refused one added');
    await check('add-recipients-refused');
    const more = join(dir, 'more.csv');
    writeFileSync(more, `to,1,2\n${numbers[0]},Cy 0,C-0\n+16507791003,Cy 3,C-3\n`);
    await page.getByLabel('CSV file', { exact: true }).setInputFiles(more);
    await page.getByRole('button', { name: 'Upload recipients' }).click();
    await page.getByText('Added 1 recipient (1 already in the campaign: sent once); 4 in all.').waitFor();
    await waitText(stat('Recipients'), (t) => t === '4', 'four recipients');
    numbers.push('+16507791002', '+16507791003');

    await control('Start now', 'Start sending');
    await waitText(badge(), (t) => t === 'completed', 'the scheduled campaign started now and completed');
    const arrivals = (await sim.sends(phone.phone_number_id)).filter((s) => numbers.map(digits).includes(digits(s.to)));
    expect(arrivals.map((a) => digits(a.to)).sort()).toEqual(numbers.map(digits).sort());

    // a campaign that is not the tenant's (a direct link): the API's "not found", no controls
    const other = await stack.createTenant({ name: 'Other campaigner' });
    const { clientId: otherClient } = await clientWithTemplates(stack, other.api);
    const foreign = await other.api.post<{ id: string }>('/api/campaigns', {
      client_id: otherClient,
      name: 'Not yours',
      template_name: 'shipping_notice',
      lang: 'en_US',
      recipients: [{ to: '+16507799999', parameters: ['Di', 'D-1'] }],
    });
    expect(foreign.status).toBe(201);
    await page.goto(url(`campaigns?client=${clientId}&campaign=${foreign.json.id}`));
    await page.getByRole('alert').getByText('Campaign not found').waitFor();
    await expect(page.getByText('Not yours').count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: /Start|Cancel campaign/ }).count()).resolves.toBe(0);
    await check('not-found');
  });
});
