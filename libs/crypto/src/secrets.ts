import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * AES-256-GCM for provider access tokens (and signup PINs) at rest. Format: "v1.<iv>.<tag>.<ciphertext>"
 * in base64url, so the key version can change later without ambiguity.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('SECRETS_KEY must be 32 bytes (base64)');
    this.key = key;
  }

  static fromBase64(b64: string): SecretBox {
    return new SecretBox(Buffer.from(b64, 'base64'));
  }

  encrypt(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
  }

  decrypt(sealed: string): string {
    const [v, iv, tag, ct] = sealed.split('.');
    if (v !== 'v1' || !iv || !tag || ct === undefined) throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
  }
}

/**
 * SECRETS_KEY when given; otherwise a key generated once into DATA_DIR (local use only: production sets
 * SECRETS_KEY from a Secret).
 */
export function resolveSecretsKey(configured: string | undefined, dataDir: string): string {
  if (configured) {
    if (Buffer.from(configured, 'base64').length !== 32) throw new Error('SECRETS_KEY must decode to 32 bytes');
    return configured;
  }
  const file = join(dataDir, 'secrets.key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dirname(file), { recursive: true });
  const key = randomBytes(32).toString('base64');
  try {
    writeFileSync(file, key + '\n', { mode: 0o600, flag: 'wx' });
  } catch (e) {
    // another process of this installation created it first: use theirs
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(file, 'utf8').trim();
    throw e;
  }
  return key;
}
