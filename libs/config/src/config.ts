/**
 * Configuration is read once at start into a typed object. Each field names its variable and parses it;
 * all problems are collected and reported together, so a misconfigured pod fails with one clear message.
 */
export type Env = Record<string, string | undefined>;

export interface Field<T> {
  readonly key: string;
  parse(raw: string | undefined, env: Env): T;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Parsed<S> = { [K in keyof S]: S[K] extends Field<infer T> ? T : never };

export function loadConfig<S extends Record<string, Field<unknown>>>(spec: S, env: Env = process.env): Parsed<S> {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, field] of Object.entries(spec)) {
    const raw = env[field.key];
    try {
      out[name] = field.parse(raw === '' ? undefined : raw, env);
    } catch (e) {
      problems.push(`${field.key}: ${(e as Error).message}`);
    }
  }
  if (problems.length) throw new ConfigError(problems);
  return out as Parsed<S>;
}

function field<T>(key: string, parse: (raw: string | undefined, env: Env) => T): Field<T> {
  return { key, parse };
}

export function str(key: string, fallback?: string | ((env: Env) => string)): Field<string> {
  return field(key, (raw, env) => {
    if (raw !== undefined) return raw;
    if (fallback === undefined) throw new Error('is required');
    return typeof fallback === 'function' ? fallback(env) : fallback;
  });
}

export function optStr(key: string): Field<string | undefined> {
  return field(key, (raw) => raw);
}

export function int(key: string, fallback?: number, range: { min?: number; max?: number } = {}): Field<number> {
  return field(key, (raw) => {
    if (raw === undefined) {
      if (fallback === undefined) throw new Error('is required');
      return fallback;
    }
    if (!/^-?\d+$/.test(raw.trim())) throw new Error(`must be an integer, got "${raw}"`);
    const n = Number(raw);
    if (range.min !== undefined && n < range.min) throw new Error(`must be >= ${range.min}`);
    if (range.max !== undefined && n > range.max) throw new Error(`must be <= ${range.max}`);
    return n;
  });
}

export function bool(key: string, fallback: boolean): Field<boolean> {
  return field(key, (raw) => {
    if (raw === undefined) return fallback;
    const v = raw.trim().toLowerCase();
    if (['true', '1', 'yes'].includes(v)) return true;
    if (['false', '0', 'no'].includes(v)) return false;
    throw new Error(`must be true or false, got "${raw}"`);
  });
}

export function url(key: string, fallback?: string | ((env: Env) => string)): Field<string> {
  return field(key, (raw, env) => {
    const v = raw ?? (typeof fallback === 'function' ? fallback(env) : fallback);
    if (v === undefined) throw new Error('is required');
    try {
      new URL(v);
    } catch {
      throw new Error(`must be a URL, got "${v}"`);
    }
    return v.replace(/\/+$/, '');
  });
}

export function intList(key: string, fallback: number[]): Field<number[]> {
  return field(key, (raw) => {
    if (raw === undefined) return fallback;
    const parts = raw.split(',').map((p) => p.trim());
    if (parts.some((p) => !/^\d+$/.test(p))) throw new Error(`must be comma-separated non-negative integers, got "${raw}"`);
    return parts.map(Number);
  });
}

export function oneOf<T extends string>(key: string, values: readonly T[], fallback: T): Field<T> {
  return field(key, (raw) => {
    if (raw === undefined) return fallback;
    if (!values.includes(raw as T)) throw new Error(`must be one of ${values.join(', ')}, got "${raw}"`);
    return raw as T;
  });
}
