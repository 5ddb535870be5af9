import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import busboy from 'busboy';
import type { Context } from 'koa';
import { AppError } from '@gateway/errors';
import { mediaFields } from '../schemas/media';
import { validateParts } from '../validation';
import { decide, emptyFile, MAX_MEDIA_BYTES, sniff, SNIFF_BYTES, tooLargeForKind, type Decided } from './types';

/*
 * Reading an upload (`POST /api/media`, multipart/form-data): the fields (`client_id`, optional `type`) come
 * first, then `file`, the last part. The file is never held whole: its first bytes are sniffed, then it flows
 * chunk by chunk (busboy → a hash and a byte count → the provider's upload request), with backpressure from the
 * provider's side. Everything that can be told before the upload is checked before it: the fields, the client,
 * the type, and the size whenever the request says its length.
 */

/** Room for the multipart framing and the small fields around the file. */
export const UPLOAD_OVERHEAD_BYTES = 64 * 1024;
/** The upload route's body limit: the largest file the provider takes, plus the framing. */
export const MAX_UPLOAD_BODY_BYTES = MAX_MEDIA_BYTES + UPLOAD_OVERHEAD_BYTES;
/** The closing boundary (RFC 2046: a boundary is at most 70 characters) and a short epilogue after the file. */
const TRAILER_BYTES = 1024;

export interface UploadFields {
  client_id: string;
  type?: string;
}

/** An upload accepted so far: its fields and type, and its bytes to be read once, hashed and counted on the way. */
export interface IncomingFile {
  fields: UploadFields;
  decided: Decided;
  filename: string;
  bytes: AsyncIterable<Buffer>;
  /** Once `bytes` was read to its end (the request ended cleanly): the SHA-256 (hex) and the size. */
  done(): { sha256: string; size: number };
  /** The upload failed: discards the rest of the request, then throws (the file's own refusal first, else `err`). */
  abandon(err: unknown): Promise<never>;
}

const bodyIssue = (field: string, msg: string, type: string, ctx: Record<string, unknown> = {}) =>
  AppError.validation([{ loc: ['body', field], msg, type, input: null, ctx }]);

const tooLargeBody = () => new AppError('too_large', 'body_too_large', `Request body exceeds ${MAX_UPLOAD_BODY_BYTES} bytes`);

/**
 * Parses the request up to the file's first bytes, checks everything that can be checked before the upload
 * (`check` resolves the client, and may refuse), and hands back the file's bytes as a stream. A refusal drains
 * the rest of the request (discarding it) before it is thrown, so the tenant reads the answer.
 */
