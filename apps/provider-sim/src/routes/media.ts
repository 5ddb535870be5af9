import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { Context, Next } from 'koa';
import type Router from '@koa/router';
import { fromBuffer } from 'file-type';
import { GraphError, invalidParameter, unknownObject } from '../errors';
import { MEDIA_TTL_MS, type SimMedia, type SimState } from '../state';
import { bearer, jsonBody, phoneFor } from './graph';

/*
 * The provider's media API (supplement §2, §3): upload to a business number (multipart: messaging_product, type,
 * file) with the provider's type and size checks, the media's short-lived URL, its download (bearer token
 * required), delete. Media uploaded by a number or received by it may be sent by its business account.
 */

const MB = 1024 * 1024;
const KB = 1024;

/** Supplement §2: the types the provider takes and each one's limit. */
const LIMITS: Record<string, number> = {
  'audio/aac': 16 * MB,
  'audio/amr': 16 * MB,
  'audio/mpeg': 16 * MB,
  'audio/mp4': 16 * MB,
  'audio/ogg': 16 * MB,
  'text/plain': 100 * MB,
  'application/pdf': 100 * MB,
  'application/msword': 100 * MB,
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 100 * MB,
  'application/vnd.ms-excel': 100 * MB,
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 100 * MB,
  'application/vnd.ms-powerpoint': 100 * MB,
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 100 * MB,
  'image/jpeg': 5 * MB,
  'image/png': 5 * MB,
  'image/webp': 100 * KB,
  'video/mp4': 16 * MB,
  'video/3gpp': 16 * MB,
};
const ANIMATED_STICKER_LIMIT = 500 * KB;

/** What the bytes may be declared as, by what file-type finds in them (containers allow several). */
const COMPATIBLE: Record<string, string[]> = {
  'application/x-cfb': ['application/msword', 'application/vnd.ms-excel', 'application/vnd.ms-powerpoint'],
  'application/zip': [
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  ],
  'video/mp4': ['video/mp4', 'audio/mp4'],
  'audio/x-m4a': ['audio/mp4'],
  'audio/opus': ['audio/ogg'],
};

/** What the media host answers a download without a User-Agent: a page, with a 200. */
const NO_AGENT_PAGE = "<!DOCTYPE html><html><head><title>WhatsApp</title></head><body><p>Sorry, this content isn't available right now.</p></body></html>";

/** A media URL lives 5 minutes (supplement §3). */
export const MEDIA_URL_TTL_MS = 5 * 60_000;

const uploadError = (details: string) => new GraphError(400, 131053, '(#131053) Media upload error', { details });

export function isAnimatedWebp(b: Buffer): boolean {
  return b.length >= 21 && b.toString('latin1', 12, 16) === 'VP8X' && (b[20] & 0x02) !== 0;
}

/** The provider's checks of an upload: a type it takes, bytes of that type, within the type's limit. */
export async function checkMedia(bytes: Buffer, declared: string): Promise<void> {
  const type = declared.split(';')[0].trim().toLowerCase();
  const limit = LIMITS[type];
  if (limit === undefined)
    throw uploadError(`Param file must be a file with one of the following types: ${Object.keys(LIMITS).join(', ')}. Received file of type '${type}'.`);
  if (bytes.length === 0) throw uploadError('The file is empty');
  const found = (await fromBuffer(bytes))?.mime;
  const ok = found === undefined ? type === 'text/plain' : found === type || (COMPATIBLE[found] ?? []).includes(type);
  if (!ok) throw uploadError(`The file's content (${found ?? 'unknown'}) does not match its type ${type}`);
  const max = type === 'image/webp' && isAnimatedWebp(bytes) ? ANIMATED_STICKER_LIMIT : limit;
  if (bytes.length > max) throw uploadError(`The file is ${bytes.length} bytes; ${type} files may be at most ${max} bytes`);
}

export interface MediaRouteDeps {
  state: SimState;
  /** Origin of the media download URLs (the provider's media host: not the Graph API's). */
  mediaBaseUrl: () => string;
}

/** The signed, expiring download URL of a media (like the provider's lookaside links). */
export function mediaUrl(d: MediaRouteDeps, m: SimMedia, now = d.state.now()): string {
  const ext = String(now + MEDIA_URL_TTL_MS);
  const hash = createHmac('sha256', d.state.mediaUrlKey).update(`${m.id}:${ext}`).digest('base64url');
  const u = new URL('/whatsapp_business/attachments/', d.mediaBaseUrl());
  u.searchParams.set('mid', m.id);
  u.searchParams.set('ext', ext);
  u.searchParams.set('hash', hash);
  return u.toString();
}

/**
 * Stores bytes as a media of `phoneId`: an upload, or what a customer sent (`received`, which lives 7 days instead
 * of 30), under `id` when given (a test that must know it beforehand).
 */
