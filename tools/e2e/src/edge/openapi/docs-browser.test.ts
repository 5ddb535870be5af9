import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { type Browser } from 'playwright-core';
import { launchChromium } from '../../testing/chromium';
import { startStack, type Stack } from '@gateway/test-stack';
import { DOCS_CSP, SCALAR_VERSION } from '@gateway/app-edge';

const SCREENSHOT_DIR = resolve(__dirname, '../../../../../.test-results/docs');

describe('GET /docs: the browsable API reference', () => {
  let stack: Stack;
  let browser: Browser;
  beforeAll(async () => {
    stack = await startStack({ services: ['edge'], sim: false });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('is served with a strict CSP, and its scripts come from this origin', async () => {
    const api = stack.api();
    const page = await api.get('/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toBe(DOCS_CSP);
    expect(DOCS_CSP).toContain("script-src 'self'");
    expect(DOCS_CSP).not.toMatch(/script-src[^;]*(unsafe|https?:|\*)/);
    // inline stylesheets only by hash (the renderer's own), pinned for the installed renderer
    expect(DOCS_CSP).toMatch(/style-src 'self'( 'sha256-[A-Za-z0-9+/=]+')+;/);
    const installed = JSON.parse(readFileSync(resolve(dirname(require.resolve('@scalar/api-reference')), '..', 'package.json'), 'utf8')) as { version: string };
    expect(installed.version).toBe(SCALAR_VERSION);
    expect(page.text).not.toMatch(/<script>|https?:\/\//);
    const renderer = await api.get('/docs/scalar.js');
    expect(renderer.status).toBe(200);
    expect(renderer.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(renderer.text.length).toBeGreaterThan(100_000);
    const init = await api.get('/docs/init.js');
    expect(init.text).toContain("'/openapi.json'".replace(/'/g, '"'));
    expect((await api.get('/docs/other.js')).status).toBe(404);
  });

  it('renders every operation in headless Chromium with no console error and no request leaving the gateway', async () => {
    const origin = new URL(stack.baseUrl).origin;
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    const foreign: string[] = [];
    const seen: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    page.on('response', (r) => r.status() >= 400 && errors.push(`${r.status()} ${r.url()}`));
    page.on('request', (r) => {
      seen.push(r.url());
      if (!r.url().startsWith(`${origin}/`) && !r.url().startsWith('data:')) foreign.push(r.url());
    });
    await page.goto(`${stack.baseUrl}/docs`, { waitUntil: 'networkidle' });
    await page.getByText('Business messaging gateway').first().waitFor({ timeout: 30_000 });
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    await page.screenshot({ path: resolve(SCREENSHOT_DIR, 'docs-top.png') });
    // an area opens from the sidebar and lists its operations by their summaries
    await page.getByText('Messaging', { exact: true }).first().click();
    await page.getByText('Send reply buttons', { exact: false }).first().waitFor({ timeout: 30_000 });
    await page.getByText('Send reply buttons', { exact: false }).first().click();
    await page.getByText('Idempotency-Key', { exact: false }).first().waitFor({ timeout: 30_000 });
    await page.screenshot({ path: resolve(SCREENSHOT_DIR, 'docs-send-buttons.png') });
    // and the webhooks (events) too
    await page.getByText('Events', { exact: true }).first().click();
    await page.getByText('chat event', { exact: false }).first().click();
    await page.getByText('webhook-signature', { exact: false }).first().waitFor({ timeout: 30_000 });
    await page.screenshot({ path: resolve(SCREENSHOT_DIR, 'docs-webhook-chat.png') });
    expect(seen).toEqual(expect.arrayContaining([`${origin}/openapi.json`, `${origin}/docs/scalar.js`]));
    expect(foreign).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
