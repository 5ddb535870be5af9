import type { CampaignOutcome } from './campaign';
import type { Load } from './load';
import type { ReceivedDelivery, ThreadStats } from './receiver';
import type { Replica } from './replica';

/** A request in the simulator's log of received requests. */
export interface SimRequest {
  method: string;
  path: string;
  body: unknown;
}

/**
 * Where each repeated delivery (an X-Event-Id the receiver got again) came from, read from its attempt number
 * and the kills: the receiver answers every request 200 at once, so the gateway had no reason to repeat one.
 */
export interface DuplicateSources {
  /**
   * The same attempt again, the first one got by the receiver before a dispatcher's SIGKILL and the repeat after
   * it: the process died between the receiver's 2xx and its record of it (the inherent at-least-once window).
   */
  dispatcherKilled: number;
  /** The next attempt of the series, though the receiver had got the one before (the dispatcher saw no 2xx in time). */
  nextAttempt: number;
  /** The same attempt again with no dispatcher killed in between (a redelivery the record did not stop). */
  sameAttempt: number;
  /** A few of each, for the log. */
  examples: string[];
}

export interface KillRecord {
  what: string;
  target: string;
  /** When, from the start of the load. */
  atMs: number;
  /** From the kill until the killed part served again (its restart answering health; for NATS: every stream replica current). */
  recoveredMs: number;
  /** NATS only: from the kill until the stream had a new leader. */
  electedMs?: number;
}

export interface ChaosReport {
  rows: Array<[string, string]>;
  kills: KillRecord[];
  perReplica: Array<{ replica: string; counts: Record<string, number> }>;
  failures: string[];
  /** The numbers the checks use, for tests. */
  counts: {
    accepted: number;
    expected: number;
    received: number;
    missing: number;
    duplicates: number;
    duplicatesNotFromAKill: number;
    withoutRecord: number;
    sends2xx: number;
    sendsProviderCalls: number;
    sendsNot1Call: number;
    refused503: number;
    campaignRecipients: number;
    campaignSentOnce: number;
    campaignUnknown: number;
    campaignTwice: number;
    campaignLost: number;
  };
  totalMs: number;
}

interface ReportInput {
  load: Load;
  expected: Set<string>;
  /** What the receiver got. */
  received: ReceivedDelivery[];
  simRequests: SimRequest[];
  /** When the load started (the kills' `atMs` count from it). */
  loadStartedAt: number;
  /** Delivery records of this run's events (chat). */
  records: Array<{ event_id: string; status: string }>;
  kills: KillRecord[];
  drainMs: number;
  /** How long the load ran (the achieved rates are over it). */
  loadMs?: number;
  campaign?: CampaignOutcome;
  replicas: Record<'messaging' | 'dispatcher' | 'edge', Replica[]>;
  /** CPU seconds over the run, by process (every incarnation of a replica). */
  cpuSeconds?: Array<[string, number]>;
  /** The run's own event loops: the main thread (load generator) and the receiver's worker thread. */
  threads?: { main: ThreadStats; receiver: ThreadStats };
  totalMs: number;
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export function buildReport(i: ReportInput): ChaosReport {
  const failures: string[] = [];
  // deliveries of this run's events: by X-Event-Id, and which wamid each carried
  const byEventId = new Map<string, ReceivedDelivery[]>();
  const received = new Set<string>();
  for (const r of i.received) {
    if (!r.wamids.length) continue;
    r.wamids.forEach((w) => received.add(w));
    const list = byEventId.get(r.eventId);
    if (list) list.push(r);
    else byEventId.set(r.eventId, [r]);
  }
  const missing = [...i.expected].filter((w) => !received.has(w));
  const dup = duplicateSources(byEventId, i.kills, i.loadStartedAt);
  const duplicates = dup.dispatcherKilled + dup.nextAttempt + dup.sameAttempt;
  const recorded = new Set(i.records.map((r) => r.event_id));
  const withoutRecord = [...byEventId.keys()].filter((id) => !recorded.has(id));
  const byStatus = new Map<string, number>();
  for (const r of i.records) byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);

  // sends: provider calls per marker (the marker is the message text, unique per send)
  const calls = new Map<string, number>();
  for (const req of i.simRequests) {
    if (req.method !== 'POST' || !req.path.endsWith('/messages')) continue;
    const m = /chaos-send-[0-9a-f]+-\d+/.exec(JSON.stringify(req.body));
    if (m) calls.set(m[0], (calls.get(m[0]) ?? 0) + 1);
  }
  const ok = i.load.sends.filter((x) => typeof x.status === 'number' && x.status >= 200 && x.status < 300);
  const not1 = ok.filter((x) => calls.get(x.marker) !== 1);
  const sendStatuses = new Map<string, number>();
  for (const x of i.load.sends) sendStatuses.set(String(x.status), (sendStatuses.get(String(x.status)) ?? 0) + 1);

