import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Ids no simulator account has: what a forged session-info message claims. */
export const FORGED = { waba_id: '999000111222333', phone_number_id: '999000444555666', business_id: '999000777888999' };

/**
 * A page that opens the signup page (so it holds a reference to it) and keeps posting a forged
 * session-info FINISH message to it, the provider's exact shape, from its own origin. The page title
 * counts the messages posted.
 */
const ATTACKER_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>posted 0</title></head><body>
<button id="open" type="button">Open signup</button>
<script>
  var target = new URLSearchParams(location.search).get('target');
  var forged = JSON.stringify({ type: 'WA_EMBEDDED_SIGNUP', event: 'FINISH', version: 3, data: ${JSON.stringify(FORGED)} });
  var posted = 0;
  document.getElementById('open').addEventListener('click', function () {
    var signup = window.open(target, 'signup');
    setInterval(function () {
      try { signup.postMessage(forged, '*'); posted++; document.title = 'posted ' + posted; } catch (e) {}
    }, 25);
  });
</script></body></html>`;

export interface OtherSite {
  url: string;
  /** Landing pages reached (the tenant's redirect targets), with their query. */
  landings: Array<{ path: string; query: Record<string, string> }>;
  close(): Promise<void>;
}

/** Another origin: the tenant's redirect targets under /landing/*, and /attacker. */
export async function startOtherSite(): Promise<OtherSite> {
  const landings: OtherSite['landings'] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    res.setHeader('content-type', 'text/html; charset=utf-8');
    if (url.pathname === '/attacker') return res.end(ATTACKER_PAGE);
    if (url.pathname.startsWith('/landing/')) {
      landings.push({ path: url.pathname, query: Object.fromEntries(url.searchParams) });
      return res.end(`<!doctype html><title>Landed</title><h1>Landed on ${url.pathname}</h1>`);
    }
    res.statusCode = 404;
    res.end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    landings,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
