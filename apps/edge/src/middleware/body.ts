import type { IncomingMessage } from 'node:http';
import type { Context, Next } from 'koa';
import { AppError } from '@gateway/errors';
import { jsonShapeExceeds, mayHoldUnstorableText, MAX_JSON_DEPTH, MAX_OBJECT_MEMBERS, unstorableTextIssues } from '../storable-text';

declare module 'koa' {
  interface Request {
    body?: unknown;
    rawBody?: Buffer;
  }
}

/**
 * Reads the raw body up to `limit` bytes; larger is a 413 (declared larger: refused unread, and the connection
 * closed). A body that has not arrived within `timeoutMs` is a 408 and the connection is closed (the server's own
 * request timeout is the media upload's, docs/media.md: every other body keeps this shorter one).
 */
export async function readRaw(ctx: Context, limit: number, timeoutMs = 60_000): Promise<Buffer> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limit) {
    // nothing of it is read: the answer closes the connection, which a client still sending the body held open
    // (not idle: a graceful shutdown waited its 10 s out for it)
    ctx.set('Connection', 'close');
    throw tooLarge(limit);
  }
  const reading = collect(ctx.req, limit);
  let expired: { until: number; expire(): void } | undefined;
  const late = new Promise<never>((_, reject) => {
    expired = {
      until: performance.now() + timeoutMs,
      expire() {
        // the rest of the body is not waited for: the answer closes the connection
        reading.catch(() => undefined);
        ctx.set('Connection', 'close');
        reject(new AppError('request_timeout', 'request_body_timeout', `The request body did not arrive within ${timeoutMs} ms`));
      },
    };
  });
  bodyDeadlines.watch(expired!);
  try {
    return await Promise.race([reading, late]);
  } finally {
    bodyDeadlines.done(expired!);
  }
}

/**
 * The body's chunks, up to `limit` bytes; past it the rest is drained unread and the read fails with a 413. Read
 * through the stream's events rather than `for await`: the async iterator made an iterator, an end-of-stream
 * watcher and a promise per chunk, about 2 % of the edge's busy time in the ingest profiles.
 */
function collect(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (fail?: unknown) => {
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      if (fail) reject(fail);
      else resolve(Buffer.concat(chunks, size)); // a copy: a chunk is a view of the socket's whole read
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      done(tooLarge(limit));
      req.unpipe();
      req.resume();
    };
    const onEnd = () => done();
    const onError = (e: unknown) => done(e);
    // the client went away before the end of its body
    const onClose = () => done(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    if (req.readableEnded) return resolve(Buffer.alloc(0));
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

/**
 * The body reads in progress and their deadlines, checked by one timer for all of them (every 250 ms while any
 * is pending) instead of a timer set and cleared per request.
 */
const bodyDeadlines = new (class {
  private readonly pending = new Set<{ until: number; expire(): void }>();
  private sweeper: NodeJS.Timeout | undefined;

  watch(read: { until: number; expire(): void }): void {
    this.pending.add(read);
    if (!this.sweeper) {
      this.sweeper = setInterval(() => this.sweep(), 250);
      this.sweeper.unref();
    }
  }

  done(read: { until: number; expire(): void }): void {
    this.pending.delete(read);
  }

  private sweep(): void {
    const now = performance.now();
    for (const read of this.pending) {
      if (read.until > now) continue;
      this.pending.delete(read);
      read.expire();
    }
    if (!this.pending.size) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }
})();

function tooLarge(limit: number) {
  return new AppError('too_large', 'body_too_large', `Request body exceeds ${limit} bytes`);
}

/**
 * JSON bodies only (`ownBody` routes excepted): a body with another content type is a 415; malformed JSON, JSON nested deeper than
 * MAX_JSON_DEPTH, an object of more than MAX_OBJECT_MEMBERS members and text PostgreSQL cannot store are a 422 before any work. An empty body is `undefined`
 * (the route's schema decides whether that is acceptable).
 */
export function jsonBody(limit: number, opts: { timeoutMs?: number; ownBody?: (ctx: Context) => boolean } = {}) {
  return async (ctx: Context, next: Next) => {
    // a route that reads its own body (the media upload, multipart up to 100 MB)
    if (opts.ownBody?.(ctx)) return next();
    if (['POST', 'PUT', 'PATCH', 'DELETE'].includes(ctx.method)) {
      const raw = await readRaw(ctx, limit, opts.timeoutMs);
      ctx.request.rawBody = raw;
      if (raw.length > 0) {
        if (!ctx.is('application/json', '+json')) {
          throw new AppError('unsupported_media', 'unsupported_media_type', 'Request body must be application/json');
        }
        ctx.request.body = parseJsonBody(raw.toString('utf8'));
      }
    }
    await next();
  };
}

/** Parses a request body's JSON text under the edge's limits; every refusal is a 422 naming `body`. */
export function parseJsonBody(text: string): unknown {
  const exceeded = jsonShapeExceeds(text, { maxDepth: MAX_JSON_DEPTH, maxMembers: MAX_OBJECT_MEMBERS });
  if (exceeded === 'depth') {
    throw AppError.validation([
      { loc: ['body'], msg: `JSON is nested deeper than ${MAX_JSON_DEPTH} levels`, type: 'json_too_deep', input: null, ctx: { max_depth: MAX_JSON_DEPTH } },
    ]);
  }
  if (exceeded === 'members') {
    throw AppError.validation([
      {
        loc: ['body'],
        msg: `A JSON object has more than ${MAX_OBJECT_MEMBERS} members`,
        type: 'too_many_properties',
        input: null,
        ctx: { max_properties: MAX_OBJECT_MEMBERS },
      },
    ]);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (e) {
    // the parser's message quotes the text around the error, which may hold a secret: only the position is told
    const position = /position (\d+)/.exec((e as Error).message)?.[1];
    const msg = position === undefined ? 'Invalid JSON' : `Invalid JSON at position ${position}`;
    throw AppError.validation([{ loc: ['body'], msg, type: 'json_invalid', input: null, ctx: position === undefined ? {} : { position: Number(position) } }]);
  }
  const issues = mayHoldUnstorableText(text) ? unstorableTextIssues(body, ['body']) : [];
  if (issues.length) throw AppError.validation(issues);
  return body;
}
