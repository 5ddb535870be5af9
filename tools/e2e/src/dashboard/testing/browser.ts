import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { source as axeSource } from 'axe-core';
import { type Browser, type Page } from 'playwright-core';
import { launchChromium as launchDebianChromium } from '../../testing/chromium';

const ROOT = resolve(__dirname, '..', '..', '..', '..', '..');
export const DASHBOARD_DIST = resolve(ROOT, 'dist', 'apps', 'dashboard');
/** Screenshots land here (the test output folder), one PNG per page and state, for a reviewer to look at. */
export const SCREENSHOT_DIR = resolve(ROOT, '.test-results', 'dashboard');
export { CHROMIUM_PATH, clickClosing } from '../../testing/chromium';

/** Chromium for the dashboard, which must have been built (`npm test` builds it first). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(resolve(DASHBOARD_DIST, 'index.html'))) throw new Error(`the dashboard is not built: npx nx run dashboard:build (npm test builds it first)`);
  return launchDebianChromium();
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = resolve(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** What AxeBuilder evaluates as axe's source once axe is in the document already (`seriousViolations`). */
const AXE_IN_PAGE = ';';

/**
 * The accessibility check: serious and critical violations of WCAG 2.x A/AA rules, as readable lines.
 *
 * axe runs in the page itself (legacy mode), listing violations only: the default mode finishes every run in a new
 * blank page and lists every passing element too, which made two thirds of a browser test's time (66 checks of
 * the dashboard test: 54 s, now 18 s) for the same violations. What legacy mode cannot see is a cross-origin
 * frame; the dashboard has none, and a page with a frame is refused here rather than checked in part.
 *
 * axe's source (560 KB) goes into a document once: AxeBuilder evaluates it twice at every check (about 270 ms each
 * on a quiet 2-core machine, against 130–250 ms for the run itself), and the dashboard's pages are one document
 * from sign-in to sign-out. A check in a document that has axe already hands AxeBuilder an empty source.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  const frames = page.frames().length - 1;
  if (frames > 0) throw new Error(`the page has ${frames} frame(s): check it with AxeBuilder's default mode, which covers frames`);
  if (!(await page.evaluate('typeof window.axe?.run === "function"'))) await page.evaluate(axeSource);
  const result = await new AxeBuilder({ page, axeSource: AXE_IN_PAGE })
    .setLegacyMode(true)
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'])
    .options({ resultTypes: ['violations'] })
    .analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

/** Collects what the browser reports against the page: CSP violations and uncaught errors. */
export function watchConsole(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  return problems;
}

/** Every API request the page makes (fetch and XHR), as `METHOD url` lines, in order. */
export function watchApiCalls(page: Page): string[] {
  const calls: string[] = [];
  page.on('request', (r) => {
    if (r.resourceType() === 'fetch' || r.resourceType() === 'xhr') calls.push(`${r.method()} ${r.url()}`);
  });
  return calls;
}

/** The calls that are not the public API (or its session route) of the gateway at `baseUrl`: no private back door. */
export function nonPublicCalls(calls: string[], baseUrl: string): string[] {
  const publicRoute = new RegExp(`^(GET|POST|PUT|PATCH|DELETE) ${baseUrl.replace(/[.]/g, '\\.')}(/api/[^?]*|/dashboard/session)(\\?.*)?$`);
  return calls.filter((c) => !publicRoute.test(c));
}
