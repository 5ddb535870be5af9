import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

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
