import { deflateSync } from 'node:zlib';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { checkAnswer } from '@gateway/test-stack';

/* Real small files of the media types, built in the test, and a streamed multipart upload to the edge. */

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON answers */

/** A real PNG (8-bit RGB, `side`×`side`, one colour), built from its chunks. */
export function png(side: number, seed = 1): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b: Buffer) => {
    let c = 0xffffffff;
    for (const x of b) c = crcTable[(c ^ x) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(4);
    head.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const tail = Buffer.alloc(4);
    tail.writeUInt32BE(crc(body));
    return Buffer.concat([head, body, tail]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(side * 3, seed & 0xff)]);
  const raw = Buffer.concat(Array.from({ length: side }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A real one-page PDF. */
export function pdf(text = 'Invoice 42'): Buffer {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${`BT /F1 12 Tf 20 50 Td (${text}) Tj ET`.length} >>\nstream\nBT /F1 12 Tf 20 50 Td (${text}) Tj ET\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** A real 1×1 lossless WebP (VP8L), the smallest valid static sticker. */
export const webp = (): Buffer => Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64');

/** The head of an MP4 (`ftyp` isom): with anything after it, a video as far as any sniffer can tell. */
export function mp4Head(): Buffer {
  const ftyp = Buffer.alloc(24);
  ftyp.writeUInt32BE(24, 0);
  ftyp.write('ftypisom', 4, 'latin1');
  ftyp.writeUInt32BE(0x200, 12);
  ftyp.write('isomiso2', 16, 'latin1');
  return ftyp;
}

/** A multipart body: the fields, then the file part, streamed from `file` chunks; its exact length. */
export function multipart(
  fields: Record<string, string>,
  file?: { name: string; type?: string; size: number; chunks: () => AsyncIterable<Buffer> | Iterable<Buffer> },
) {
  const boundary = `----test${Math.random().toString(16).slice(2)}`;
  let head = '';
  for (const [k, v] of Object.entries(fields)) head += `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`;
  if (file)
    head += `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: ${file.type ?? 'application/octet-stream'}\r\n\r\n`;
  const tail = `${file ? '\r\n' : ''}--${boundary}--\r\n`;
  const length = Buffer.byteLength(head) + (file?.size ?? 0) + Buffer.byteLength(tail);
  async function* body() {
    yield Buffer.from(head);
    if (file) for await (const c of file.chunks()) yield c;
    yield Buffer.from(tail);
  }
  return { contentType: `multipart/form-data; boundary=${boundary}`, length, body };
}

/** POST /api/media with a streamed multipart body; the answer's status and JSON. */
export async function upload(
  baseUrl: string,
  key: string,
  fields: Record<string, string>,
  file?: { name: string; type?: string; bytes: Buffer } | { name: string; type?: string; size: number; chunks: () => AsyncIterable<Buffer> | Iterable<Buffer> },
) {
  const f = file && 'bytes' in file ? { name: file.name, type: file.type, size: file.bytes.length, chunks: () => [file.bytes] } : file;
  const m = multipart(fields, f);
  const res = await request(`${baseUrl}/api/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': m.contentType, 'content-length': String(m.length) },
    body: Readable.from(m.body()),
  });
  const text = await res.body.text();
  const headers = new Headers();
  for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : String(v));
  // the answer is held to the OpenAPI document like every ApiClient answer
  await checkAnswer(baseUrl, 'POST', '/api/media', { status: res.statusCode, headers, text });
  return { status: res.statusCode, headers: res.headers, json: (text ? JSON.parse(text) : undefined) as any };
}
