import type { Field } from '@gateway/config';

/** What a plan allows (PLANS, JSON, docs/business.md). */
export interface Plan {
  /** The most clients a tenant may have (deleted ones do not count). */
  max_clients: number;
  /** Sends accepted per UTC day. */
  sends_per_day: number;
  /** Sends accepted per second (every client of the tenant together). */
  sends_per_second: number;
  /** Campaigns created per UTC day (`POST /api/campaigns`; a scheduled one starts by itself). */
  campaigns_per_day: number;
  /** /api requests per second, of every kind, sends included. */
  requests_per_second: number;
}

export type PlanCatalogue = Record<string, Plan>;

/** The plan a tenant stored before the catalogue existed (any string was accepted) is held to, and new tenants get. */
export const FALLBACK_PLAN = 'standard';

export const DEFAULT_PLANS: PlanCatalogue = {
  free: { max_clients: 1, sends_per_day: 250, sends_per_second: 1, campaigns_per_day: 1, requests_per_second: 5 },
  standard: { max_clients: 10, sends_per_day: 10_000, sends_per_second: 20, campaigns_per_day: 10, requests_per_second: 50 },
  pro: { max_clients: 50, sends_per_day: 100_000, sends_per_second: 80, campaigns_per_day: 100, requests_per_second: 200 },
  enterprise: { max_clients: 1000, sends_per_day: 1_000_000, sends_per_second: 500, campaigns_per_day: 1000, requests_per_second: 1000 },
};

const FIELDS: Array<keyof Plan> = ['max_clients', 'sends_per_day', 'sends_per_second', 'campaigns_per_day', 'requests_per_second'];

/** Reads a PLANS value: an object of plan name → every limit as a positive integer; it must name `standard`. */
export function parsePlans(raw: string): PlanCatalogue {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new Error(
      'must be JSON: {"<plan>": {"max_clients": n, "sends_per_day": n, "sends_per_second": n, "campaigns_per_day": n, "requests_per_second": n}}',
    );
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('must be a JSON object of plans');
  const out: PlanCatalogue = {};
  for (const [name, plan] of Object.entries(value as Record<string, unknown>)) {
    if (!/^[a-z0-9_-]{1,64}$/.test(name)) throw new Error(`plan name "${name}" must be 1-64 of a-z, 0-9, _ and -`);
    if (!plan || typeof plan !== 'object') throw new Error(`plan "${name}" must be an object`);
    const p = plan as Record<string, unknown>;
    for (const k of Object.keys(p)) if (!FIELDS.includes(k as keyof Plan)) throw new Error(`plan "${name}": unknown limit "${k}"`);
    const limits = {} as Plan;
    for (const f of FIELDS) {
      const v = p[f];
      if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) throw new Error(`plan "${name}": ${f} must be a positive integer`);
      limits[f] = v;
    }
    out[name] = limits;
  }
  if (!out[FALLBACK_PLAN]) throw new Error(`must define the "${FALLBACK_PLAN}" plan (new tenants and tenants on unknown plans get it)`);
  return out;
}

export const plansField: Field<PlanCatalogue> = {
  key: 'PLANS',
  parse: (raw) => (raw === undefined || raw.trim() === '' ? DEFAULT_PLANS : parsePlans(raw)),
};

/** The limits a tenant's stored plan gives: its own, or the fallback's for a plan outside the catalogue. */
export function limitsOf(plans: PlanCatalogue, plan: string): Plan {
  return plans[plan] ?? plans[FALLBACK_PLAN];
}
