import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';

/**
 * Every response the tests' API client receives is checked against the OpenAPI document the edge serves
 * (GET /openapi.json): the operation is found by method and path, the status must be one it documents, a JSON
 * body must validate against that status's schema (closed objects: an undocumented field fails), a documented
 * required header must be there. A failed check throws, so the test that made the request fails.
 *
 * Each checked operation id is appended to `.test-results/openapi/<project>/checked-<pid>.txt`, and the document to
 * `.test-results/openapi/<project>/document.json`; after the whole suite, scripts/test-summary.mjs fails when an
 * operation of the document was never checked. One folder per nx project (the task's NX_TASK_TARGET_PROJECT): it is
 * an output of that project's test target, so nx restores it with the project's report when the run is cached.
 */
export const RESULTS_DIR = resolve(__dirname, '../../../.test-results/openapi', process.env.NX_TASK_TARGET_PROJECT ?? 'jest');

type Obj = Record<string, unknown>;

interface Route {
  method: string;
  template: string;
  regex: RegExp;
  params: number;
  op: Obj;
}

/** Answers the HTTP server gives before any routing (scripts/../server.ts answerClientError), on any path. */
const TRANSPORT_STATUSES = new Set([400, 431]);

const pointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

export class OpenApiCheck {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  private readonly routes: Route[] = [];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly doc: Obj) {
    this.ajv.addSchema({ ...doc, $id: 'openapi.json' } as Obj);
    for (const [template, item] of Object.entries(doc.paths as Record<string, Obj>)) {
      for (const [method, op] of Object.entries(item)) {
        const names: string[] = [];
        const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{(\w+)\\?\}/g, (_m, name: string) => {
          names.push(name);
          return '([^/]+)';
        });
        this.routes.push({ method: method.toUpperCase(), template, regex: new RegExp(`^${source}$`), params: names.length, op: op as Obj });
        // a trailing catch-all page parameter (/dashboard/{page}) also matches deeper paths and the empty page
        if (template.endsWith('/{page}'))
          this.routes.push({
            method: method.toUpperCase(),
            template,
            regex: new RegExp(`^${source.replace(/\(\[\^\/\]\+\)$/, '(.*)')}$`),
            params: names.length + 10,
            op: op as Obj,
          });
      }
    }
    // literal segments win over parameters (POST /api/templates/sync, not /api/templates/{template_id})
    this.routes.sort((a, b) => a.params - b.params);
  }

  private validator(ref: string): ValidateFunction {
    let v = this.validators.get(ref);
    if (!v) {
      v = this.ajv.compile({ $ref: `openapi.json#${ref}` });
      this.validators.set(ref, v);
    }
    return v;
  }

  /** The operation a request goes to, by method and path (`/a/` is `/a`). */
  match(method: string, path: string): Route | undefined {
    let clean = path.split('?')[0];
    try {
      clean = decodeURI(clean);
    } catch {
      // not valid percent-encoding: matched as it is
    }
    clean = clean.replace(/(.)\/$/, '$1');
    return (
      this.routes.find((r) => r.method === method.toUpperCase() && r.regex.test(clean)) ??
      this.routes.find((r) => r.method === method.toUpperCase() && r.regex.test(path.split('?')[0]))
    );
  }

  /** Throws when the response is not one the document describes; returns the operation id checked (if any). */
  check(method: string, path: string, res: { status: number; headers: Headers; text: string }): string | undefined {
    const where = `${method.toUpperCase()} ${path} → ${res.status}`;
    const route = this.match(method, path);
    if (TRANSPORT_STATUSES.has(res.status)) {
      this.body(`/components/schemas/Error${res.status}`, res, where);
      return undefined;
    }
    if (!route) {
      // no operation: an unknown path (404) or an undocumented method of a known one (405), in the error form
      if (res.status !== 404 && res.status !== 405) throw new Error(`OpenAPI check: ${where}: no operation of the document matches this request`);
      this.body(`/components/schemas/Error${res.status}`, res, where);
      return undefined;
    }
    const responses = route.op.responses as Record<string, Obj>;
    const key = [String(res.status), `${String(res.status)[0]}XX`, 'default'].find((k) => responses[k]);
    if (!key)
      throw new Error(
        `OpenAPI check: ${where}: status ${res.status} is not documented for ${String(route.op.operationId)} (documented: ${Object.keys(responses).join(', ')}); body: ${res.text.slice(0, 300)}`,
      );
    const documented = this.resolve(responses[key]);
    const base = `/paths/${pointer(route.template)}/${method.toLowerCase()}/responses/${key}`;
    for (const [name, h] of Object.entries((documented.headers ?? {}) as Record<string, Obj>)) {
      if (this.resolve(h).required && !res.headers.has(name)) throw new Error(`OpenAPI check: ${where}: the documented header ${name} is missing`);
    }
    const content = documented.content as Record<string, Obj> | undefined;
    if (!content) {
      if (res.text !== '') throw new Error(`OpenAPI check: ${where}: documented without a body, got ${res.text.slice(0, 200)}`);
    } else {
      const type = (res.headers.get('content-type') ?? '').split(';')[0].trim();
      const mediaType = Object.keys(content).find((t) => t === type || t === '*/*');
      if (!mediaType) throw new Error(`OpenAPI check: ${where}: content type ${type || '(none)'} is not documented (${Object.keys(content).join(', ')})`);
      if (mediaType === 'application/json') {
        const ref = responses[key].$ref
          ? `${String(responses[key].$ref).slice(1)}/content/application~1json/schema`
          : `${base}/content/application~1json/schema`;
        this.body(ref, res, where);
      }
    }
    return String(route.op.operationId);
  }

  private resolve(node: Obj): Obj {
    if (typeof node.$ref !== 'string') return node;
    let cur: unknown = this.doc;
    for (const part of node.$ref.slice(2).split('/')) cur = (cur as Obj)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    return cur as Obj;
  }

  private body(ref: string, res: { text: string }, where: string): void {
    let body: unknown;
    try {
      body = JSON.parse(res.text);
    } catch {
      throw new Error(`OpenAPI check: ${where}: the body is not JSON: ${res.text.slice(0, 200)}`);
    }
    const validate = this.validator(ref);
    if (!validate(body)) {
      throw new Error(
        `OpenAPI check: ${where}: the body does not match ${ref}: ${this.ajv.errorsText(validate.errors, { separator: '; ' })}\nbody: ${res.text.slice(0, 500)}`,
      );
    }
  }
}