  const accepted = i.load.accepted().length;
  if (dup.nextAttempt + dup.sameAttempt)
    failures.push(
      `${dup.nextAttempt + dup.sameAttempt} deliveries were repeated with no dispatcher killed between the two (${dup.nextAttempt} as the next attempt, ${dup.sameAttempt} as the same attempt; e.g. ${dup.examples.slice(0, 3).join('; ')})`,
    );
  if (missing.length) failures.push(`${missing.length} accepted webhooks have no delivered event (e.g. ${missing.slice(0, 3).join(', ')})`);
  if (withoutRecord.length) failures.push(`${withoutRecord.length} delivered events have no delivery record (e.g. ${withoutRecord.slice(0, 3).join(', ')})`);
  if (not1.length)
    failures.push(
      `${not1.length} sends answered 2xx did not make exactly one provider call (e.g. ${not1
        .slice(0, 3)
        .map((x) => `${x.marker}: ${calls.get(x.marker) ?? 0}`)
        .join(', ')})`,
    );
  const cp = i.campaign;
  if (cp?.twice) failures.push(`campaign: ${cp.twice} recipients reached the provider more than once (${cp.problems.join('; ')})`);
  if (cp?.lost) failures.push(`campaign: ${cp.lost} recipients neither sent once nor unknown (${cp.problems.join('; ')})`);
  if (accepted < i.load.webhooks.size) failures.push(`${i.load.webhooks.size - accepted} webhooks were never accepted by either edge`);

  const perReplica = (['messaging', 'dispatcher', 'edge'] as const).flatMap((app) => i.replicas[app].map((r) => ({ replica: r.name, counts: r.totals() })));
  for (const { replica, counts } of perReplica.filter((p) => !p.replica.startsWith('edge'))) {
    for (const [k, v] of Object.entries(counts)) if (v <= 0) failures.push(`${replica} handled no ${k}: the replicas do not share the work`);
  }

