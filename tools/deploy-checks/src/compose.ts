import { parse } from 'yaml';

/** KEY=VALUE lines of a dotenv file (comments and blank lines skipped; no quoting rules beyond trimming quotes). */
export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!m) continue;
    out[m[1]] = m[2].trim().replace(/^(['"])(.*)\1$/, '$2');
  }
  return out;
}

export interface Interpolation {
  /** Variables that must be set (`${VAR:?message}` / `${VAR?message}`). */
  mandatory: Set<string>;
  /** Every variable referenced. */
  referenced: Set<string>;
}

const REF = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;

/** Every variable a compose file references, and which of them it refuses to run without. */
export function scanInterpolation(text: string): Interpolation {
  const mandatory = new Set<string>();
  const referenced = new Set<string>();
  for (const m of text.matchAll(REF)) {
    const name = m[1] ?? m[4];
    if (!name) continue;
    referenced.add(name);
    if (m[2]?.endsWith('?')) mandatory.add(name);
  }
  return { mandatory, referenced };
}

/** Compose's variable substitution: `$$`, `$VAR`, `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?err}`, `${VAR?err}`. */
export function interpolate(value: string, env: Record<string, string | undefined>): string {
  return value.replace(REF, (whole, braced?: string, op?: string, arg?: string, bare?: string) => {
    if (whole === '$$') return '$';
    const name = braced ?? bare!;
    const v = env[name];
    switch (op) {
      case ':-':
        return v ? v : arg!;
      case '-':
        return v === undefined ? arg! : v;
      case ':?':
        if (!v) throw new Error(`${name}: ${arg}`);
        return v;
      case '?':
        if (v === undefined) throw new Error(`${name}: ${arg}`);
        return v;
      default:
        return v ?? '';
    }
  });
}

function interpolateDeep(node: unknown, env: Record<string, string | undefined>): unknown {
  if (typeof node === 'string') return interpolate(node, env);
  if (Array.isArray(node)) return node.map((n) => interpolateDeep(n, env));
  if (node && typeof node === 'object') return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, interpolateDeep(v, env)]));
  return node;
}

/* eslint-disable @typescript-eslint/no-explicit-any -- compose files are arbitrary YAML */
export interface ComposeService {
  image?: string;
  build?: { context?: string; dockerfile?: string; args?: Record<string, string> };
  command?: string[] | string;
  environment?: Record<string, string | number | boolean | null>;
  healthcheck?: { test?: string[] | string; interval?: string; timeout?: string; retries?: number };
  depends_on?: Record<string, { condition?: string }> | string[];
  restart?: string;
  profiles?: string[];
  ports?: Array<string | number>;
  expose?: Array<string | number>;
  volumes?: Array<string | { source?: string; target?: string }>;
  read_only?: boolean;
  tmpfs?: string[] | string;
  cap_drop?: string[];
  [k: string]: any;
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

/**
 * Parses a compose file as `docker compose config` would see it: YAML merge keys (`<<`) applied, `x-` extension
 * fields kept, variables substituted from `env`. Returns the raw (uninterpolated) services too, to check where
 * a value comes from.
 */
export function loadCompose(text: string, env: Record<string, string | undefined>): { resolved: ComposeFile; raw: ComposeFile } {
  const raw = parse(text, { merge: true }) as ComposeFile;
  return { raw, resolved: interpolateDeep(raw, env) as ComposeFile };
}

/** `environment` as a map of strings (compose also accepts a list of KEY=VALUE). */
export function environmentOf(svc: ComposeService): Record<string, string> {
  const env = svc.environment as unknown;
  if (Array.isArray(env)) return parseEnvFile(env.join('\n'));
  return Object.fromEntries(Object.entries((env ?? {}) as Record<string, unknown>).map(([k, v]) => [k, v === null || v === undefined ? '' : String(v)]));
}
