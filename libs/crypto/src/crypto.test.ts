import { createHmac, randomBytes } from 'node:crypto';
import { constantTimeEqual, openCursor, secretMatcher, SecretBox, sealCursor, signatureHeader, verifySignatureHeader } from './index';

describe('SecretBox', () => {
  const box = new SecretBox(randomBytes(32));
  it('round-trips and never stores the plaintext', () => {
    const sealed = box.encrypt('EAAG-token');
    expect(sealed).not.toContain('EAAG');
    expect(box.decrypt(sealed)).toBe('EAAG-token');
  });
  it('rejects tampering and other keys', () => {
    const sealed = box.encrypt('x');
    const parts = sealed.split('.');
    parts[3] = Buffer.from('y').toString('base64url');
    expect(() => box.decrypt(parts.join('.'))).toThrow();
    expect(() => new SecretBox(randomBytes(32)).decrypt(sealed)).toThrow();
  });
});

describe('signatures', () => {
  it('match an independent HMAC and fail on a changed byte', () => {
    const body = Buffer.from('{"a":1}');
    const header = signatureHeader('s3cret', body);
    expect(header).toBe(`sha256=${createHmac('sha256', 's3cret').update(body).digest('hex')}`);
    expect(verifySignatureHeader('s3cret', body, header)).toBe(true);
    expect(verifySignatureHeader('s3cret', Buffer.from('{"a":2}'), header)).toBe(false);
    expect(verifySignatureHeader('s3cret', body, undefined)).toBe(false);
    expect(verifySignatureHeader('s3cret', body, 'sha256=zz')).toBe(false);
  });
});

describe('list cursors', () => {
  it('open only in the scope that sealed them, unaltered, with the same key', () => {
    const c = sealCursor('k1', 'clients|t1', '2026-11-23T07:00:00.000Z|id-1');
    expect(openCursor('k1', 'clients|t1', c)).toBe('2026-11-23T07:00:00.000Z|id-1');
    expect(openCursor('k1', 'clients|t2', c)).toBeUndefined();
    expect(openCursor('k2', 'clients|t1', c)).toBeUndefined();
    expect(openCursor('k1', 'clients|t1', `${Buffer.from('1970-01-01T00:00:00.000Z|id-1').toString('base64url')}.${c.split('.')[1]}`)).toBeUndefined();
    for (const bad of ['', '.', 'abc', 'a.b.c', `${c}x`]) expect(openCursor('k1', 'clients|t1', bad)).toBeUndefined();
  });
});

describe('constantTimeEqual', () => {
  it('is equality, whatever the lengths', () => {
    expect(constantTimeEqual('admin-token-1', 'admin-token-1')).toBe(true);
    for (const other of ['admin-token-2', 'admin-token-10', '', 'a', 'admin-token-1 ']) expect(constantTimeEqual('admin-token-1', other)).toBe(false);
    expect(constantTimeEqual('', '')).toBe(true);
  });
  it('secretMatcher is equality with its one secret, whatever the lengths (constantTimeEqual is made of it)', () => {
    const isAdmin = secretMatcher('admin-token-1');
    expect(isAdmin('admin-token-1')).toBe(true);
    for (const other of ['admin-token-2', 'admin-token-10', '', 'a', 'admin-token-1 ']) expect([other, isAdmin(other)]).toEqual([other, false]);
    expect(secretMatcher('')('')).toBe(true);
  });
});
