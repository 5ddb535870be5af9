import { createHmac, randomBytes } from 'node:crypto';
import { SecretBox, signatureHeader, verifySignatureHeader } from './index';

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
