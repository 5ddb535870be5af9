/**
 * The one list of field names whose values are secrets: tokens, keys, passwords, PINs, signatures, and SDPs
 * (their ICE credentials let anyone join the call). The logger redacts these fields from every line
 * (`redactPaths`), and the edge never echoes their values in a 422 (`isSecretField`). Names are snake_case;
 * their camelCase spellings are covered too.
 */
export const SECRET_FIELDS = [
  'authorization',
  'access_token',
  'token',
  'api_key',
  'secret',
  'webhook_secret',
  'client_secret',
  'app_secret',
  'admin_token',
  'encrypted_token',
  'secrets_key',
  'password',
  'passphrase',
  'pin',
  'credential',
  'sdp',
  'signature',
] as const;

/** `access_token` → `accessToken`. */
export const camelCase = (name: string): string => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
const SQUASHED = SECRET_FIELDS.map(squash);

/**
 * Whether a field (any spelling: `access_token`, `accessToken`, `X-Api-Key`, `flow_token`, `pins`) holds a
 * secret: its name is one of SECRET_FIELDS or ends with one, plural or not. Stricter than the logger's exact
 * names: an error answer may echo nothing that could be one.
 */
export function isSecretField(key: string): boolean {
  const k = squash(key);
  return SQUASHED.some((name) => k.endsWith(name) || k.endsWith(`${name}s`));
}
