import { Readable } from 'node:stream';
import { Agent, FormData, errors as undiciErrors, request, type Dispatcher } from 'undici';
import { AppError } from '@gateway/errors';
import { currentRequestId, type Logger } from '@gateway/logger';
import { deadline } from '@gateway/runtime';
import { classifyProviderError, isTransientProviderError, providerCodeOf } from './errors';

export interface ProviderHttpOptions {
  /** e.g. https://graph.facebook.com (no version segment). */
  baseUrl: string;
  /** Path version segment, e.g. v21.0. */
  apiVersion: string;
  /** Per call: connect + headers + body. */
  timeoutMs: number;
  /** The User-Agent of every request (the provider's media host answers a page instead of the file without one). */
  userAgent?: string;
  logger?: Logger;
  /** Bounded retries for calls that are safe to repeat. */
  retryDelaysMs?: number[];
  /** Told the outcome of every call once it is final (after retries): for metrics. */
  observer?: ProviderCallObserver;
}

/** One finished call: `operation` is `METHOD /path` with ids as `{id}`; `errorCode` the provider's code, else ours. */
export type ProviderCallObserver = (call: { operation: string; outcome: string; errorCode: string; durationMs: number }) => void;

export interface CallOptions {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  token?: string;
  query?: Record<string, string>;
  json?: unknown;
  form?: FormData;
  /** A streamed body (media uploads): read once, so the call is never repeated once it started. */
  stream?: { contentType: string; body: AsyncIterable<Uint8Array> };
  /** This call's own time limit instead of the client's (an upload as long as the tenant's file). */
  timeoutMs?: number;
  /**
   * Whether repeating the call is harmless. Sends and call actions are not: once the request may have
   * reached the provider, a retry could deliver a second message or act twice. They are retried only when
   * the connection was refused (nothing was sent).
   */
  idempotent: boolean;
  /**
   * An error answer that is data for this operation (block users: 139100 with the `failed_users` of a request
   * where every user failed): returned like a success instead of thrown.
   */
  dataOnError?: (body: unknown) => boolean;
  /** `phone_number_id:recipient` of a send: 131056 (pair rate limit) backs off 4^n seconds per pair. */
  pair?: string;
  /** This call's waits between retries of a transient failure instead of the client's (a longer one for registration). */
  retryDelaysMs?: number[];
}

/** Pairs remembered for the 131056 backoff; beyond this the oldest is forgotten. */
const MAX_PAIRS = 10_000;

const RETRY_DELAYS = [100, 300];

/** The User-Agent when none is configured (`PROVIDER_USER_AGENT` of the services' config names the version). */
export const DEFAULT_USER_AGENT = 'messaging-gateway';

/** HTTP to the provider's Graph API over a keep-alive pool; every failure becomes a classified AppError. */
export class ProviderHttp {
  private readonly agent: Agent;
  private readonly base: string;
  /** Consecutive 131056 answers per pair (reset by a success): the n of its 4^n seconds Retry-After. */
  private readonly pairFailures = new Map<string, number>();

  /** Sent on every request: Graph calls, signed downloads, media downloads (media.ts). */
  readonly userAgent: string;

  constructor(private readonly opts: ProviderHttpOptions) {
    this.userAgent = opts.userAgent ?? DEFAULT_USER_AGENT;
    this.base = opts.baseUrl.replace(/\/+$/, '');
    this.agent = new Agent({ keepAliveTimeout: 30_000, connections: 128, connectTimeout: Math.min(opts.timeoutMs, 10_000) });
  }

  /** The keep-alive pool, for the media download (media.ts) that reaches the provider's media hosts. */
  get dispatcher(): Dispatcher {
    return this.agent;
  }

  url(path: string, query?: Record<string, string>): string {
    const u = new URL(`${this.base}/${this.opts.apiVersion}/${path.replace(/^\/+/, '')}`);
    for (const [k, v] of Object.entries(query ?? {})) u.searchParams.set(k, v);
    return u.toString();
  }