const checks = new Map<string, Promise<OpenApiCheck>>();

/** The check for the edge at `baseUrl` (its document fetched once). */
export function openApiCheck(baseUrl: string): Promise<OpenApiCheck> {
  let c = checks.get(baseUrl);
  if (!c) {
    c = (async () => {
      const res = await fetch(`${baseUrl}/openapi.json`);
      if (res.status !== 200) throw new Error(`GET ${baseUrl}/openapi.json answered ${res.status}`);
      const text = await res.text();
      mkdirSync(RESULTS_DIR, { recursive: true });
      writeFileSync(resolve(RESULTS_DIR, 'document.json'), text);
      return new OpenApiCheck(JSON.parse(text) as Obj);
    })();
    c.catch(() => checks.delete(baseUrl));
    checks.set(baseUrl, c);
  }
  return c;
}

/** Notes an operation id as checked (for the suite-wide coverage check of scripts/test-summary.mjs). */
const recorded = new Set<string>();
export function recordChecked(operationId: string): void {
  if (recorded.has(operationId)) return;
  recorded.add(operationId);
  mkdirSync(RESULTS_DIR, { recursive: true });
  appendFileSync(resolve(RESULTS_DIR, `checked-${process.pid}.txt`), `${operationId}\n`);
}

/**
 * Checks one answer a test got without `ApiClient` (a streamed multipart upload, say) against the document of
 * the edge at `baseUrl`, and records the operation as checked. Throws like `ApiClient` on a mismatch.
 */
export async function checkAnswer(
  baseUrl: string,
  method: string,
  pathAndQuery: string,
  res: { status: number; headers: Headers; text: string },
): Promise<void> {
  const operationId = (await openApiCheck(baseUrl)).check(method, pathAndQuery, res);
  if (operationId) recordChecked(operationId);
}
