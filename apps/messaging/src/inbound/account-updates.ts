import type { WebhookChange } from './webhook-body';

/*
 * What the gateway does with the provider's 2026 account and template webhooks besides forwarding them (issue 24,
 * item 5; provider-2026.md §3.2, §5, §6.3, §8). Each function reads one change; shapes it cannot use give nothing.
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
/** A short printable value (the provider's ids, enums and numbers): anything else is left out. */
const word = (v: unknown): string | undefined =>
  (typeof v === 'string' && /^[\x20-\x7e]{1,128}$/.test(v)) || (typeof v === 'number' && Number.isFinite(v)) ? String(v) : undefined;

/** What an account webhook says of the clients of its number or business account (tenant directory fields). */
export interface AccountUpdate {
  marketingMessagesOnboarded?: boolean;
  qualityRating?: string;
  messagingLimit?: string;
  throughput?: number;
  /** The client is deactivated with this reason. */
  deactivateReason?: string;
}

/** `account_update` events that restrict, ban or disconnect the business account: its clients cannot send. */
const DEACTIVATING = new Set(['ACCOUNT_RESTRICTION', 'DISABLED_UPDATE', 'ACCOUNT_OFFBOARDED', 'ACCOUNT_DELETED', 'PARTNER_REMOVED', 'PARTNER_APP_UNINSTALLED']);

/** The provider's limit tiers by daily unique users (`-1`: unlimited; provider-2026.md §5). */
const TIERS: Record<string, string> = { '250': 'TIER_250', '2000': 'TIER_2K', '10000': 'TIER_10K', '100000': 'TIER_100K', '-1': 'TIER_UNLIMITED' };
const limitOf = (v: Obj): string | undefined => {
  const tier = word(v.current_limit) ?? word(v.whatsapp_business_manager_messaging_limit);
  if (tier) return tier;
  const n = word(v.max_daily_conversations_per_business);
  return n === undefined ? undefined : (TIERS[n] ?? n);
};

/** `phone_number_quality_update` events and the quality they mean (FLAGGED: low, UNFLAGGED: back to high). */
const QUALITY: Record<string, string> = { FLAGGED: 'RED', UNFLAGGED: 'GREEN' };

export function accountUpdate(change: WebhookChange): AccountUpdate | undefined {
  const v = change.value;
  if (!isObj(v)) return undefined;
  switch (change.field) {
    case 'account_update': {
      const event = word(v.event);
      if (event === 'MM_LITE_TERMS_SIGNED') return { marketingMessagesOnboarded: true };
      // a ban lifted (ban_info.waba_ban_state REINSTATE) deactivates nothing
      if (event === 'DISABLED_UPDATE' && isObj(v.ban_info) && word(v.ban_info.waba_ban_state) === 'REINSTATE') return undefined;
      if (event && DEACTIVATING.has(event)) return { deactivateReason: event };
      return undefined;
    }
    case 'phone_number_quality_update': {
      const event = word(v.event);
      const out: AccountUpdate = {};
      if (event && QUALITY[event]) out.qualityRating = QUALITY[event];
      if (event === 'THROUGHPUT_UPGRADE') out.throughput = 1000;
      if (event !== 'THROUGHPUT_UPGRADE') {
        const limit = limitOf(v);
        if (limit) out.messagingLimit = limit;
      }
      return Object.keys(out).length ? out : undefined;
    }
    case 'business_capability_update': {
      const limit = limitOf(v);
      return limit ? { messagingLimit: limit } : undefined;
    }
    default:
      return undefined;
  }
}

/** A template's quality or (completed) category change (provider-2026.md §6.3). */
export interface TemplateUpdate {
  templateId: string;
  quality?: string;
  category?: string;
}

export function templateUpdate(change: WebhookChange): TemplateUpdate | undefined {
  const v = change.value;
  if (!isObj(v)) return undefined;
  const templateId = word(v.message_template_id);
  if (!templateId) return undefined;
  if (change.field === 'message_template_quality_update') {
    const quality = word(v.new_quality_score);
    return quality ? { templateId, quality } : undefined;
  }
  // only a completed recategorisation (previous_category present) changes the category; an impending one informs
  if (change.field === 'template_category_update' && v.previous_category !== undefined) {
    const category = word(v.new_category);
    return category ? { templateId, category } : undefined;
  }
  return undefined;
}