export function storeMedia(state: SimState, phoneId: string, bytes: Buffer, mimeType: string, origin: keyof typeof MEDIA_TTL_MS, id?: string): SimMedia {
  const phone = state.phones.get(phoneId)!;
  const now = state.now();
  const m: SimMedia = {
    id: id ?? state.newId(16),
    phoneId,
    wabaId: phone.wabaId,
    mimeType,
    bytes,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    createdAt: now,
    expiresAt: now + MEDIA_TTL_MS[origin],
  };
  state.media.set(m.id, m);
  return m;
}

function mediaFor(ctx: Context, state: SimState, id: string, method: string): SimMedia {
  const token = bearer(ctx, state);
  const m = state.liveMedia(id);
  if (!m || !state.tokens.has(token) || !state.tokenAllows(token, m.wabaId)) throw unknownObject(id, method);
  const phone = typeof ctx.query.phone_number_id === 'string' ? ctx.query.phone_number_id : undefined;
  if (phone !== undefined && phone !== m.phoneId) throw unknownObject(id, method);
  return m;
}

/** Graph routes (`graph`, recorded) and the media host's download (`host`, outside the Graph API). */
export function registerMedia(graph: Router, host: Router, d: MediaRouteDeps): void {
  const { state } = d;

  graph.post('/:phoneId/media', async (ctx) => {
    const phone = phoneFor(ctx, state, ctx.params.phoneId);
    if (!ctx.get('content-type').startsWith('multipart/form-data')) throw invalidParameter('Media must be uploaded as multipart/form-data');
    const b = jsonBody(ctx);
    if (b.messaging_product !== 'whatsapp') throw invalidParameter('The parameter messaging_product is required and must be whatsapp');
    const file = (ctx.state.files as Record<string, { type: string; bytes: Buffer }> | undefined)?.file;
    if (!file) throw invalidParameter('The parameter file is required');
    const declared = typeof b.type === 'string' && b.type ? b.type : file.type;
    await checkMedia(file.bytes, declared);
    const m = storeMedia(state, phone.id, file.bytes, declared.split(';')[0].trim().toLowerCase(), 'upload');
    ctx.body = { id: m.id };
  });

  // registered after every other GET/DELETE /{id}: an id no other object has is the provider's "does not exist"
  graph.get('/:mediaId', (ctx: Context, next: Next) => {
    if (!/^\d+$/.test(ctx.params.mediaId)) return next();
    const m = mediaFor(ctx, state, ctx.params.mediaId, 'get');
    ctx.body = { messaging_product: 'whatsapp', url: mediaUrl(d, m), mime_type: m.mimeType, sha256: m.sha256, file_size: String(m.bytes.length), id: m.id };
  });

  graph.delete('/:mediaId', (ctx: Context, next: Next) => {
    if (!/^\d+$/.test(ctx.params.mediaId)) return next();
    const m = mediaFor(ctx, state, ctx.params.mediaId, 'delete');
    state.media.delete(m.id);
    ctx.body = { success: true };
  });

  host.get('/whatsapp_business/attachments', (ctx) => {
    const agent = ctx.get('user-agent') || null;
    state.mediaDownloads.push({ at: new Date().toISOString(), user_agent: agent });
    if (state.mediaDownloads.length > 1000) state.mediaDownloads.shift();
    const auth = /^Bearer (.+)$/.exec(ctx.get('authorization'));
    const mid = String(ctx.query.mid ?? '');
    const ext = String(ctx.query.ext ?? '');
    const expected = createHmac('sha256', state.mediaUrlKey).update(`${mid}:${ext}`).digest('base64url');
    const m = state.liveMedia(mid);
    // without the token the provider answers as if there were nothing (the URL alone is not enough)
    if (!auth || !state.tokens.has(auth[1]) || state.tokenExpired(auth[1])) {
      ctx.status = 401;
      ctx.body = { error: { message: 'Invalid OAuth access token', type: 'OAuthException', code: 190, fbtrace_id: randomBytes(9).toString('base64url') } };
      return;
    }
    // without a User-Agent the media host answers a web page, not the file (provider-2026.md §9: what client
    // libraries report; the file comes only to a request that names its client)
    if (!agent) {
      ctx.status = 200;
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = NO_AGENT_PAGE;
      return;
    }
    if (!m || ctx.query.hash !== expected || !(Number(ext) > state.now()) || !state.tokenAllows(auth[1], m.wabaId)) {
      ctx.status = 404;
      ctx.body = 'Not Found';
      return;
    }
    ctx.set('Content-Type', m.mimeType);
    ctx.set('Content-Length', String(m.bytes.length));
    ctx.body = m.bytes;
  });

  /** Control: the media host's downloads so far (oldest first, at most 1000), with the User-Agent each sent. */
  host.get('/_sim/media-downloads', (ctx) => {
    ctx.body = { downloads: state.mediaDownloads };
  });

  /** Control: where media URLs point from now on (a test points them at a host the gateway must refuse). */
  host.put('/_sim/media-base-url', (ctx) => {
    const url = jsonBody(ctx).url;
    state.mediaBaseUrlOverride = typeof url === 'string' && url ? url : undefined;
    ctx.body = { url: d.mediaBaseUrl() };
  });
}