  const perSec = (n: number) => (i.loadMs ? (n / (i.loadMs / 1000)).toFixed(1) : '?');
  const rows: Array<[string, string]> = [
    [
      'Load achieved (over the load time)',
      `${perSec(i.load.webhooks.size)} webhooks/s, ${perSec(i.load.sends.length)} sends/s` +
        (cp?.recipients ? `, campaign ${cp.ratePerSecond}/s` : '') +
        (i.load.skipped.webhooks + i.load.skipped.sends
          ? ` (${i.load.skipped.webhooks} webhooks and ${i.load.skipped.sends} sends not made: the generator's in-flight bound was reached)`
          : ''),
    ],
    ['Inbound webhooks accepted (2xx) by the edges', `${accepted} of ${i.load.webhooks.size} sent`],
    ['Events expected from them', String(i.expected.size)],
    ['Distinct events received by the receiver', String(received.size)],
    ['Events missing', String(missing.length)],
    [
      'Duplicate deliveries (same X-Event-Id twice)',
      `${duplicates}: ${dup.dispatcherKilled} a killed dispatcher's attempt repeated (got before the SIGKILL, not yet recorded), ${dup.nextAttempt} the next attempt after one the receiver got, ${dup.sameAttempt} the same attempt with no kill between`,
    ],
    ...(dup.examples.length ? ([['Repeated deliveries (examples)', dup.examples.join('; ')]] as Array<[string, string]>) : []),
    ['Delivery records by status', [...byStatus].map(([k, v]) => `${k} ${v}`).join(', ') || 'none'],
    ['Delivered events without a record', String(withoutRecord.length)],
    [
      'Sends answered 2xx / provider calls for them',
      `${ok.length} / ${ok.reduce((n, x) => n + (calls.get(x.marker) ?? 0), 0)} (${not1.length} not exactly one)`,
    ],
    ['Send answers', [...sendStatuses].map(([k, v]) => `${k}: ${v}`).join(', ')],
    [
      'Refused with 503 during the failovers',
      `${i.load.refused503.webhooks} webhook attempts (each sent again until accepted), ${i.load.refused503.sends} sends`,
    ],
    ['Requests without an answer (killed edge)', String(i.load.noAnswer)],
    ['Last event first delivered, after the load stopped', s(i.drainMs)],
    ...(cp?.recipients
      ? ([
          [
            `Campaign of ${cp.recipients} recipients at ${cp.ratePerSecond}/s through the kills`,
            `sent exactly once ${cp.sentOnce}, unknown ${cp.unknown}, deferred ${cp.deferred}, twice ${cp.twice}, lost ${cp.lost}; settled after ${cp.seconds.toFixed(1)} s`,
          ],
          [
            'Campaign recipients by status',
            Object.entries(cp.byStatus)
              .map(([k, v]) => `${k} ${v}`)
              .join(', '),
          ],
        ] as Array<[string, string]>)
      : []),
    ...i.kills.map((k): [string, string] => [
      `Recovery after SIGKILL of ${k.what} at +${s(k.atMs)}`,
      `${s(k.recoveredMs)}${k.electedMs !== undefined ? ` (new leader after ${s(k.electedMs)})` : ''} — ${k.target}`,
    ]),
    ...perReplica.map((p): [string, string] => [
      `Per replica: ${p.replica}`,
      Object.entries(p.counts)
        .map(([k, v]) => `${k} ${v}`)
        .join(', '),
    ]),
    ...(i.cpuSeconds
      ? ([['CPU seconds over the run, by process', i.cpuSeconds.map(([name, sec]) => `${name} ${sec.toFixed(1)}`).join(', ')]] as Array<[string, string]>)
      : []),
    ...(i.threads
      ? ([
          [
            "The run's event loops: busy, timer delay p99 / max",
            (['main', 'receiver'] as const)
              .map((t) => {
                const x = i.threads![t];
                return `${t === 'main' ? 'load generator (main thread)' : 'receiver (worker thread)'} ${(x.busy * 100).toFixed(0)} %, ${x.delayP99Ms.toFixed(0)} / ${x.delayMaxMs.toFixed(0)} ms`;
              })
              .join('; '),
          ],
        ] as Array<[string, string]>)
      : []),
    ['Whole run', s(i.totalMs)],
  ];
  return {
    rows,
    kills: i.kills,
    perReplica,
    failures,
    counts: {
      accepted,
      expected: i.expected.size,
      received: received.size,
      missing: missing.length,
      duplicates,
      duplicatesNotFromAKill: dup.nextAttempt + dup.sameAttempt,
      withoutRecord: withoutRecord.length,
      sends2xx: ok.length,
      sendsProviderCalls: ok.reduce((n, x) => n + (calls.get(x.marker) ?? 0), 0),
      sendsNot1Call: not1.length,
      refused503: i.load.refused503.webhooks + i.load.refused503.sends,
      campaignRecipients: cp?.recipients ?? 0,
      campaignSentOnce: cp?.sentOnce ?? 0,
      campaignUnknown: cp?.unknown ?? 0,
      campaignTwice: cp?.twice ?? 0,
      campaignLost: cp?.lost ?? 0,
    },
    totalMs: i.totalMs,
  };
}

/** How long after a dispatcher's SIGKILL a request it had sent may still reach the receiver (the socket's last bytes). */
const KILL_SLACK_MS = 250;

export function duplicateSources(byEventId: Map<string, ReceivedDelivery[]>, kills: KillRecord[], loadStartedAt: number): DuplicateSources {
  const out: DuplicateSources = { dispatcherKilled: 0, nextAttempt: 0, sameAttempt: 0, examples: [] };
  const dispatcherKills = kills.filter((k) => k.what === 'dispatcher').map((k) => loadStartedAt + k.atMs);
  const example = (e: string) => out.examples.length < 10 && out.examples.push(e);
  for (const [eventId, list] of byEventId) {
    if (list.length < 2) continue;
    const sorted = [...list].sort((a, b) => a.at - b.at);
    for (let n = 1; n < sorted.length; n++) {
      const [before, again] = [sorted[n - 1], sorted[n]];
      const at = (d: ReceivedDelivery) => `+${((d.at - loadStartedAt) / 1000).toFixed(1)} s`;
      if (again.attempt > before.attempt) {
        out.nextAttempt += 1;
        example(`${eventId}: attempt ${before.attempt} at ${at(before)}, attempt ${again.attempt} at ${at(again)}`);
      } else if (dispatcherKills.some((k) => before.at <= k + KILL_SLACK_MS && again.at > k)) out.dispatcherKilled += 1;
      else {
        out.sameAttempt += 1;
        example(`${eventId}: attempt ${before.attempt} at ${at(before)} and again at ${at(again)}`);
      }
    }
  }
  return out;
}

export function formatTable(r: ChaosReport): string {
  const lines = ['| Measure | Value |', '|---|---|', ...r.rows.map(([k, v]) => `| ${k} | ${v} |`)];
  return lines.join('\n');
}
