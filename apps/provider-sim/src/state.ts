import { randomBytes } from 'node:crypto';
import type { FlowValidationError } from './flows/validate-flow-json';
import type { SimTemplate } from './templates/model';
import { SimCalling } from './calling';
import { BSUID, SimUsers } from './users';

/** Requests the simulator keeps in its log by default (`SIM_REQUEST_LOG_MAX`); about 1–2 KB each. */
export const DEFAULT_REQUEST_LOG_MAX = 50_000;

export interface PhoneNumber {
  id: string;
  wabaId: string;
  display: string;
  registered: boolean;
  /** When each register (or deregister) call came (simulator clock, ms): the 133016 rate limit counts them. */
  registerLog: number[];
  /** The two-step verification PIN set on the number (by its first registration, or by the business elsewhere). */
  pin?: string;
  /** Wrong PINs presented in a row; `pinLockedUntil` set once there were too many (133008). */
  wrongPins: number;
  pinLockedUntil?: number;
}

/** The limits of registration (reference §6.2, provider-2026.md §11): attempts per number and PIN guesses. */
export interface RegistrationLimits {
  /** Register/deregister calls per number in `attemptsWindowMs` (reported as 10 per 72 h): more are 133016. */
  attempts: number;
  attemptsWindowMs: number;
  /** Wrong PINs in a row before the number refuses guesses (133008) for `pinLockMs`. */
  pinGuesses: number;
  pinLockMs: number;
}

export interface Waba {
  id: string;
  businessId: string;
  catalogId: string | null;
  subscribedApps: Set<string>;
}

export interface SentMessage {
  id: string;
  phoneId: string;
  /** The phone number it went to, or '' when it went to a BSUID of a user whose number is withheld. */
  to: string;
  /** The user's BSUID (provider-2026.md §2.2), and whether the send named it (`recipient`) rather than a phone. */
  userId?: string;
  toBsuid?: boolean;
  /** The status pricing's category when not the default (the Marketing Messages API: `marketing_lite`). */
  pricingCategory?: string;
  type: string;
  at: number;
  /** A voice message (OPUS audio): its statuses end with `played` once listened to. */
  voice: boolean;
}

export interface Call {
  id: string;
  phoneId: string;
  /** The user (the caller of a user-initiated call, the callee of a business-initiated one). */
  from: string;
  state: 'ringing' | 'pre_accepted' | 'accepted' | 'ended';
  /** Absent on calls placed before directions were modelled: user-initiated. */
  direction?: 'USER_INITIATED' | 'BUSINESS_INITIATED';
  /** The SDP answer of a pre-accept: the accept must send the same one (provider-2026.md §7.2). */
  answerSdp?: string;
  /** When the call was answered (simulator clock, ms): the terminate webhook's start_time and duration. */
  acceptedAt?: number;
  bizOpaque?: string;
}

/** An uploaded or received media: owned by a business number, sendable by its account. */
export interface SimMedia {
  id: string;
  phoneId: string;
  wabaId: string;
  mimeType: string;
  bytes: Buffer;
  /** Hex SHA-256 of the bytes. */
  sha256: string;
  createdAt: number;
  /** Uploaded media live 30 days, media customers sent 7 (supplement §3): afterwards the id is unknown. */
  expiresAt: number;
}

/** How long a media id lives (supplement §3, provider-2026.md §9): an upload 30 days, a customer's media 7. */
export const MEDIA_TTL_MS = { upload: 30 * 86_400_000, received: 7 * 86_400_000 } as const;

export interface RecordedRequest {
  id: number;
  at: string;
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
  raw_content_type: string | null;
}

export interface Fault {
  match: { method?: string; path_contains: string };
  remaining: number;
  status?: number;
  error?: {
    code: number;
    message: string;
    type?: string;
    error_subcode?: number;
    error_data?: { details?: string };
    error_user_title?: string;
    error_user_msg?: string;
    fbtrace_id?: string;
  };
  delay_ms?: number;
  drop?: boolean;
}

export interface Flow {
  id: string;
  wabaId: string;
  name: string;
  categories: string[];
  status: FlowStatus;
  json: string | null;
  validationErrors: FlowValidationError[];
  jsonVersion: string | null;
  endpointUri: string | null;
  createdAt: string;
  updatedAt: string;
}

export const FLOW_STATUSES = ['DRAFT', 'PUBLISHED', 'DEPRECATED', 'BLOCKED', 'THROTTLED'] as const;
export type FlowStatus = (typeof FLOW_STATUSES)[number];

export interface SignupCode {
  code: string;
  wabaId: string;
  phoneId: string;
  businessId: string;
  used: boolean;
  expiresAt: number;
}

