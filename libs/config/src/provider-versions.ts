import type { Field } from './config';

/**
 * The provider's Graph API versions and the day each stops being served (provider-2026.md §1). `null`: no
 * expiry announced yet (the latest). A version older than every one listed here has expired too.
 */
export const PROVIDER_API_VERSIONS: Readonly<Record<string, string | null>> = {
  'v26.0': null,
  'v25.0': '2028-07-29',
  'v24.0': '2028-02-18',
  'v23.0': '2027-10-08',
  'v22.0': '2027-05-20',
  'v21.0': '2027-01-21',
  'v20.0': '2026-09-24',
  'v19.0': '2026-05-21',
};

/** The default: BSUID-complete and supported until 2028-07-29 (provider-2026.md §1 recommends it). */
export const DEFAULT_PROVIDER_API_VERSION = 'v25.0';

const DAY_MS = 24 * 60 * 60 * 1000;
const major = (v: string) => Number(/^v(\d+)\.0$/.exec(v)?.[1] ?? NaN);
const OLDEST_LISTED = Math.min(...Object.keys(PROVIDER_API_VERSIONS).map(major));
const NEWEST_LISTED = Math.max(...Object.keys(PROVIDER_API_VERSIONS).map(major));

/** What the gateway knows of a version: when it expires (null: not announced) and, at `now`, whether it has. */
export interface ProviderApiVersionInfo {
  version: string;
  /** `YYYY-MM-DD` (the provider's day), or null when no expiry is announced (the latest, or one newer than this table). */
  expires: string | null;
  expired: boolean;
  /** Whole days left until the expiry (negative once expired), or null without one. */
  daysLeft: number | null;
}

export function providerApiVersionInfo(version: string, now = Date.now()): ProviderApiVersionInfo {
  const n = major(version);
  if (Number.isNaN(n)) throw new Error(`must be a Graph API version like ${DEFAULT_PROVIDER_API_VERSION}, got "${version}"`);
  if (n < OLDEST_LISTED) return { version, expires: null, expired: true, daysLeft: null };
  const expires = n > NEWEST_LISTED ? null : (PROVIDER_API_VERSIONS[version] ?? null);
  if (expires === null) return { version, expires, expired: false, daysLeft: null };
  const daysLeft = Math.floor((Date.parse(`${expires}T00:00:00Z`) - now) / DAY_MS);
  return { version, expires, expired: Date.parse(`${expires}T00:00:00Z`) <= now, daysLeft };
}

/**
 * PROVIDER_API_VERSION: the path version of every provider request. A version the provider no longer serves is
 * refused at start (the process does not start with it); the service logs and exports the days left
 * (`provider_api_version_expiry_days`, alerting under 60 days).
 */
export const providerApiVersion: Field<string> = {
  key: 'PROVIDER_API_VERSION',
  parse(raw) {
    const version = raw ?? DEFAULT_PROVIDER_API_VERSION;
    const info = providerApiVersionInfo(version);
    if (info.expired) {
      throw new Error(
        `${version} has expired${info.expires ? ` (${info.expires})` : ''}: the provider no longer serves it; set PROVIDER_API_VERSION to a supported version such as ${DEFAULT_PROVIDER_API_VERSION}`,
      );
    }
    return version;
  },
};
