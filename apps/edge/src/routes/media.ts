import type { Context } from 'koa';
import { AppError } from '@gateway/errors';
import { tenantOf } from '../auth';
import { receiveUpload } from '../media/upload';
import { MAX_MEDIA_BYTES } from '../media/types';
import { Media, respond } from '../presenters';
import { json, operation } from '../openapi/operation';
import { mediaPath, mediaQuery } from '../schemas/media';
import type { Services } from '../services';
import { validateParts } from '../validation';
import type { RegisterRoutes } from './context';

/** The route that reads its own (multipart, up to 100 MB) body: the JSON body reader leaves it alone. */
export const MEDIA_UPLOAD_ROUTE = { method: 'POST', path: '/api/media' } as const;

interface ClientCredentials {
  phoneNumberId: string;
  accessToken: string;
}

/**
 * The client's business number and token, from the tenant directory (another tenant's client is its 404); a
 * client whose signup is not finished has no number to hold media.
 */
async function credentialsOf(services: Services, tenantId: string, clientId: string): Promise<ClientCredentials> {
  const { client, accessToken } = await services.directory.getClientCredentials({ tenantId, clientId });
  if (!client) throw AppError.notFound('client_not_found', 'Client not found');
  if (!client.isActive || client.signupStatus !== 'completed' || !client.phoneNumberId || !accessToken) {
    throw AppError.conflict('client_not_active', `Client is not active (signup_status: ${client.signupStatus}); finish its signup before using media`, {
      signup_status: client.signupStatus,
    });
  }
  return { phoneNumberId: client.phoneNumberId, accessToken };
}

/**
 * `/api/media` (issue 19): upload a file to the client's business number, download a media (the ones customers
 * send arrive as ids in `chat` events), delete one. The bytes stream between the tenant and the provider.
 */
const uploadOp = operation({
  operationId: 'uploadMedia',
  summary: "Upload a file to the client's business number",
  description:
    "multipart/form-data with `client_id` (and optionally `type`) before the `file` part. The type is read from the bytes and must agree with the name, the part's Content-Type and `type`; the provider's per-type types and size limits (up to 100 MB for documents) are checked before the upload. Streamed, never held whole.",
  tags: ['Media'],
  request: {
    rawBody: {
      'multipart/form-data': {
        type: 'object',
        required: ['client_id', 'file'],
        properties: {
          client_id: { type: 'string', format: 'uuid' },
          type: { type: 'string', description: 'A provider MIME type to declare; must agree with the bytes.' },
          file: { type: 'string', contentMediaType: 'application/octet-stream', description: 'The file, last part of the form.' },
        },
      },
    },
  },
  responses: { 200: json('The provider media id and what was uploaded.', Media) },
  errors: [404, 408, 409, 413, 415, 429, 502, 504],
});

const downloadOp = operation({
  operationId: 'downloadMedia',
  summary: 'Download a media (one a customer sent, or one uploaded)',
  description: "The bytes with the provider's Content-Type and Content-Length, fetched only from the provider's own hosts.",
  tags: ['Media'],
  request: { path: mediaPath, query: mediaQuery },
  responses: {
    200: {
      description: 'The media bytes.',
      contentType: '*/*',
      schema: { type: 'string', contentMediaType: 'application/octet-stream' },
      headers: { 'X-Media-Sha256': { description: 'SHA-256 of the bytes as the provider reports it, when it does.', schema: { type: 'string' } } },
    },
  },
  errors: [404, 409, 429, 502, 504],
});

const deleteOp = operation({
  operationId: 'deleteMedia',
  summary: 'Delete a media at the provider',
  tags: ['Media'],
  request: { path: mediaPath, query: mediaQuery },
  responses: { 204: { description: 'Deleted.' } },
  errors: [404, 409, 429, 502, 504],
});

export const registerMediaRoutes: RegisterRoutes = (router, { services, media, config }) => {
  router.post(MEDIA_UPLOAD_ROUTE.path, uploadOp, async (ctx: Context) => {
    let creds: ClientCredentials | undefined;
    const incoming = await receiveUpload(ctx, async (fields) => {
      creds = await credentialsOf(services, tenantOf(ctx), fields.client_id);
    });
    let id: string;
    try {
      ({ id } = await media.uploadMedia(creds!.accessToken, creds!.phoneNumberId, {
        bytes: incoming.bytes,
        mimeType: incoming.decided.mimeType,
        filename: incoming.filename,
        timeoutMs: config.mediaUploadTimeoutMs,
      }));
    } catch (e) {
      return incoming.abandon(e);
    }
    const { sha256, size } = incoming.done();
    respond(ctx, Media, { id, mimeType: incoming.decided.mimeType, sha256, size });
  });

  router.get('/api/media/:media_id', downloadOp, async (ctx: Context) => {
    const { path, query } = validateParts<{ path: { media_id: string }; query: { client_id: string } }>({
      path: [mediaPath, ctx.params],
      query: [mediaQuery, ctx.query],
    });
    const creds = await credentialsOf(services, tenantOf(ctx), query.client_id);
    const info = await media.mediaInfo(creds.accessToken, path.media_id, creds.phoneNumberId);
    const download = await media.downloadMedia(creds.accessToken, info, { maxBytes: MAX_MEDIA_BYTES, timeoutMs: config.mediaDownloadTimeoutMs });
    ctx.status = 200;
    ctx.set('Content-Type', download.contentType);
    ctx.set('Content-Length', String(download.contentLength));
    // the bytes are a customer's: never rendered as a page of the gateway's origin (nosniff: middleware/nosniff.ts)
    ctx.set('Content-Disposition', 'attachment');
    ctx.set('Content-Security-Policy', "default-src 'none'; sandbox");
    if (info.sha256) ctx.set('X-Media-Sha256', info.sha256);
    ctx.body = download.body;
  });

  router.delete('/api/media/:media_id', deleteOp, async (ctx: Context) => {
    const { path, query } = validateParts<{ path: { media_id: string }; query: { client_id: string } }>({
      path: [mediaPath, ctx.params],
      query: [mediaQuery, ctx.query],
    });
    const creds = await credentialsOf(services, tenantOf(ctx), query.client_id);
    await media.deleteMedia(creds.accessToken, path.media_id, creds.phoneNumberId);
    ctx.status = 204;
  });
};
