/*
 * A call's record from what was said about it (provider-2026.md §7): the provider's `calls` webhooks and the
 * tenant's actions through the gateway, appended as they arrive, in any order and with repeats (a redelivered
 * webhook, an action and the webhook that confirms it). The record is read from them as one state machine.
 */

import type { CallStatus } from '@gateway/events';

/** One thing said about a call. `ended` is the provider's terminate webhook; `terminated` the business's own terminate action. */
export interface CallEvent {
  kind: 'ringing' | 'pre_accepted' | 'accepted' | 'rejected' | 'terminated' | 'ended';
  /** ISO 8601. */
  at: string;
  source: 'webhook' | 'action';
  /** The terminate webhook's `status` (COMPLETED, FAILED), times (ISO 8601), duration (s) and errors. */
  outcome?: string;
  start?: string;
  end?: string;
  duration?: number;
  errors?: unknown[];
}

export interface CallTimelineEntry {
  status: CallStatus;
  at: string;
  source: 'webhook' | 'action';
}

export interface CallView {
  status: CallStatus;
  timeline: CallTimelineEntry[];
  startedAt?: string;
  endedAt?: string;
  durationSeconds?: number;
  errors?: unknown[];
}

const RANK: Record<CallStatus, number> = { ringing: 0, pre_accepted: 1, accepted: 2, rejected: 3, terminated: 3, missed: 3 };
const ms = (iso: string) => new Date(iso).getTime();

/**
 * The timeline (each status once, at its first report, in the state machine's order), the current status (the
 * last), and when the call was answered and ended. An end is `rejected` when the call was rejected, `terminated`
 * when it was answered or the business hung up, otherwise `missed` (nobody answered). The terminate webhook's times
 * win over the gateway's own clock; the duration is the provider's only.
 */
export function callView(events: CallEvent[]): CallView {
  const sorted = [...events].sort((a, b) => ms(a.at) - ms(b.at));
  const first = new Map<string, CallEvent>();
  for (const e of sorted) if (!first.has(e.kind)) first.set(e.kind, e);
  const webhookEnd = first.get('ended');
  const entries: CallTimelineEntry[] = [];
  for (const kind of ['ringing', 'pre_accepted', 'accepted', 'rejected'] as const) {
    const e = first.get(kind);
    if (e) entries.push({ status: kind, at: e.at, source: e.source });
  }
  const answered = first.has('accepted') || webhookEnd?.outcome === 'COMPLETED';
  const endEvent = [first.get('terminated'), webhookEnd].filter((e): e is CallEvent => !!e).sort((a, b) => ms(a.at) - ms(b.at))[0];
  if (endEvent && !first.has('rejected')) {
    const status: CallStatus = answered || first.has('terminated') ? 'terminated' : 'missed';
    entries.push({ status, at: endEvent.at, source: endEvent.source });
  }
  entries.sort((a, b) => RANK[a.status] - RANK[b.status] || ms(a.at) - ms(b.at));
  const last = entries[entries.length - 1];
  const startedAt = webhookEnd?.start ?? first.get('accepted')?.at;
  const endedAt = webhookEnd?.end ?? (last && RANK[last.status] === 3 ? last.at : undefined);
  // the provider's own count: null until its terminate webhook (the gateway's clock would only guess it)
  const durationSeconds = webhookEnd?.duration;
  return {
    status: last?.status ?? 'ringing',
    timeline: entries,
    ...(startedAt && answered ? { startedAt } : {}),
    ...(endedAt ? { endedAt } : {}),
    ...(durationSeconds !== undefined && answered ? { durationSeconds } : {}),
    ...(webhookEnd?.errors?.length ? { errors: webhookEnd.errors } : {}),
  };
}
