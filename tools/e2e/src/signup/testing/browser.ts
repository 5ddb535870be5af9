export { CHROMIUM_PATH, launchChromium } from '../../testing/chromium';
