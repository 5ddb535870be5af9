import { AckPolicy, DeliverPolicy, headers as natsHeaders, nanos, type JsMsg, type MsgHdrs } from 'nats';
import type { Bus } from './bus';
import { deadLetterSubject, DEAD_LETTER_SUBJECT_PREFIX, STREAMS } from './streams';

/**
 * The dead-letter stream: where a durable consumer puts a message it still could not handle on its last
 * delivery, instead of letting JetStream drop it. The message keeps its bytes and headers; these headers say
 * where it came from and why it failed. An operator lists and replays them (edge admin API, docs/webhooks.md "Dead letters").
 */
export const DL_STREAM = 'X-Dead-Letter-Stream';
export const DL_SUBJECT = 'X-Dead-Letter-Subject';
export const DL_SEQ = 'X-Dead-Letter-Seq';
export const DL_CONSUMER = 'X-Dead-Letter-Consumer';
export const DL_DELIVERIES = 'X-Dead-Letter-Deliveries';
export const DL_ERROR = 'X-Dead-Letter-Error';
export const DL_AT = 'X-Dead-Letter-At';
const DL_PREFIX = 'x-dead-letter-';
/** The headers a dead letter gets, besides the original message's own. */
export const DEAD_LETTER_HEADERS = {
  stream: DL_STREAM,
  subject: DL_SUBJECT,
  seq: DL_SEQ,
  consumer: DL_CONSUMER,
  deliveries: DL_DELIVERIES,
  error: DL_ERROR,
  at: DL_AT,
} as const;

export interface DeadLetter {
  /** Sequence in DEAD_LETTER (what replay and delete take). */
  seq: number;
  subject: string;
  source: { stream: string; subject: string; seq: number; consumer: string; deliveries: number };
  error: string;
  at: string;
  /** The original headers (request id, event ids...), without the dead-letter ones. */
  headers: Record<string, string>;
  data: string;
}

/** Header values are one line: the error's first line, bounded. */
function oneLine(s: string, max = 500): string {
  const line = s.replace(/[\r\n]+/g, ' ').replace(/[^\x20-\x7e]/g, '?');
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

function originalHeaders(h: MsgHdrs | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of h?.keys() ?? []) {
    const lower = k.toLowerCase();
    if (lower.startsWith(DL_PREFIX) || lower.startsWith('nats-')) continue;
    out[k] = h!.get(k);
  }
  return out;
}

/** Publishes `m` to DEAD_LETTER (once per source message: the Nats-Msg-Id is its stream position). */
export async function deadLetter(bus: Bus, m: JsMsg, source: { stream: string; consumer: string }, error: string): Promise<void> {
  const headers: Record<string, string> = {
    ...originalHeaders(m.headers),
    [DL_STREAM]: source.stream,
    [DL_SUBJECT]: m.subject,
    [DL_SEQ]: String(m.seq),
    [DL_CONSUMER]: source.consumer,
    [DL_DELIVERIES]: String(m.info.deliveryCount),
    [DL_ERROR]: oneLine(error) || 'unknown error',
    [DL_AT]: new Date().toISOString(),
  };
  await bus.publish(deadLetterSubject(source.stream), m.data, { msgId: `${source.stream}:${source.consumer}:${m.seq}`, headers });
}

export interface DeadLetterFilter {
  /** Source stream (e.g. PROVIDER_INBOUND); every stream when absent. */
  stream?: string;
  /** At most this many, oldest first (default 100, at most 1000). */
  limit?: number;
  /** Only the letters after this DEAD_LETTER sequence: the last one of the previous page. */
  after?: number;
}

export interface DeadLetterPage {
  letters: DeadLetter[];
  /** The sequence the next page starts after, when more letters follow. */
  next?: number;
}

const filterSubject = (f: DeadLetterFilter) => (f.stream ? deadLetterSubject(f.stream) : `${DEAD_LETTER_SUBJECT_PREFIX}.>`);

