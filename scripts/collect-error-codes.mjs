// Collects every stable error `code` the gateway answers with, from the code that throws it, into
// apps/edge/src/openapi/error-codes.json (status → codes), which the OpenAPI document enumerates per status.
// Sources: `new AppError(kind, 'code', ...)`, `AppError.notFound('code')`, `AppError.conflict('code')`,
// `AppError.validation(...)` in every non-test file of apps/ and libs/, literal `{ detail, code: 'x' }` bodies
// (status from the `ctx.status = N` or `[N, ...]` beside them), and the provider error table
// (libs/provider-client/src/error-table.ts, whose rows carry their status).
// `node scripts/collect-error-codes.mjs` writes the file; `--check` exits 1 when it is stale (the edge's tests
// run the same check).
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const OUT = join(root, 'apps/edge/src/openapi/error-codes.json');

/** @type {Record<string, number>} */
const STATUS_BY_KIND = {
  validation: 422,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  request_timeout: 408,
  too_large: 413,
  unsupported_media: 415,
  rate_limited: 429,
  provider_rejected: 502,
  unavailable: 503,
  timeout: 504,
  internal: 500,
};

/** @param {string} dir @returns {Generator<string>} */
function* sources(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (name === 'node_modules' || name === 'gen' || name === 'testing') continue;
    if (statSync(p).isDirectory()) yield* sources(p);
    else if (p.endsWith('.ts') && !p.endsWith('.test.ts') && !p.endsWith('.d.ts')) yield p;
  }
}

export function collect() {
  /** @type {Map<number, Map<string, string>>} status → code → the first file answering it */
  const byStatus = new Map();
  /** @param {number} status @param {string} code @param {string} where */
  const add = (status, code, where) => {
    let codes = byStatus.get(status);
    if (!codes) byStatus.set(status, (codes = new Map()));
    if (!codes.has(code)) codes.set(code, where);
  };
  const files = [...sources(join(root, 'apps')), ...sources(join(root, 'libs'))].filter((f) => !f.includes('/provider-sim/') && !f.includes('/dashboard/ui/'));
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const where = relative(root, file);
    for (const m of text.matchAll(/new AppError\(\s*'([a-z_]+)',\s*'([a-z0-9_]+)'/g))
      add(STATUS_BY_KIND[m[1]] ?? fail(`${where}: unknown kind ${m[1]}`), m[2], where);
    for (const m of text.matchAll(/AppError\.notFound\(\s*'([a-z0-9_]+)'/g)) add(404, m[1], where);
    for (const m of text.matchAll(/AppError\.conflict\(\s*'([a-z0-9_]+)'/g)) add(409, m[1], where);
    if (/AppError\.validation\(/.test(text)) add(422, 'validation_failed', where);
    // the template checks' 422s name their code as the issue's type (apps/messaging/src/templates/params.ts)
    for (const m of text.matchAll(/templateIssue\(\s*\[[^\]]*\],\s*(?:'[^']*'|`[^`]*`|"[^"]*"),\s*'(template_[a-z0-9_]+)'/g)) add(422, m[1], where);
    // literal error bodies written by the edge itself
    for (const m of text.matchAll(/\{\s*detail:\s*'[^']*',\s*code:\s*'([a-z0-9_]+)'\s*\}/g)) {
      const before = text.slice(Math.max(0, m.index - 400), m.index);
      const status = [...before.matchAll(/ctx\.status = (\d{3})|\[(\d{3}),/g)].pop();
      if (!status) fail(`${where}: no status found for the literal error body with code ${m[1]}`);
      add(Number(status[1] ?? status[2]), m[1], where);
    }
  }
  const table = readFileSync(join(root, 'libs/provider-client/src/error-table.ts'), 'utf8');
  for (const m of table.matchAll(/status:\s*(\d{3}),\s*code:\s*'([a-z0-9_]+)'/g)) add(Number(m[1]), m[2], 'libs/provider-client/src/error-table.ts');
  // an unexpected failure is always this one (apps/edge/src/http-errors.ts)
  add(500, 'internal_error', 'apps/edge/src/http-errors.ts');
  /** @type {Record<number, string[]>} */
  const out = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) out[status] = [...codes.keys()].sort();
  return `${JSON.stringify(out, null, 2)}\n`;
}

/** @param {string} msg @returns {never} */
function fail(msg) {
  throw new Error(msg);
}

if (process.argv[1] === import.meta.filename) {
  const text = collect();
  if (process.argv.includes('--check')) {
    if (readFileSync(OUT, 'utf8') !== text) {
      console.error(`${relative(root, OUT)} is stale: run node scripts/collect-error-codes.mjs`);
      process.exit(1);
    }
  } else {
    writeFileSync(OUT, text);
    console.log(relative(root, OUT));
  }
}
