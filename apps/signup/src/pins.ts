import { randomInt } from 'node:crypto';
import type { SecretBox } from '@gateway/crypto';
import type { SignupRepository } from './store/repository';

/** A random 6-digit PIN (the provider's two-step verification PIN is exactly 6 digits, reference §6.2). */
export function newPin(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

/**
 * The PINs the gateway registers phone numbers with, encrypted at rest. A phone number keeps the first PIN
 * the gateway chose for it: registering again (a retried signup) must present the PIN already set.
 */
export class PinVault {
  constructor(
    private readonly repo: SignupRepository,
    private readonly box: SecretBox,
  ) {}

  async pinFor(phoneNumberId: string, clientId: string): Promise<string> {
    const stored = await this.repo.savePin(phoneNumberId, clientId, this.box.encrypt(newPin()));
    if (stored.client_id !== clientId) await this.repo.reassignPin(phoneNumberId, clientId);
    return this.box.decrypt(stored.pin_enc);
  }
}
