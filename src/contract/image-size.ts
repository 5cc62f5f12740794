// The pixel size an image declares in its header (PNG IHDR, JPEG SOFn, WebP VP8/VP8L/VP8X, GIF logical screen), read
// from the first bytes only: a small file can decode to gigabytes (a 1.1 MB PNG of 20000x20000), so the size is
// judged before anything decodes it. SVG has no pixel size of its own and is not judged here.

import { crc32 } from 'node:zlib';

export interface PixelSize {
  width: number;
  height: number;
}

/** How many leading bytes imageSize() may need (a JPEG's SOF can follow large EXIF or ICC segments). */
export const IMAGE_HEADER_BYTES = 1024 * 1024;

/** The declared size of a PNG, JPEG, WebP or GIF; undefined when the header does not say (or is not one of them). */
export function imageSize(b: Uint8Array): PixelSize | undefined {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  if (buf.length >= 33 && buf.readUInt32BE(0) === 0x89504e47 && buf.toString('latin1', 12, 16) === 'IHDR') {
    // a header whose checksum fails is not a size (a broken file): the page's decoder reports it as ASS001
    if (crc32(buf.subarray(12, 29)) !== buf.readUInt32BE(29)) return undefined;
    return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
  }
  if (buf.length >= 10 && (buf.toString('latin1', 0, 6) === 'GIF87a' || buf.toString('latin1', 0, 6) === 'GIF89a')) {
    return { width: buf.readUInt16LE(6), height: buf.readUInt16LE(8) };
  }
  if (buf.length >= 30 && buf.toString('latin1', 0, 4) === 'RIFF' && buf.toString('latin1', 8, 12) === 'WEBP') {
    const chunk = buf.toString('latin1', 12, 16);
    if (chunk === 'VP8X') return { width: 1 + buf.readUIntLE(24, 3), height: 1 + buf.readUIntLE(27, 3) };
    if (chunk === 'VP8L' && buf[20] === 0x2f) {
      const bits = buf.readUInt32LE(21);
      return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >>> 14) & 0x3fff) };
    }
    if (chunk === 'VP8 ' && buf[23] === 0x9d && buf[24] === 0x01 && buf[25] === 0x2a) {
      return { width: buf.readUInt16LE(26) & 0x3fff, height: buf.readUInt16LE(28) & 0x3fff };
    }
    return undefined;
  }
  if (buf.length >= 4 && buf[0] === 0xff && buf[1] === 0xd8) {
    let i = 2;
    while (i + 9 < buf.length) {
      if (buf[i] !== 0xff) return undefined;
      const marker = buf[i + 1]!;
      if (marker === 0xff) {
        i++; // fill byte
        continue;
      }
      if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
        i += 2;
        continue;
      }
      const len = buf.readUInt16BE(i + 2);
      // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC)
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { height: buf.readUInt16BE(i + 5), width: buf.readUInt16BE(i + 7) };
      }
      if (len < 2) return undefined;
      i += 2 + len;
    }
  }
  return undefined;
}

/** Why an image of this size is refused (LIMITS.image), or null when it fits. */
export function imageSizeRefusal(size: PixelSize, max: { pixels: number; side: number }): string | null {
  if (size.width > max.side || size.height > max.side)
    return `${size.width}x${size.height} has a side over ${max.side} pixels`;
  if (size.width * size.height > max.pixels)
    return `${size.width}x${size.height} is over ${max.pixels / 1e6} megapixels`;
  return null;
}
