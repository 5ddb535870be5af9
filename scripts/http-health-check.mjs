#!/usr/bin/env node
// HTTP check for container health checks: exits 0 on a 2xx from the URL, 1 otherwise (default timeout 3 s).
//
//   node scripts/http-health-check.mjs http://127.0.0.1:8080/readyz
const url = process.argv[2];
if (!url) {
  console.error('usage: http-health-check.mjs <url>');
  process.exit(2);
}
fetch(url, { signal: AbortSignal.timeout(Number(process.env.HEALTH_CHECK_TIMEOUT_MS ?? 3000)) }).then(
  (res) => {
    console.log(`${url}: ${res.status}`);
    process.exit(res.ok ? 0 : 1);
  },
  (err) => {
    console.error(`${url}: ${err.cause?.code ?? err.message}`);
    process.exit(1);
  },
);
