import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * List cursors clients can hold but not forge, alter or carry to another list: `<position>.<mac>`, both
 * base64url, the MAC an HMAC-SHA256 (128 bits kept) over the scope (whose list: tenant, client, list name) and
 * the position. The scope is not in the cursor, so a cursor opens only in the list that issued it.
 */
const mac = (key: Buffer | string, scope: string, position: string) => createHmac('sha256', key).update(`${scope}\n${position}`).digest().subarray(0, 16);

export function sealCursor(key: Buffer | string, scope: string, position: string): string {
  const p = Buffer.from(position, 'utf8').toString('base64url');
  return `${p}.${mac(key, scope, p).toString('base64url')}`;
}

/** The position sealed in `cursor` for this scope, or undefined when it was not issued for it (or altered). */
export function openCursor(key: Buffer | string, scope: string, cursor: string): string | undefined {
  const [p, m, extra] = cursor.split('.');
  if (!p || !m || extra !== undefined) return undefined;
  const given = Buffer.from(m, 'base64url');
  const expected = mac(key, scope, p);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  return Buffer.from(p, 'base64url').toString('utf8');
}
