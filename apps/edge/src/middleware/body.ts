import type { Context, Next } from 'koa';
import { AppError } from '@gateway/errors';

declare module 'koa' {
  interface Request {
    body?: unknown;
    rawBody?: Buffer;
  }
}

/** Reads the raw body up to `limit` bytes; larger is a 413 and the rest is not read. */
export async function readRaw(ctx: Context, limit: number): Promise<Buffer> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      ctx.req.unpipe();
      ctx.req.resume();
      throw tooLarge(limit);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function tooLarge(limit: number) {
  return new AppError('too_large', 'body_too_large', `Request body exceeds ${limit} bytes`);
}

/**
 * JSON bodies only: a body with another content type is a 415, malformed JSON a 422 `json_invalid`.
 * An empty body is `undefined` (the route's schema decides whether that is acceptable).
 */
export function jsonBody(limit: number) {
  return async (ctx: Context, next: Next) => {
    if (['POST', 'PUT', 'PATCH', 'DELETE'].includes(ctx.method)) {
      const raw = await readRaw(ctx, limit);
      ctx.request.rawBody = raw;
      if (raw.length > 0) {
        if (!ctx.is('application/json', '+json')) {
          throw new AppError('unsupported_media', 'unsupported_media_type', 'Request body must be application/json');
        }
        try {
          ctx.request.body = JSON.parse(raw.toString('utf8'));
        } catch (e) {
          throw AppError.validation([
            { loc: ['body'], msg: `Invalid JSON: ${(e as Error).message}`, type: 'json_invalid', input: raw.toString('utf8').slice(0, 200), ctx: { error: (e as Error).message } },
          ]);
        }
      }
    }
    await next();
  };
}
