/*
 * Small real files of each media type, what a simulated customer sends when a test gives no bytes of its own:
 * each starts as its format requires, so a type sniffer reads them as what they claim to be.
 */

const pdf = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n' +
    '3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 72 72]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
  'latin1',
);

/** One Ogg page holding an OPUS identification header (mono, 48 kHz). */
function oggOpus(): Buffer {
  const head = Buffer.concat([Buffer.from('OpusHead', 'latin1'), Buffer.from([1, 1, 0x38, 0x01, 0x80, 0xbb, 0, 0, 0, 0, 0])]);
  const page = Buffer.alloc(27);
  page.write('OggS', 0, 'latin1');
  page[5] = 2; // beginning of stream
  page.writeUInt32LE(0x5eed, 14); // stream serial
  page[26] = 1; // one segment
  return Buffer.concat([page, Buffer.from([head.length]), head]);
}

/** An ISO base media file: `ftyp` (isom), then an empty `mdat`. */
function mp4(): Buffer {
  const ftyp = Buffer.alloc(24);
  ftyp.writeUInt32BE(24, 0);
  ftyp.write('ftypisom', 4, 'latin1');
  ftyp.writeUInt32BE(0x200, 12);
  ftyp.write('isomiso2', 16, 'latin1');
  const mdat = Buffer.alloc(8);
  mdat.writeUInt32BE(8, 0);
  mdat.write('mdat', 4, 'latin1');
  return Buffer.concat([ftyp, mdat]);
}

export const SAMPLE_MEDIA: Record<string, { mimeType: string; bytes: Buffer }> = {
  image: {
    mimeType: 'image/png',
    bytes: Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGP4z8AARAwQCgAf7gP9i18U1AAAAABJRU5ErkJggg==', 'base64'),
  },
  sticker: { mimeType: 'image/webp', bytes: Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64') },
  document: { mimeType: 'application/pdf', bytes: pdf },
  audio: { mimeType: 'audio/ogg', bytes: oggOpus() },
  video: { mimeType: 'video/mp4', bytes: mp4() },
};
