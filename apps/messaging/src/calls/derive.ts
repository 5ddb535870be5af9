import { isStorableText } from '@gateway/storable-text';
import type { WebhookChange } from '../inbound/webhook-body';
import type { CallEvent } from './record';

/** One thing a webhook says about a call, with what it says of the call itself. */
export interface CallUpdate {
  callId: string;
  /** user_initiated or business_initiated; empty when it does not say. */
  direction: string;
  user: string;
  event: CallEvent;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
/** A call id we could have stored (`wacid.…`): short printable ASCII. */
const isCallId = (v: unknown): v is string => typeof v === 'string' && /^[\x21-\x7e]{1,256}$/.test(v);
const short = (v: unknown): string => (typeof v === 'string' && v.length <= 256 && isStorableText(v) ? v : typeof v === 'number' ? String(v) : '');
/** Epoch seconds (string or number) as ISO 8601; undefined when it is none. */
function isoOf(v: unknown): string | undefined {
  const seconds = typeof v === 'string' || typeof v === 'number' ? Number(v) : NaN;
  const d = new Date(seconds * 1000);
  return seconds > 0 && Number.isFinite(d.getTime()) ? d.toISOString() : undefined;
}
const directionOf = (v: unknown) => (v === 'USER_INITIATED' ? 'user_initiated' : v === 'BUSINESS_INITIATED' ? 'business_initiated' : '');
const isStorableJson = (v: unknown): boolean => !/\\u0000|\\ud[89a-f]/i.test(JSON.stringify(v));

const STATUS_EVENT: Record<string, CallEvent['kind']> = { RINGING: 'ringing', ACCEPTED: 'accepted', REJECTED: 'rejected' };

/**
 * What a `calls` change says about calls (provider-2026.md §7.2–7.3): a user's `connect` (offer: the call rings;
 * the answer of a business-initiated call: it was accepted), a `terminate` with its status, times, duration and
 * the value's errors, and the `statuses` of business-initiated calls (`RINGING`, `ACCEPTED`, `REJECTED`; also
 * read from a `messages` change). Entries of another shape are left out.
 */
export function callUpdates(change: WebhookChange): CallUpdate[] {
  if ((change.field !== 'calls' && change.field !== 'messages') || !isObj(change.value)) return [];
  const v = change.value;
  const out: CallUpdate[] = [];
  const now = new Date().toISOString();
  if (change.field === 'calls' && Array.isArray(v.calls)) {
    const errors = Array.isArray(v.errors) && v.errors.length && isStorableJson(v.errors) ? (v.errors as unknown[]) : undefined;
    for (const call of v.calls as unknown[]) {
      if (!isObj(call) || !isCallId(call.id)) continue;
      const direction = directionOf(call.direction);
      const user = short(direction === 'business_initiated' ? call.to : call.from);
      const at = isoOf(call.timestamp) ?? now;
      if (call.event === 'connect') {
        const kind = direction === 'business_initiated' ? 'accepted' : 'ringing';
        out.push({ callId: call.id, direction, user, event: { kind, at, source: 'webhook' } });
      } else if (call.event === 'terminate') {
        const duration =
          typeof call.duration === 'number' && Number.isInteger(call.duration) && call.duration >= 0 && call.duration < 2 ** 31 ? call.duration : undefined;
        const event: CallEvent = { kind: 'ended', at: isoOf(call.end_time) ?? at, source: 'webhook', outcome: short(call.status) };
        const start = isoOf(call.start_time);
        const end = isoOf(call.end_time);
        if (start) event.start = start;
        if (end) event.end = end;
        if (duration !== undefined) event.duration = duration;
        if (errors) event.errors = errors;
        out.push({ callId: call.id, direction, user, event });
      }
    }
  }
  if (Array.isArray(v.statuses)) {
    for (const s of v.statuses as unknown[]) {
      if (!isObj(s) || s.type !== 'call' || !isCallId(s.id) || typeof s.status !== 'string') continue;
      const kind = STATUS_EVENT[s.status.toUpperCase()];
      if (!kind) continue;
      out.push({
        callId: s.id,
        direction: 'business_initiated',
        user: short(s.recipient_id),
        event: { kind, at: isoOf(s.timestamp) ?? now, source: 'webhook' },
      });
    }
  }
  return out;
}
