import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { request, type Dispatcher } from 'undici';
import { AppError } from '@gateway/errors';
import { classifyProviderError } from './errors';
import type { ProviderHttp } from './http';

/*
 * The provider's media API (supplement §3): upload to a business number, retrieve a media's short-lived URL,
 * download that URL with the client's token, delete. Bytes are streamed both ways, never held whole.
 */

/** What the provider tells about a media (`GET /{media_id}`). */
export interface ProviderMediaInfo {
  id: string;
  url: string;
  mime_type: string;
  sha256?: string;
  file_size?: number;
}

/** A file to upload: its bytes as a stream (read once), the MIME type the provider is told, a file name. */
export interface MediaUpload {
  bytes: AsyncIterable<Uint8Array>;
  mimeType: string;
  filename: string;
  /** How long the whole upload may take (the body is as long as the tenant's). */
  timeoutMs: number;
}

/** A download in progress: the bytes as they come, with the provider's type and length. */
export interface MediaDownload {
  contentType: string;
  contentLength: number;
  body: Readable;
}

export interface MediaDownloadLimits {
  maxBytes: number;
  timeoutMs: number;
}

/** Where media may be downloaded from: the Graph API origin and the configured media hosts. */
export class MediaHosts {
  private readonly origins: Set<string>;

  /**
   * `hosts`: host names (`lookaside.fbsbx.com`, meaning `https://` on its default port) or origins
   * (`http://localhost:9090`, taken exactly).
   */
  constructor(providerBaseUrl: string, hosts: string[]) {
    this.origins = new Set([new URL(providerBaseUrl).origin, ...hosts.map(MediaHosts.originOf)]);
  }

  static originOf(entry: string): string {
    const text = entry.trim();
    return /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? new URL(text).origin : new URL(`https://${text}`).origin;
  }

