import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** "sha256=<hex>" HMAC-SHA256 over the exact bytes: X-Signature-256 (ours) and X-Hub-Signature-256 (provider). */
export function signatureHeader(secret: string, body: Uint8Array | string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Constant-time check of a "sha256=<hex>" header against the raw body. */
export function verifySignatureHeader(secret: string, body: Uint8Array | string, header: string | undefined): boolean {
  if (!header || !header.startsWith('sha256=')) return false;
  const expected = Buffer.from(signatureHeader(secret, body), 'utf8');
  const given = Buffer.from(header, 'utf8');
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/**
 * Compares fixed-length digests of both strings, so neither the content nor the length of a secret
 * (admin token, verify token) shows in the time taken.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  return secretMatcher(b)(a);
}

/**
 * `constantTimeEqual` against one secret known at start (the admin token), its digest made once: the edge asks it
 * of every tenant request (the admin token is not a tenant credential), one hash fewer each.
 */
export function secretMatcher(secret: string): (candidate: string) => boolean {
  const expected = createHash('sha256').update(secret, 'utf8').digest();
  return (candidate) => timingSafeEqual(createHash('sha256').update(candidate, 'utf8').digest(), expected) && candidate === secret;
}

export function sha256Hex(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/**
 * A deterministic UUID (version 5 layout, SHA-256 based) from its parts: the same parts give the same id,
 * so work repeated after a crash or a redelivery produces the same ids.
 */
export function deterministicUuid(...parts: string[]): string {
  const h = createHash('sha256').update(parts.join('|')).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16], 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