const digits = (n: number) => Array.from({ length: n }, (_, i) => (i === 0 ? 1 + Math.floor(Math.random() * 9) : Math.floor(Math.random() * 10))).join('');

/** Everything the simulated provider knows; in memory, like a sandbox account. */
export class SimState {
  readonly phones = new Map<string, PhoneNumber>();
  readonly wabas = new Map<string, Waba>();
  /** access token → the WABAs it may act on */
  readonly tokens = new Map<string, Set<string>>();
  readonly sent = new Map<string, SentMessage>();
  /** Business accounts that accepted the Marketing Messages API terms (provider-2026.md §3.2). */
  readonly mmOnboarded = new Set<string>();
  /** Users by BSUID and phone, per portfolio (provider-2026.md §2). */
  readonly users = new SimUsers();
  /** inbound wamid → phone and sender */
  readonly inbound = new Map<string, { phoneId: string; from: string }>();
  /** `${phoneId}:${user}` → last inbound time (ms) */
  readonly lastInbound = new Map<string, number>();
  readonly blocked = new Map<string, Set<string>>();
  readonly calls = new Map<string, Call>();
  /** Calling settings and call permissions per business number (provider-2026.md §7). */
  readonly calling = new SimCalling();
  readonly flows = new Map<string, Flow>();
  /** Message templates by id (kept by the TemplateRegistry). */
  readonly templates = new Map<string, SimTemplate>();
  readonly codes = new Map<string, SignupCode>();
  /**
   * The Graph API requests received (`GET /_sim/requests`), oldest first: the newest `requestLogMax` of them, so a
   * simulator left running (`npm start`, docker compose) does not grow without end; `requestsDropped` counts the
   * older ones let go since the log was last emptied.
   */
  readonly requests: RecordedRequest[] = [];
  requestLogMax = DEFAULT_REQUEST_LOG_MAX;
  requestsDropped = 0;
  /** Media by id (uploads and what customers sent). */
  readonly media = new Map<string, SimMedia>();
  /** Signs the short-lived media URLs. */
  readonly mediaUrlKey = randomBytes(32);
  /** Where media URLs point instead of the configured media host (`PUT /_sim/media-base-url`). */
  mediaBaseUrlOverride: string | undefined;
  /** Downloads asked of the media host, whatever their outcome, with the User-Agent each sent (the last 1000). */
  readonly mediaDownloads: Array<{ at: string; user_agent: string | null }> = [];
  faults: Fault[] = [];
  webhookUrl: string | undefined;
  /** Throughput per business number (130429) and the pair rate (131056): on by default, like the provider. */
  rateLimits: { throughputPerSecond: number | null; pairRate: boolean } = { throughputPerSecond: 80, pairRate: true };
  /** A number's own throughput (messages per second), set by a test; others have `rateLimits.throughputPerSecond`. */
  readonly phoneThroughput = new Map<string, number>();
  /** `${wabaId}:${user digits}` of users who stopped the business's marketing messages (`user_preferences` stop): 131050. */
  readonly marketingOptOuts = new Set<string>();
  /**
   * The 24-hour customer-service window (131047) for free-form messages: `async` (the provider's usual behaviour,
   * reference §1.2) accepts the send and reports a `failed` status, `sync` refuses the send, `off` sends anyway.
   */
  window: 'sync' | 'async' | 'off' = 'async';
  /**
   * The statuses auto-statuses report: every `skipDeliveredEvery`-th message (counted per simulator) goes from
   * `sent` straight to `read`, as when a message is delivered and read at once (reference §7.6; 0: never);
   * voice messages (OPUS audio) are `played` after `read`.
   */
  readonly statusPlan = { skipDeliveredEvery: 5, playedForVoice: true };
  /** Messages auto-statuses reported so far (the skip-delivered counter). */
  autoStatusCount = 0;
  /** Statuses scripted for the next message to a recipient (`PUT /_sim/status-script`), used once, before the plan. */
  readonly scriptedStatuses = new Map<string, string[]>();
  /** Recipients whose messages are accepted, then fail asynchronously with this error code (e.g. 131026). */
  readonly undeliverable = new Map<string, number>();
  /** Business numbers in maintenance (131057) until this time (ms). */
  readonly maintenance = new Map<string, number>();
  /** access token → expiry (ms); an expired token is refused with 190/463. */
  readonly tokenExpiry = new Map<string, number>();
  /** Lifetime of newly issued tokens; business integration tokens live about 60 days. */
  tokenTtlMs = 60 * 24 * 3600_000;
  readonly registration: RegistrationLimits = { attempts: 10, attemptsWindowMs: 72 * 3600_000, pinGuesses: 5, pinLockMs: 12 * 3600_000 };
  /** How far a test moved the simulator's clock ahead of real time (`POST /_sim/clock`): media ids, windows, tokens. */
  clockOffsetMs = 0;
  private requestSeq = 0;

