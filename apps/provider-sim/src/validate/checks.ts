import { invalidParameter, requiredParameterMissing } from '../errors';

type Json = Record<string, unknown>;

/** Small assertion helpers that fail the way the provider does: code 100 / 131008 with error_data.details. */
export function obj(v: unknown, path: string): Json {
  if (v === undefined || v === null) throw requiredParameterMissing(`${path} is required`);
  if (typeof v !== 'object' || Array.isArray(v)) throw invalidParameter(`${path} must be an object`);
  return v as Json;
}

export function str(v: unknown, path: string, opts: { max?: number; required?: boolean; allowEmpty?: boolean } = {}): string | undefined {
  if (v === undefined || v === null) {
    if (opts.required ?? true) throw requiredParameterMissing(`${path} is required`);
    return undefined;
  }
  if (typeof v !== 'string') throw invalidParameter(`${path} must be a string`);
  if (!opts.allowEmpty && v.length === 0) throw invalidParameter(`${path} must not be empty`);
  if (opts.max !== undefined && [...v].length > opts.max) throw invalidParameter(`${path} must be at most ${opts.max} characters`);
  return v;
}

export function arr(v: unknown, path: string, opts: { min?: number; max?: number } = {}): unknown[] {
  if (v === undefined || v === null) throw requiredParameterMissing(`${path} is required`);
  if (!Array.isArray(v)) throw invalidParameter(`${path} must be an array`);
  if (opts.min !== undefined && v.length < opts.min) throw invalidParameter(`${path} must have at least ${opts.min} items`);
  if (opts.max !== undefined && v.length > opts.max) throw invalidParameter(`${path} must have at most ${opts.max} items`);
  return v;
}

export function oneOf<T extends string>(v: unknown, path: string, values: readonly T[]): T {
  if (typeof v !== 'string' || !values.includes(v as T)) throw invalidParameter(`${path} must be one of ${values.join(', ')}`);
  return v as T;
}

export function unique(values: string[], path: string): void {
  if (new Set(values).size !== values.length) throw invalidParameter(`${path} must be unique`);
}

export function num(v: unknown, path: string, min: number, max: number): number {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n)) throw invalidParameter(`${path} must be a number`);
  if (n < min || n > max) throw invalidParameter(`${path} must be between ${min} and ${max}`);
  return n;
}