function letterOf(seq: number, subject: string, h: MsgHdrs | undefined, data: string): DeadLetter {
  return {
    seq,
    subject,
    source: {
      stream: h?.get(DL_STREAM) ?? '',
      subject: h?.get(DL_SUBJECT) ?? '',
      seq: Number(h?.get(DL_SEQ) || 0),
      consumer: h?.get(DL_CONSUMER) ?? '',
      deliveries: Number(h?.get(DL_DELIVERIES) || 0),
    },
    error: h?.get(DL_ERROR) ?? '',
    at: h?.get(DL_AT) ?? '',
    headers: originalHeaders(h),
    data,
  };
}

/**
 * A page of dead letters, oldest first: in DEAD_LETTER's sequence order, after `filter.after`. Keyset paging on
 * the sequence holds while letters come and go: new ones append after every page, replayed ones leave without
 * shifting the rest, so a walk neither repeats nor skips a letter that stays.
 */
export async function pageDeadLetters(bus: Bus, filter: DeadLetterFilter = {}): Promise<DeadLetterPage> {
  const limit = Math.min(Math.max(filter.limit ?? 100, 1), 1000);
  const stream = STREAMS.deadLetter.name;
  // an ephemeral consumer from the page's first sequence: its num_pending says how many letters follow
  const info = await bus.jsm.consumers.add(stream, {
    filter_subject: filterSubject(filter),
    deliver_policy: DeliverPolicy.StartSequence,
    opt_start_seq: Math.max(filter.after ?? 0, 0) + 1,
    ack_policy: AckPolicy.None,
    mem_storage: true,
    inactive_threshold: nanos(60_000),
  });
  const letters: DeadLetter[] = [];
  try {
    if (info.num_pending === 0) return { letters };
    const consumer = await bus.js.consumers.get(stream, info.name);
    const batch = await consumer.fetch({ max_messages: Math.min(info.num_pending, limit), expires: 2_000 });
    for await (const m of batch) {
      letters.push(letterOf(m.seq, m.subject, m.headers, m.string()));
      if (letters.length >= limit) break;
    }
  } finally {
    await bus.jsm.consumers.delete(stream, info.name).catch(() => undefined);
  }
  return { letters, next: info.num_pending > letters.length && letters.length > 0 ? letters[letters.length - 1].seq : undefined };
}

/** The first page of dead letters, oldest first. */
export async function listDeadLetters(bus: Bus, filter: DeadLetterFilter = {}): Promise<DeadLetter[]> {
  return (await pageDeadLetters(bus, filter)).letters;
}

/** The letters of these sequences (of `stream`'s letters, when given); sequences that hold none are left out. */
async function lettersAt(bus: Bus, seqs: number[], stream: string | undefined): Promise<DeadLetter[]> {
  const out: DeadLetter[] = [];
  for (const seq of seqs) {
    const stored = await bus.jsm.streams.getMessage(STREAMS.deadLetter.name, { seq }).catch(() => undefined);
    if (!stored || (stream && stored.subject !== deadLetterSubject(stream))) continue;
    out.push(letterOf(stored.seq, stored.subject, stored.header, stored.string()));
  }
  return out;
}

/**
 * Republishes dead letters to their original subjects with their original headers (the consumers see them as
 * new messages), then removes them from DEAD_LETTER. `seqs` picks some, wherever they are in the stream; else the
 * oldest the filter matches, up to its limit.
 */
export async function replayDeadLetters(bus: Bus, filter: DeadLetterFilter & { seqs?: number[] } = {}): Promise<{ replayed: number; failed: number }> {
  const letters = filter.seqs ? await lettersAt(bus, filter.seqs, filter.stream) : await listDeadLetters(bus, filter);
  let replayed = 0;
  let failed = 0;
  for (const l of letters) {
    try {
      const stored = await bus.jsm.streams.getMessage(STREAMS.deadLetter.name, { seq: l.seq });
      const h = natsHeaders();
      for (const [k, v] of Object.entries(l.headers)) h.set(k, v);
      // the exact bytes, and a msg id of its own: the original id may still be inside the source stream's duplicate window
      await bus.js.publish(l.source.subject, stored.data, { headers: h, msgID: `replay:${l.seq}` });
      await bus.jsm.streams.deleteMessage(STREAMS.deadLetter.name, l.seq);
      replayed++;
    } catch {
      failed++;
    }
  }
  return { replayed, failed };
}
