import { isObj, type WebhookChange } from '../inbound/webhook-body';

/** The stop keywords of a client that has set none (issue 26). */
export const DEFAULT_STOP_KEYWORDS = ['STOP', 'UNSUBSCRIBE'];

/** A user's wish about marketing messages, from an inbound text or the provider's `user_preferences` webhook. */
export interface OptOutSignal {
  /** The user's wa_id (digits) or, without one, the BSUID. */
  user: string;
  /** stop: onto the client's list; resume: off it. */
  value: 'stop' | 'resume';
  source: 'stop_keyword' | 'user_preferences';
  /** When the user said it, by the provider's timestamp (ms); absent when the webhook gave none. */
  at?: number;
}

/** The provider's `timestamp` (seconds, as a number or a string of digits) in ms. */
const timeOf = (t: unknown): { at?: number } => {
  const s = typeof t === 'number' ? t : typeof t === 'string' && /^\d{1,12}$/.test(t) ? Number(t) : NaN;
  return Number.isFinite(s) && s > 0 ? { at: s * 1000 } : {};
};

const userOf = (v: Record<string, unknown>, idField: string): string | undefined => {
  const wa = v[idField];
  if (typeof wa === 'string' && /^\d{1,20}$/.test(wa)) return wa;
  const bsuid = v.user_id;
  return typeof bsuid === 'string' && /^[\x21-\x7e]{1,128}$/.test(bsuid) ? bsuid : undefined;
};

/**
 * Opt-out signals in one change for one client: inbound texts that are exactly one of its stop keywords (case and
 * surrounding space ignored), and `user_preferences` entries of the marketing category (provider-2026.md).
 */
export function optOutSignals(change: WebhookChange, clientKeywords?: string[]): OptOutSignal[] {
  const keywords = clientKeywords?.length ? clientKeywords : DEFAULT_STOP_KEYWORDS;
  const out: OptOutSignal[] = [];
  const v = change.value;
  if (!isObj(v)) return out;
  if (change.field === 'messages' && Array.isArray(v.messages)) {
    const stops = new Set(keywords.map((k) => k.trim().toUpperCase()));
    for (const msg of v.messages as unknown[]) {
      if (!isObj(msg) || msg.type !== 'text' || !isObj(msg.text) || typeof msg.text.body !== 'string') continue;
      const user = userOf(msg, 'from');
      if (user && stops.has(msg.text.body.trim().toUpperCase())) out.push({ user, value: 'stop', source: 'stop_keyword', ...timeOf(msg.timestamp) });
    }
  }
  if (change.field === 'user_preferences' && Array.isArray(v.user_preferences)) {
    for (const p of v.user_preferences as unknown[]) {
      if (!isObj(p) || (p.value !== 'stop' && p.value !== 'resume')) continue;
      if (p.category !== undefined && p.category !== 'marketing_messages') continue;
      const user = userOf(p, 'wa_id');
      if (user) out.push({ user, value: p.value, source: 'user_preferences', ...timeOf(p.timestamp) });
    }
  }
  return out;
}
