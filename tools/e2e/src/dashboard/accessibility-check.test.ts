import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../testing/chromium';
import { seriousViolations } from './testing/browser';

/** The browser tests' accessibility check itself: what it finds, and what it refuses to check in part. */
describe('the accessibility check of the browser tests', () => {
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser.close();
  });
  beforeEach(async () => {
    page = await browser.newPage();
  });
  afterEach(async () => {
    await page.close();
  });

  it('finds the serious violations of a page: an image without text, a nameless button, text without contrast', async () => {
    await page.setContent(`<!doctype html><html lang="en"><head><title>Bad</title></head><body><main>
      <h1>Orders</h1>
      <img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
      <button></button>
      <p style="color:#eee;background:#fff">Pale text</p>
    </main></body></html>`);
    const found = await seriousViolations(page);
    expect(found.map((line) => line.split(':')[0])).toEqual(expect.arrayContaining(['critical image-alt', 'critical button-name', 'serious color-contrast']));
  });

  it('finds nothing on a page without such faults', async () => {
    await page.setContent(`<!doctype html><html lang="en"><head><title>Good</title></head><body><main>
      <h1>Orders</h1>
      <img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="Shop logo">
      <button type="button">Refresh</button>
      <p style="color:#222;background:#fff">Readable text</p>
    </main></body></html>`);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('checks the document as it is now at every check, axe put into it once, and again into a new document', async () => {
    const good = `<!doctype html><html lang="en"><head><title>Good</title></head><body><main><h1>Orders</h1>
      <button type="button">Refresh</button></main></body></html>`;
    await page.setContent(good);
    expect(await seriousViolations(page)).toEqual([]);
    // the page changes in the same document (as the dashboard's pages do): the next check sees the change, with
    // the axe it had (a mark on it stays: its source was not evaluated again)
    await page.evaluate(`window.axe.checkedOnce = true; document.querySelector('main').append(document.createElement('button'))`);
    expect((await seriousViolations(page)).map((line) => line.split(':')[0])).toEqual(['critical button-name']);
    expect(await page.evaluate('window.axe.checkedOnce')).toBe(true);
    // a new document: axe is put into it again
    await page.goto(`data:text/html,${encodeURIComponent(good)}`);
    expect(await page.evaluate('typeof window.axe')).toBe('undefined');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('refuses a page with a frame instead of checking it in part', async () => {
    await page.setContent(`<!doctype html><html lang="en"><head><title>Framed</title></head><body><main><h1>Framed</h1>
      <iframe title="inner" srcdoc="<p>inside</p>"></iframe></main></body></html>`);
    await expect(seriousViolations(page)).rejects.toThrow(/1 frame/);
  });
});
