import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's chromium package (`npm test` installs it when missing); never a downloaded browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Headless Debian Chromium with the flags this machine needs: without the background-networking ones it keeps
 * trying hosts the closed network refuses.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`${CHROMIUM_PATH} is missing: apt-get install -y chromium (npm test does it)`);
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * Clicks a button of a window that closes the window (the provider's signup window: Cancel at once, Finish once the
 * provider answered) and waits for it to close. A click the close cuts short ("Target page ... has been closed",
 * seen under load) did its job; any other failure of the click is one.
 */
export async function clickClosing(window: Page, name: string): Promise<void> {
  const closed = window.waitForEvent('close');
  const clicked = window
    .getByRole('button', { name })
    .click()
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  await closed;
  const failure = await clicked;
  if (failure && !/has been closed/.test(String(failure))) throw failure;
}