export async function receiveUpload(ctx: Context, check: (fields: UploadFields) => Promise<void>): Promise<IncomingFile> {
  if (!ctx.is('multipart/form-data')) {
    throw new AppError('unsupported_media', 'unsupported_media_type', 'Request body must be multipart/form-data (fields client_id and type, then file)');
  }
  const declared = ctx.get('content-length') === '' ? null : Number(ctx.get('content-length'));
  if (declared !== null && declared > MAX_UPLOAD_BODY_BYTES) {
    // refused unread: the answer closes the connection the client would hold open sending the rest (middleware/body.ts)
    ctx.set('Connection', 'close');
    throw tooLargeBody();
  }

  let bb: busboy.Busboy;
  try {
    bb = busboy({ headers: ctx.req.headers, limits: { fields: 8, fieldSize: 1024, files: 1, parts: 10, fileSize: MAX_MEDIA_BYTES + 1 } });
  } catch (e) {
    throw new AppError('unsupported_media', 'unsupported_media_type', `Request body must be multipart/form-data with a boundary (${(e as Error).message})`);
  }

  // bytes of the request read so far: the framing before the file is at most this many
  let read = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      read += chunk.length;
      if (read > MAX_UPLOAD_BODY_BYTES) cb(tooLargeBody());
      else cb(null, chunk);
    },
  });

  const fields: Record<string, string> = {};
  const problems: AppError[] = [];
  let fileSeen = false;
  let file: { stream: Readable; filename: string; mimeType: string; readBefore: number } | undefined;
  const finished = new Promise<void>((resolve, reject) => {
    bb.once('close', resolve);
    // `on`, not `once`: a parser that failed may report again (a write after its end), and an 'error' nobody
    // listens to ends the process
    bb.on('error', reject);
  });
  finished.catch(() => undefined);
  // a body that stops (too long, or the tenant went away) ends the parser and the file's stream with its error,
  // so nothing waits for bytes that will not come; a too-long body is not read further (the answer closes)
  const stop = (e: Error) => {
    if (!bb.destroyed) bb.destroy(e);
  };
  counter.on('error', (e) => {
    ctx.req.unpipe(counter);
    stop(e);
  });
  const brokenOff = () => stop(new AppError('validation', 'upload_aborted', 'The upload was broken off'));
  ctx.req.once('aborted', brokenOff);
  ctx.req.on('error', brokenOff);
  // the tenant may have gone away before this handler ran (while the edge authenticated and counted the
  // request): then 'aborted' has fired already and no byte will come
  ctx.req.once('close', () => !ctx.req.complete && brokenOff());
  if (ctx.req.destroyed && !ctx.req.complete) brokenOff();
  const fileArrived = new Promise<void>((resolve, reject) => {
    bb.on('field', (name, value, info) => {
      if (fileSeen) problems.push(bodyIssue(name, `${name} must come before file`, 'part_after_file'));
      else if (info.valueTruncated) problems.push(bodyIssue(name, `${name} is longer than 1024 characters`, 'too_long', { max_length: 1024 }));
      else fields[name] = value;
    });
    bb.on('file', (name, stream, info) => {
      // a body that ends inside a file part errors that part's stream as well as the parser: the parser's error
      // is the one acted on (`finished`), and a stream's error without a listener would end the process, whether
      // the stream is being read, was resumed to discard it, or is not read yet
      stream.on('error', ignore);
      if (name !== 'file' || fileSeen) {
        problems.push(
          bodyIssue(
            name,
            name === 'file' ? 'Only one file per upload' : `${name} is not a field of an upload (the file part is named file)`,
            'extra_forbidden',
          ),
        );
        stream.resume();
        return;
      }
      fileSeen = true;
      file = { stream, filename: info.filename ?? '', mimeType: info.mimeType, readBefore: read };
      resolve();
    });
    // busboy drops files beyond `limits.files` silently: a second file is the tenant's mistake, never ignored
    bb.on('filesLimit', () => problems.push(bodyIssue('file', 'Only one file per upload', 'extra_forbidden')));
    bb.on('partsLimit', () => problems.push(bodyIssue('file', 'Too many parts', 'too_many_items')));
    bb.on('fieldsLimit', () => problems.push(bodyIssue('file', 'Too many fields', 'too_many_items')));
    finished.then(resolve, reject);
  });
  ctx.req.pipe(counter).pipe(bb);

  /** The file's reader, once the file is being read (a refusal reads it to its end). */
  const reader: { iterator?: AsyncIterator<Buffer> } = {};
  /** Discards the rest of the request, then throws `err`: the tenant reads the answer, not a reset connection. */
  const refuse = async (err: unknown): Promise<never> => {
    bb.on('file', (_n, s) => s.resume());
    try {
      if (reader.iterator) while (!(await reader.iterator.next()).done);
      else file?.stream.resume();
      await finished;
    } catch (e) {
      if (e instanceof AppError && e.kind === 'too_large') {
        ctx.set('Connection', 'close');
        throw e;
      }
    }
    throw err;
  };

  try {
    await fileArrived;
  } catch (e) {
    return refuse(malformed(e));
  }
  if (problems.length) return refuse(problems[0]);
  if (!file) {
    return refuse(
      AppError.validation([{ loc: ['body', 'file'], msg: 'file is required', type: 'missing', input: null, ctx: {} }, ...validationIssuesOf(fields)]),
    );
  }
  const current = file;

  let validated: UploadFields;
  try {
    validated = validateParts<{ body: UploadFields }>({ body: [mediaFields, fields] }).body;
    await check(validated);
  } catch (e) {
    return refuse(e);
  }

  // the file's first bytes: what it really is
  const it = (current.stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  reader.iterator = it;
  const head: Buffer[] = [];
  let headSize = 0;
  let ended = false;
  try {
    while (headSize < SNIFF_BYTES) {
      const next = await it.next();
      if (next.done) {
        ended = true;
        break;
      }
      head.push(next.value);
      headSize += next.value.length;
    }
  } catch (e) {
    return refuse(malformed(e));
  }
  if (headSize === 0) return refuse(emptyFile());
  let decided: Decided;
  try {
    decided = decide(await sniff(Buffer.concat(head)), { override: validated.type, partType: current.mimeType, filename: current.filename });
  } catch (e) {
    return refuse(e);
  }
  // the size, before the upload whenever the request says its length: the file is at least the body minus the
  // framing read before it and the closing boundary after it (nothing may follow the file)
  const atLeast = ended ? headSize : declared === null ? headSize : Math.max(headSize, declared - current.readBefore - TRAILER_BYTES);
  if (atLeast > decided.maxBytes) return refuse(tooLargeForKind(decided, ended ? headSize : null));

  const hash = createHash('sha256');
  let size = 0;
  let failure: unknown;
  async function* bytes(): AsyncIterable<Buffer> {
    try {
      const take = (chunk: Buffer) => {
        size += chunk.length;
        if (size > decided.maxBytes) throw tooLargeForKind(decided, null);
        hash.update(chunk);
        return chunk;
      };
      for (const chunk of head) yield take(chunk);
      if (!ended) {
        for (;;) {
          const next = await it.next();
          if (next.done) break;
          yield take(next.value);
        }
      }
      // the request must end cleanly after the file (a broken-off body is not a whole file)
      await finished;
      if (problems.length) throw problems[0];
    } catch (e) {
      failure = malformed(e);
      throw failure;
    }
  }
  return {
    fields: validated,
    decided,
    filename: current.filename || `upload.${decided.mimeType.split('/')[1]}`,
    bytes: bytes(),
    done: () => ({ sha256: hash.digest('hex'), size }),
    // the file's own problem (too large, broken off) wins over what the provider call made of it
    abandon: (err: unknown) => refuse(failure ?? err),
  };
}

const ignore = () => undefined;

/** The fields' own problems (missing client_id...) to report with a missing file. */
function validationIssuesOf(fields: Record<string, string>) {
  try {
    validateParts({ body: [mediaFields, fields] });
    return [];
  } catch (e) {
    return e instanceof AppError ? e.issues : [];
  }
}

/** busboy's complaints about the framing are the tenant's malformed body: a 422 naming `body`. */
function malformed(e: unknown): unknown {
  if (e instanceof AppError) return e;
  return AppError.validation([
    { loc: ['body'], msg: `Malformed multipart body (${(e as Error).message ?? 'error'})`, type: 'multipart_invalid', input: null, ctx: {} },
  ]);
}