  /** The simulator's time (ms): real time, plus what a test advanced it by. Expiries and windows read this. */
  now(): number {
    return Date.now() + this.clockOffsetMs;
  }

  /** Keeps `rec` in the request log, letting the oldest tenth go when the log is full (one move per many requests). */
  recordRequest(rec: RecordedRequest): void {
    if (this.requests.length >= this.requestLogMax) {
      const n = Math.min(this.requests.length, Math.max(1, Math.ceil(this.requestLogMax / 10)));
      this.requests.splice(0, n);
      this.requestsDropped += n;
    }
    this.requests.push(rec);
  }

  nextRequestId(): number {
    return ++this.requestSeq;
  }

  newId(len = 15): string {
    return digits(len);
  }

  /**
   * An id the provider also sends as a JSON number (a template's `message_template_id`): 16 digits like the
   * provider's, below Number.MAX_SAFE_INTEGER so a JSON parser reads it back exactly.
   */
  numericId(): string {
    return `1${digits(15)}`;
  }

  wamid(): string {
    return `wamid.${pooledRandom(24)}`;
  }

  wacid(): string {
    return `wacid.${randomBytes(24).toString('base64url')}`;
  }

  token(): string {
    return `EAAsim${randomBytes(24).toString('base64url')}`;
  }

  /** A business account; `catalogId` links that catalog (a test that must name it), `withCatalog` a new one. */
  createWaba(opts: { id?: string; businessId?: string; withCatalog?: boolean; catalogId?: string } = {}): Waba {
    const existing = opts.id ? this.wabas.get(opts.id) : undefined;
    if (existing) {
      if (opts.withCatalog && !existing.catalogId) existing.catalogId = this.newId();
      return existing;
    }
    const waba: Waba = {
      id: opts.id ?? this.newId(),
      businessId: opts.businessId ?? this.newId(),
      catalogId: opts.catalogId ?? (opts.withCatalog ? this.newId() : null),
      subscribedApps: new Set(),
    };
    this.wabas.set(waba.id, waba);
    return waba;
  }

  createPhone(waba: Waba, opts: { id?: string; display?: string; registered?: boolean } = {}): PhoneNumber {
    const phone: PhoneNumber = {
      id: opts.id ?? this.newId(),
      wabaId: waba.id,
      display: opts.display ?? `1555${digits(7)}`,
      registered: opts.registered ?? true,
      registerLog: [],
      wrongPins: 0,
    };
    this.phones.set(phone.id, phone);
    return phone;
  }

  issueToken(wabaId: string): string {
    const t = this.token();
    this.tokens.set(t, new Set([wabaId]));
    this.tokenExpiry.set(t, this.now() + this.tokenTtlMs);
    return t;
  }

  tokenExpired(token: string): boolean {
    const at = this.tokenExpiry.get(token);
    return at !== undefined && at <= this.now();
  }

  /** A media by id while it lives (an expired one is as unknown as one that never existed). */
  liveMedia(id: string): SimMedia | undefined {
    const m = this.media.get(id);
    return m && m.expiresAt > this.now() ? m : undefined;
  }

  tokenAllows(token: string, wabaId: string): boolean {
    return this.tokens.get(token)?.has(wabaId) ?? false;
  }

  recordInbound(phoneId: string, from: string, wamid: string, at = this.now()): void {
    this.inbound.set(wamid, { phoneId, from });
    this.lastInbound.set(`${phoneId}:${userKey(from)}`, at);
  }

  /** A user wrote in from a phone number that is also known by a BSUID: the window is open for both. */
  recordInboundUser(phoneId: string, userId: string, at = this.now()): void {
    this.lastInbound.set(`${phoneId}:${userId}`, at);
  }

  messagedWithin24h(phoneId: string, user: string): boolean {
    const at = this.lastInbound.get(`${phoneId}:${userKey(user)}`);
    return at !== undefined && this.now() - at < 24 * 3600_000;
  }
}

/** A user as the 24-hour window knows them: a BSUID as it is, a phone number by its digits. */
const userKey = (user: string) => (BSUID.test(user) ? user : normalize(user));

export function normalize(phone: string): string {
  return phone.replace(/[^\d]/g, '');
}

/**
 * `n` random bytes as base64url, cut from a pool filled 4 KB at a time: a message id each send without a call into
 * the system's random source each (3.6 % of the simulator's busy time in the campaign bench).
 */
let randomPool = Buffer.alloc(0);
let randomAt = 0;
function pooledRandom(n: number): string {
  if (randomAt + n > randomPool.length) {
    randomPool = randomBytes(4096);
    randomAt = 0;
  }
  randomAt += n;
  return randomPool.subarray(randomAt - n, randomAt).toString('base64url');
}