  allows(url: URL): boolean {
    return (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password && this.origins.has(url.origin);
  }

  list(): string[] {
    return [...this.origins];
  }
}

/** The multipart body of an upload (`messaging_product`, `type`, `file`), streamed around the file's bytes. */
export function mediaUploadBody(upload: Pick<MediaUpload, 'bytes' | 'mimeType' | 'filename'>): { contentType: string; body: AsyncIterable<Uint8Array> } {
  const boundary = `----gateway-media-${randomBytes(12).toString('hex')}`;
  const safeName = upload.filename.replace(/["\r\n\\]/g, '_');
  const field = (name: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const head = Buffer.from(
    field('messaging_product', 'whatsapp') +
      field('type', upload.mimeType) +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${safeName}"\r\nContent-Type: ${upload.mimeType}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  async function* body(): AsyncIterable<Uint8Array> {
    yield head;
    for await (const chunk of upload.bytes) yield chunk;
    // the closing boundary is only sent once every byte was: a stream that fails leaves an incomplete body
    yield tail;
  }
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: body() };
}

export class MediaCalls {
  constructor(
    private readonly http: ProviderHttp,
    private readonly hosts: MediaHosts,
  ) {}

  /** POST /{phone_number_id}/media, streamed; never retried (the body is read once, and a repeat is a second media). */
  async upload(token: string, phoneNumberId: string, upload: MediaUpload): Promise<{ id: string }> {
    const { contentType, body } = mediaUploadBody(upload);
    const res = await this.http.call<{ id?: string }>({
      method: 'POST',
      path: `${phoneNumberId}/media`,
      token,
      stream: { contentType, body },
      timeoutMs: upload.timeoutMs,
      idempotent: false,
    });
    if (!res.id) throw new AppError('unavailable', 'provider_bad_response', 'The provider accepted the upload but returned no media id');
    return { id: res.id };
  }

  /** GET /{media_id}?phone_number_id=: the media's short-lived URL and facts, checked against the number. */
  async info(token: string, mediaId: string, phoneNumberId: string): Promise<ProviderMediaInfo> {
    const res = await this.http
      .call<Partial<ProviderMediaInfo> & { file_size?: number | string }>({
        method: 'GET',
        path: mediaId,
        token,
        query: { phone_number_id: phoneNumberId },
        idempotent: true,
      })
      .catch((e: unknown) => {
        throw mediaNotFound(e);
      });
    if (typeof res.url !== 'string' || !res.url) throw new AppError('unavailable', 'provider_bad_response', 'The provider returned no media URL');
    const size = Number(res.file_size);
    return {
      id: String(res.id ?? mediaId),
      url: res.url,
      mime_type: typeof res.mime_type === 'string' && res.mime_type ? res.mime_type : 'application/octet-stream',
      sha256: typeof res.sha256 === 'string' ? res.sha256 : undefined,
      file_size: Number.isSafeInteger(size) && size >= 0 ? size : undefined,
    };
  }

  /** DELETE /{media_id}?phone_number_id= → `{"success": true}`. */
  async delete(token: string, mediaId: string, phoneNumberId: string): Promise<void> {
    const res = await this.http
      .call<{ success?: boolean }>({ method: 'DELETE', path: mediaId, token, query: { phone_number_id: phoneNumberId }, idempotent: true })
      .catch((e: unknown) => {
        throw mediaNotFound(e);
      });
    if (res.success === false) throw new AppError('provider_rejected', 'provider_error', 'The provider did not delete the media');
  }

  /**
   * GET of the media URL with the client's token. Only the provider's own origins are fetched (a URL elsewhere
   * is refused before any request), a redirect is not followed, and the body is bounded in size and time: the
   * returned stream fails once it passes `maxBytes` or `timeoutMs`, whichever comes first.
   */
  async download(token: string, info: ProviderMediaInfo, limits: MediaDownloadLimits): Promise<MediaDownload> {
    let url: URL;
    try {
      url = new URL(info.url);
    } catch {
      throw new AppError('unavailable', 'provider_bad_response', 'The provider gave a media URL that is not a URL');
    }
    if (!this.hosts.allows(url)) {
      throw new AppError(
        'unavailable',
        'media_host_not_allowed',
        `The provider gave a media URL on ${url.protocol}//${url.host}, which is not one of the provider's media hosts (PROVIDER_MEDIA_HOSTS)`,
      );
    }
    const started = performance.now();
    const abort = new AbortController();
    const timer = setTimeout(
      () => abort.abort(new AppError('timeout', 'media_download_timeout', `The media download took longer than ${limits.timeoutMs} ms`)),
      limits.timeoutMs,
    );
    timer.unref();
    let res: Dispatcher.ResponseData;
    try {
      res = await request(url, {
        method: 'GET',
        // the media host answers a web page instead of the file to a request without a User-Agent (provider-2026.md §9)
        headers: { authorization: `Bearer ${token}`, accept: '*/*', 'user-agent': this.http.userAgent },
        dispatcher: this.http.dispatcher,
        headersTimeout: limits.timeoutMs,
        bodyTimeout: limits.timeoutMs,
        signal: abort.signal,
      });
    } catch (e) {
      clearTimeout(timer);
      this.http.reportCall(
        'GET',
        'media-download',
        started,
        e instanceof AppError ? e : new AppError('unavailable', 'provider_unavailable', 'The media host is unreachable'),
      );
      if (abort.signal.aborted) throw abort.signal.reason;
      throw new AppError('unavailable', 'provider_unavailable', `The media host is unreachable (${(e as { code?: string }).code ?? 'error'})`, { cause: e });
    }
    // an answer given up on is destroyed: its abort is expected, never an unhandled error
    res.body.on('error', () => undefined);
    const fail = async (err: AppError): Promise<never> => {
      clearTimeout(timer);
      res.body.destroy();
      this.http.reportCall('GET', 'media-download', started, err);
      throw err;
    };
    if (res.statusCode >= 300 && res.statusCode < 400) {
      await fail(
        new AppError('unavailable', 'media_redirect_refused', `The media host answered a redirect (HTTP ${res.statusCode}); redirects are not followed`),
      );
    }
    if (res.statusCode < 200 || res.statusCode >= 300) {
      const text = await res.body.text().catch(() => '');
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      clearTimeout(timer);
      const err =
        res.statusCode === 404
          ? new AppError('not_found', 'media_url_expired', 'The media URL expired or the media is gone; ask again')
          : classifyProviderError(res.statusCode, parsed);
      this.http.reportCall('GET', 'media-download', started, err);
      throw err;
    }
    const header = res.headers['content-type'];
    const contentType = (Array.isArray(header) ? header[0] : header) || info.mime_type;
    // a web page instead of the media: what the media host answers a request it will not serve (one without a
    // User-Agent, provider-2026.md §9); no media type the provider takes is a page
    if (/^text\/html\b/i.test(contentType) && !/^text\/html\b/i.test(info.mime_type)) {
      await fail(new AppError('unavailable', 'media_download_refused', `The media host answered a web page instead of the media (${info.mime_type})`));
    }
    const declared = Number(res.headers['content-length']);
    const length = Number.isSafeInteger(declared) && declared >= 0 ? declared : info.file_size;
    if (length === undefined) await fail(new AppError('unavailable', 'provider_bad_response', 'The media host did not say how long the media is'));
    if (length! > limits.maxBytes)
      await fail(new AppError('too_large', 'media_too_large', `The media is ${length} bytes, more than the ${limits.maxBytes} bytes the gateway downloads`));
    const source = res.body;
    const http = this.http;
    async function* bounded(): AsyncIterable<Buffer> {
      let seen = 0;
      try {
        for await (const chunk of source as AsyncIterable<Buffer>) {
          seen += chunk.length;
          if (seen > length!) throw new AppError('unavailable', 'provider_bad_response', 'The media host sent more bytes than it announced');
          yield chunk;
        }
        if (seen !== length) throw new AppError('unavailable', 'provider_bad_response', 'The media host sent fewer bytes than it announced');
        http.reportCall('GET', 'media-download', started);
      } catch (e) {
        const err = abort.signal.aborted
          ? (abort.signal.reason as AppError)
          : e instanceof AppError
            ? e
            : new AppError('unavailable', 'provider_unavailable', 'The media download broke off', { cause: e });
        http.reportCall('GET', 'media-download', started, err);
        throw err;
      } finally {
        clearTimeout(timer);
        source.destroy();
      }
    }
    return { contentType, contentLength: length!, body: Readable.from(bounded(), { objectMode: false }) };
  }
}

/** An unknown media id (or one of another number) is the media's 404, with the provider's fields. */
function mediaNotFound(e: unknown): unknown {
  if (e instanceof AppError && e.kind === 'not_found') {
    return new AppError('not_found', 'media_not_found', 'Media not found', { details: e.details, cause: e });
  }
  return e;
}