  async call<T>(o: CallOptions): Promise<T> {
    const delays = o.retryDelaysMs ?? this.opts.retryDelaysMs ?? RETRY_DELAYS;
    const started = performance.now();
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await this.once<T>(o);
        if (o.pair) this.pairFailures.delete(o.pair);
        this.report(o, started);
        return res;
      } catch (e) {
        const err = e as AppError & { notSent?: boolean };
        // an error answer (a provider code) means the provider did not act: safe to repeat whatever the call
        const answered = providerCodeOf(err) !== null;
        const retryable = err.notSent || (isTransientProviderError(err) && (answered || o.idempotent));
        // a streamed body was read once: it cannot be sent again, and a lost upload leaves no message to check
        if (!retryable || attempt >= delays.length || o.stream) {
          const final =
            !o.stream && !o.idempotent && !err.notSent && !answered && (err.kind === 'timeout' || err.kind === 'unavailable') ? outcomeUnknown(err) : err;
          this.report(o, started, final);
          throw final;
        }
        this.opts.logger?.warn({ path: o.path, attempt: attempt + 1, code: err.code }, 'retrying provider call');
        await new Promise((r) => setTimeout(r, delays[attempt]));
      }
    }
  }

  /** Reports a call made outside `call()` (a media download) to the observer. */
  reportCall(method: CallOptions['method'], path: string, started: number, err?: AppError): void {
    this.report({ method, path }, started, err);
  }

  private report(o: Pick<CallOptions, 'method' | 'path'>, started: number, err?: AppError): void {
    if (!this.opts.observer) return;
    const providerCode = (err?.details?.provider_error as { code?: unknown } | undefined)?.code;
    const errorCode = !err ? '' : typeof providerCode === 'number' ? String(providerCode) : (err.code ?? 'unknown');
    try {
      this.opts.observer({ operation: operationName(o), outcome: err ? (err.kind ?? 'internal') : 'ok', errorCode, durationMs: performance.now() - started });
    } catch {
      // metrics never fail a call
    }
  }

  private async once<T>(o: CallOptions): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.userAgent };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    const requestId = currentRequestId();
    if (requestId) headers['x-request-id'] = requestId;
    let body: string | FormData | Readable | undefined;
    if (o.stream) {
      headers['content-type'] = o.stream.contentType;
      body = Readable.from(o.stream.body, { objectMode: false });
    } else if (o.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(o.json);
    } else if (o.form) {
      body = o.form;
    }
    const timeoutMs = o.timeoutMs ?? this.opts.timeoutMs;
    let res: Dispatcher.ResponseData;
    let text: string;
    const limit = deadline(timeoutMs);
    try {
      try {
        res = await request(this.url(o.path, o.query), {
          method: o.method,
          headers,
          body,
          dispatcher: this.agent,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          signal: limit.signal,
        });
      } catch (e) {
        throw o.stream ? streamError(e, timeoutMs) : transportError(e, timeoutMs);
      }
      try {
        text = await res.body.text();
      } catch (e) {
        throw transportError(e, timeoutMs);
      }
    } finally {
      limit.clear();
    }
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      parsed = undefined;
    }
    if (res.statusCode >= 200 && res.statusCode < 300 && parsed !== undefined && !(parsed as { error?: unknown }).error) return parsed as T;
    if (parsed !== undefined && o.dataOnError?.(parsed)) return parsed as T;
    const retryAfter = res.headers['retry-after'];
    const pairFailures = o.pair ? (this.pairFailures.get(o.pair) ?? 0) : 0;
    const err = classifyProviderError(res.statusCode, parsed, Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, { pairFailures });
    if (o.pair && providerCodeOf(err) === 131056) this.notePairFailure(o.pair, pairFailures + 1);
    throw err;
  }

  /**
   * GET of an absolute URL the provider handed out (an asset's `download_url`): no token (it is a signed link,
   * possibly on another host), the same timeout, text back. Safe to repeat, so retried like idempotent calls.
   */
  async download(url: string): Promise<string> {
    if (!/^https?:\/\//.test(url)) throw new AppError('unavailable', 'provider_bad_response', 'The provider gave a download URL that is not http(s)');
    const delays = this.opts.retryDelaysMs ?? RETRY_DELAYS;
    for (let attempt = 0; ; attempt++) {
      const limit = deadline(this.opts.timeoutMs);
      try {
        const res = await request(url, {
          method: 'GET',
          headers: { 'user-agent': this.userAgent },
          dispatcher: this.agent,
          headersTimeout: this.opts.timeoutMs,
          bodyTimeout: this.opts.timeoutMs,
          signal: limit.signal,
        }).catch((e: unknown) => {
          limit.clear();
          throw transportError(e, this.opts.timeoutMs);
        });
        const text = await res.body
          .text()
          .catch((e: unknown) => {
            throw transportError(e, this.opts.timeoutMs);
          })
          .finally(() => limit.clear());
        if (res.statusCode >= 200 && res.statusCode < 300) return text;
        throw classifyProviderError(res.statusCode, undefined);
      } catch (e) {
        const err = e as AppError;
        if (err.kind !== 'unavailable' || attempt >= delays.length) throw err;
        await new Promise((r) => setTimeout(r, delays[attempt]));
      }
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  private notePairFailure(pair: string, n: number): void {
    this.pairFailures.delete(pair);
    this.pairFailures.set(pair, n);
    if (this.pairFailures.size > MAX_PAIRS) this.pairFailures.delete(this.pairFailures.keys().next().value as string);
  }
}

/**
 * A send or call action that may have reached the provider without an answer (timeout, connection broken
 * after the request was written): whether it acted is unknown. Never repeated; the idempotency key keeps
 * this outcome so a retry under the same key cannot send twice.
 */
function outcomeUnknown(cause: AppError): AppError {
  return new AppError(
    'timeout',
    'provider_outcome_unknown',
    `The provider did not confirm the request (${cause.message}); it may have been carried out. Check the message status (chat status events or GET /api/messages) before sending again under a new Idempotency-Key`,
    { details: { outcome: 'unknown' }, cause },
  );
}

/** `POST /{id}/messages`: the method and the path with every id segment (anything but lowercase words) as `{id}`. */
export function operationName(o: Pick<CallOptions, 'method' | 'path'>): string {
  const path = o.path
    .replace(/^\/+/, '')
    .split('/')
    .map((seg) => (/^[a-z_]+$/.test(seg) ? seg : '{id}'))
    .join('/');
  return `${o.method} /${path}`;
}

/** A streamed body that failed on our side (the tenant's upload refused or broken off) keeps its own error. */
function streamError(e: unknown, timeoutMs: number): AppError {
  let cur: unknown = e;
  for (let i = 0; i < 5 && cur; i++) {
    if (cur instanceof AppError) return cur;
    cur = (cur as { cause?: unknown }).cause;
  }
  return transportError(e, timeoutMs);
}

function transportError(e: unknown, timeoutMs: number): AppError {
  const err = e as { code?: string; name?: string; message?: string };
  const timedOut =
    err.name === 'TimeoutError' ||
    err.name === 'AbortError' ||
    e instanceof undiciErrors.HeadersTimeoutError ||
    e instanceof undiciErrors.BodyTimeoutError ||
    e instanceof undiciErrors.ConnectTimeoutError;
  if (timedOut) return new AppError('timeout', 'provider_timeout', `The provider did not answer within ${timeoutMs} ms`, { cause: e });
  const out = new AppError('unavailable', 'provider_unavailable', `The provider is unreachable (${err.code ?? err.message ?? 'error'})`, { cause: e });
  // nothing reached the provider: safe to retry whatever the operation
  if (err.code === 'ECONNREFUSED' || err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') (out as AppError & { notSent?: boolean }).notSent = true;
  return out;
}
