import { PAGE_SCRIPT } from './script';

/** What the page script is given (embedded as JSON, never interpolated into code). */
export interface PageModel {
  clientId: string;
  displayName: string;
  state: string;
  appId: string;
  configId: string;
  apiVersion: string;
  sdkUrl: string;
  providerOrigins: string[];
}

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** JSON inside a <script> element: `<` escaped, so no value can close the element. */
const scriptJson = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c');

const STYLES = `
  :root { color-scheme: light dark; --accent: #0b6e4f; --fail: #b3261e; --muted: #5f6368; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; background: Canvas; color: CanvasText; }
  main { max-width: 36rem; margin: 3rem auto; padding: 2rem; border: 1px solid color-mix(in srgb, CanvasText 15%, transparent); border-radius: .75rem; }
  h1 { font-size: 1.5rem; margin: 0 0 .75rem; }
  h2 { font-size: 1.2rem; margin: 0 0 .5rem; }
  ol { padding-left: 1.25rem; }
  li { margin: .4rem 0; }
  .step-state { color: var(--muted); font-size: .9rem; margin-left: .35rem; }
  li[data-state="active"] .step-state { color: inherit; font-weight: 600; }
  li[data-state="done"] .step-state { color: var(--accent); }
  li[data-state="failed"] .step-state { color: var(--fail); }
  button { font: inherit; padding: .65rem 1.4rem; border: 0; border-radius: .5rem; background: var(--accent); color: #fff; cursor: pointer; }
  button[disabled] { opacity: .6; cursor: default; }
  button:focus-visible, a:focus-visible, #outcome:focus-visible { outline: 3px solid color-mix(in srgb, var(--accent) 60%, CanvasText); outline-offset: 2px; }
  #outcome { padding: 1rem; border-radius: .5rem; border-left: .35rem solid var(--accent); margin: 1rem 0; }
  #outcome[data-kind="failure"] { border-left-color: var(--fail); }
  .muted { color: var(--muted); }
  .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
`;

function layout(title: string, body: string, nonce: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style nonce="${nonce}">${STYLES}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

/** The embedded-signup page of a pending client. */
export function renderSignupPage(m: PageModel, nonce: string): string {
  const config = {
    client_id: m.clientId,
    state: m.state,
    app_id: m.appId,
    config_id: m.configId,
    api_version: m.apiVersion,
    sdk_url: m.sdkUrl,
    provider_origins: m.providerOrigins,
    complete_url: `/signup/${m.clientId}/complete`,
    fail_url: `/signup/${m.clientId}/fail`,
  };
  const step = (name: string, label: string) =>
    `<li id="step-${name}" data-state="todo">${label}<span class="visually-hidden">: </span><span class="step-state">Not started</span></li>`;
  return layout(
    `Connect your business account · ${m.displayName}`,
    `<main aria-labelledby="title">
  <h1 id="title">Connect your business messaging account</h1>
  <p>For <strong>${escapeHtml(m.displayName)}</strong>. The messaging provider opens a window where you sign in and choose the business account and phone number to connect.</p>
  <ol aria-label="Progress">
    ${step('connect', 'Sign in with the provider')}
    ${step('details', 'Choose the business account and phone number')}
    ${step('finish', 'Finish the setup')}
  </ol>
  <p id="status" role="status" aria-live="polite" class="muted">Loading the provider’s signup…</p>
  <section id="outcome" hidden tabindex="-1" aria-labelledby="outcome-title">
    <h2 id="outcome-title"></h2>
    <p id="outcome-text"></p>
    <p><a id="outcome-link" hidden href="#">Continue</a></p>
  </section>
  <button type="button" id="start" disabled>Connect account</button>
  <noscript><p>This page needs JavaScript to open the provider’s signup window.</p></noscript>
</main>
<script type="application/json" id="signup-config">${scriptJson(config)}</script>
<script nonce="${nonce}">${PAGE_SCRIPT}</script>`,
    nonce,
  );
}

/** A page with a heading, a message and an optional link: unknown link, already completed, unavailable. */
export function renderMessagePage(title: string, message: string, nonce: string, link?: { href: string; text: string }): string {
  return layout(
    title,
    `<main aria-labelledby="title">
  <h1 id="title">${escapeHtml(title)}</h1>
  <p>${escapeHtml(message)}</p>
  ${link ? `<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.text)}</a></p>` : ''}
</main>`,
    nonce,
  );
}
