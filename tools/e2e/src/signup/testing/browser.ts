export { CHROMIUM_PATH, clickClosing, launchChromium } from '../../testing/chromium';
