import { randomInt } from 'node:crypto';

/**
 * WhatsApp users as a business portfolio sees them since 2026 (provider-2026.md §2): each has a business-scoped
 * user id (BSUID) per portfolio, maybe a parent BSUID, maybe a username; a username adopter's phone number is
 * withheld (the 30-day and contact-book rules are not modelled: such a user's phone is never shown).
 */
export interface SimUser {
  /** `US.<digits>`: scoped to `businessId`. */
  userId: string;
  businessId: string;
  /** Digits; null for a username-only user the business may not see the phone of. */
  phone: string | null;
  username: string | null;
  parentUserId: string | null;
}

/** provider-2026.md §2.1: ISO alpha-2, a dot, optionally `ENT.`, up to 128 alphanumerics. */
export const BSUID = /^[A-Z]{2}\.(ENT\.)?[A-Za-z0-9]{1,128}$/;

const newId = (prefix: string) => `${prefix}${Array.from({ length: 20 }, (_, i) => (i === 0 ? randomInt(1, 10) : randomInt(0, 10))).join('')}`;

export class SimUsers {
  private readonly byId = new Map<string, SimUser>();
  /** `${businessId}:${phone}` → BSUID */
  private readonly byPhone = new Map<string, string>();

  /** The user of a phone number in a portfolio: created on first sight (the provider always knows a BSUID). */
  ofPhone(businessId: string, phone: string): SimUser {
    const digits = phone.replace(/[^\d]/g, '');
    const known = this.byPhone.get(`${businessId}:${digits}`);
    if (known) return this.byId.get(known)!;
    return this.add({ userId: newId('US.'), businessId, phone: digits, username: null, parentUserId: null });
  }

  /** A user made by a test: `phone` null makes a username adopter whose number the business never sees. */
  create(businessId: string, opts: { phone?: string | null; username?: string | null; parent?: boolean }): SimUser {
    const phone = opts.phone ? opts.phone.replace(/[^\d]/g, '') : null;
    return this.add({
      userId: newId('US.'),
      businessId,
      phone,
      username: opts.username ?? null,
      parentUserId: opts.parent ? newId('US.ENT.') : null,
    });
  }

  /** The user a BSUID or parent BSUID names within a portfolio; another portfolio's ids name nobody. */
  ofId(businessId: string, id: string): SimUser | undefined {
    const direct = this.byId.get(id);
    if (direct) return direct.businessId === businessId ? direct : undefined;
    for (const u of this.byId.values()) if (u.parentUserId === id && u.businessId === businessId) return u;
    return undefined;
  }

  private add(u: SimUser): SimUser {
    this.byId.set(u.userId, u);
    if (u.phone) this.byPhone.set(`${u.businessId}:${u.phone}`, u.userId);
    return u;
  }
}

/** The `contacts[]` item of a webhook for this user (§2.3): absent fields omitted. */
export function contactOf(u: SimUser, name: string): Record<string, unknown> {
  return {
    profile: { name, ...(u.username ? { username: u.username } : {}) },
    ...(u.phone ? { wa_id: u.phone } : {}),
    user_id: u.userId,
    ...(u.parentUserId ? { parent_user_id: u.parentUserId } : {}),
  };
}
