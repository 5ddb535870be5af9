import { fromBuffer } from 'file-type';
import { lookup } from 'mime-types';
import type { ValidationIssue } from '@gateway/errors';
import { AppError } from '@gateway/errors';

/*
 * The provider's supported media (supplement §2): the MIME types of each kind and its size limit, and how a
 * file's real type is told from its bytes (file-type), never from its name. A refusal is a 422 naming `file`.
 */

export type MediaKind = 'audio' | 'document' | 'image' | 'sticker' | 'video';

const MB = 1024 * 1024;
const KB = 1024;

export const MEDIA_KINDS: Record<MediaKind, { mimeTypes: string[]; maxBytes: number; maxBytesAnimated?: number }> = {
  audio: { mimeTypes: ['audio/aac', 'audio/amr', 'audio/mpeg', 'audio/mp4', 'audio/ogg'], maxBytes: 16 * MB },
  document: {
    mimeTypes: [
      'text/plain',
      'application/pdf',
      'application/msword',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'application/vnd.ms-excel',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      'application/vnd.ms-powerpoint',
      'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    ],
    maxBytes: 100 * MB,
  },
  image: { mimeTypes: ['image/jpeg', 'image/png'], maxBytes: 5 * MB },
  sticker: { mimeTypes: ['image/webp'], maxBytes: 100 * KB, maxBytesAnimated: 500 * KB },
  video: { mimeTypes: ['video/mp4', 'video/3gpp'], maxBytes: 16 * MB },
};

/** Every MIME type the provider takes: the values of the upload's `type` field. */
export const MEDIA_MIME_TYPES = Object.values(MEDIA_KINDS).flatMap((k) => k.mimeTypes);

/** The largest file of any kind (documents, 100 MB): the upload route's body limit. */
export const MAX_MEDIA_BYTES = Math.max(...Object.values(MEDIA_KINDS).map((k) => Math.max(k.maxBytes, k.maxBytesAnimated ?? 0)));

/** How many leading bytes the sniff needs (file-type reads at most 4100). */
export const SNIFF_BYTES = 4100;

export function kindOf(mimeType: string): MediaKind {
  return (Object.keys(MEDIA_KINDS) as MediaKind[]).find((k) => MEDIA_KINDS[k].mimeTypes.includes(mimeType))!;
}

/** Other spellings of the provider's types (names' extensions, browsers) → the provider's. */
const ALIASES: Record<string, string> = {
  'audio/x-aac': 'audio/aac',
  'audio/aacp': 'audio/aac',
  'audio/x-m4a': 'audio/mp4',
  'audio/m4a': 'audio/mp4',
  'audio/mp3': 'audio/mpeg',
  'audio/opus': 'audio/ogg',
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'video/3gp': 'video/3gpp',
};

export const normalizeMime = (t: string): string => {
  const base = t.split(';')[0].trim().toLowerCase();
  return ALIASES[base] ?? base;
};

const CFB = ['application/msword', 'application/vnd.ms-excel', 'application/vnd.ms-powerpoint'];
const OOXML = [
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
];

/**
 * The provider types the bytes can be. Containers the bytes alone do not settle (an Office file of the old
 * binary or the zip format, an MP4 holding only sound) list every type they may be; the name or `type` picks.
 */
export interface Sniffed {
  /** What the bytes are (file-type's answer, or text/plain for readable UTF-8 text), for messages. */
  detected: string | null;
  candidates: string[];
  animated: boolean;
}

export async function sniff(head: Buffer): Promise<Sniffed> {
  const found = await fromBuffer(head);
  const detected = found?.mime ?? (isPlainText(head) ? 'text/plain' : null);
  const animated = detected === 'image/webp' && isAnimatedWebp(head);
  let candidates: string[];
  switch (detected) {
    case 'application/x-cfb':
      candidates = CFB;
      break;
    case 'application/zip':
      candidates = OOXML;
      break;
    case 'video/mp4':
      candidates = ['video/mp4', 'audio/mp4'];
      break;
    // Ogg with Vorbis (audio/ogg from file-type) is refused: the provider takes Ogg with OPUS only
    case 'audio/ogg':
      candidates = [];
      break;
    case null:
      candidates = [];
      break;
    default: {
      const t = normalizeMime(detected);
      candidates = MEDIA_MIME_TYPES.includes(t) ? [t] : [];
    }
  }
  return { detected, candidates, animated };
}

/** VP8X header with the animation flag (RIFF....WEBPVP8X, flags byte 20, bit 1). */
function isAnimatedWebp(b: Buffer): boolean {
  return b.length >= 21 && b.toString('latin1', 12, 16) === 'VP8X' && (b[20] & 0x02) !== 0;
}

/** UTF-8 text without control characters other than whitespace (a cut multi-byte character at the end is fine). */
function isPlainText(b: Buffer): boolean {
  if (b.length === 0) return false;
  let end = b.length;
  // drop an incomplete UTF-8 sequence at the end of the sample
  for (let i = 1; i <= 3 && end - i >= 0; i++) {
    const c = b[end - i];
    if ((c & 0xc0) === 0x80) continue;
    if (c >= 0xc0) end -= i;
    break;
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(b.subarray(0, end));
  } catch {
    return false;
  }
  // eslint-disable-next-line no-control-regex -- the point is to find control characters
  return !/[\u0000-\u0008\u000e-\u001f\u007f]/.test(text);
}

const fileIssue = (msg: string, type: string, ctx: Record<string, unknown> = {}): AppError => {
  const issue: ValidationIssue = { loc: ['body', 'file'], msg, type, input: null, ctx };
  return AppError.validation([issue]);
};

export interface Claims {
  /** The `type` field. */
  override?: string;
  /** The file part's Content-Type header. */
  partType?: string;
  filename?: string;
}

export interface Decided {
  mimeType: string;
  kind: MediaKind;
  maxBytes: number;
}

/**
 * The provider type of the upload: what the bytes are, agreeing with what the name, the part's Content-Type and
 * the `type` field say (each when given). A mismatch, an unsupported type or an undecidable one is a 422 on `file`.
 */
export function decide(s: Sniffed, claims: Claims): Decided {
  if (s.candidates.length === 0) {
    const what = s.detected ? `${s.detected}${s.detected === 'audio/ogg' ? ' (Ogg without OPUS)' : ''}` : 'of no type the gateway recognises';
    throw fileIssue(`The file is ${what}, which the provider does not take as media`, 'media_type_unsupported', {
      detected: s.detected,
      supported: MEDIA_MIME_TYPES,
    });
  }
  const said: Array<[string, string]> = [];
  if (claims.override) said.push(['type', normalizeMime(claims.override)]);
  const part = claims.partType ? normalizeMime(claims.partType) : '';
  if (part && part !== 'application/octet-stream') said.push(['Content-Type', part]);
  const byName = claims.filename && claims.filename.includes('.') ? lookup(claims.filename) : false;
  if (byName) said.push(['name', normalizeMime(byName)]);
  for (const [source, mime] of said) {
    if (!s.candidates.includes(mime)) {
      throw fileIssue(`The file's bytes are ${s.detected}, but its ${source} says ${mime}`, 'media_type_mismatch', {
        detected: s.detected,
        claimed: mime,
        claimed_by: source,
      });
    }
  }
  const mimeType = said[0]?.[1] ?? (s.candidates.length === 1 || s.detected === 'video/mp4' ? s.candidates[0] : undefined);
  if (!mimeType) {
    throw fileIssue(
      `The file's bytes are ${s.detected}, which may be any of ${s.candidates.join(', ')}: name the file with its extension or pass type`,
      'media_type_ambiguous',
      {
        detected: s.detected,
        candidates: s.candidates,
      },
    );
  }
  const kind = kindOf(mimeType);
  const limits = MEDIA_KINDS[kind];
  return { mimeType, kind, maxBytes: s.animated && limits.maxBytesAnimated ? limits.maxBytesAnimated : limits.maxBytes };
}

/** The 422 of a file over its kind's limit. */
export function tooLargeForKind(d: Decided, size: number | null): AppError {
  const label = d.kind === 'sticker' ? `${d.maxBytes === MEDIA_KINDS.sticker.maxBytes ? 'static' : 'animated'} sticker` : d.kind;
  return fileIssue(
    `The file is ${size === null ? 'larger than' : `${size} bytes, more than`} the ${d.maxBytes} bytes the provider takes for a ${label} (${d.mimeType})`,
    'media_too_large',
    {
      kind: d.kind,
      mime_type: d.mimeType,
      max_bytes: d.maxBytes,
      ...(size === null ? {} : { size }),
    },
  );
}

export function emptyFile(): AppError {
  return fileIssue('The file is empty', 'media_empty');
}
