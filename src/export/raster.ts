// Image bytes → RGBA pixels in Node, for the tracer (viewer/src/meshes/vectorize.ts). PNG through pngjs, JPEG
// through jpeg-js (pure JS, no native build). The size is read from the header first, so an image over the
// pixel limit is refused before a single pixel is decoded (a small PNG can inflate to gigabytes).
import { PNG } from 'pngjs';
import jpeg from 'jpeg-js';
import type { RasterImage } from '../../viewer/src/meshes/types.js';
import { sniffImage } from '../contract/mime.js';
import { ExportError } from './errors.js';
import { CODE } from '../contract/error-codes.js';

export type RasterType = 'png' | 'jpeg';
export interface RasterHeader {
  type: RasterType;
  width: number;
  height: number;
}

const TYPE_NAMES: Record<string, string> = { 'image/webp': 'WebP', 'image/gif': 'GIF', 'image/svg+xml': 'SVG' };

/** PNG: the IHDR chunk must come first (PNG §5.6); width and height are its first two big-endian words. */
function pngHeader(b: Buffer): RasterHeader {
  if (b.length < 24 || b.toString('latin1', 12, 16) !== 'IHDR')
    throw new ExportError(CODE.bad_image, 'the PNG has no IHDR header: the file is truncated or corrupt');
  return { type: 'png', width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

/** JPEG: walk the marker segments up to the first SOFn frame header, which holds height then width. */
function jpegHeader(b: Buffer): RasterHeader {
  let i = 2;
  while (i + 4 <= b.length) {
    if (b[i] !== 0xff) break;
    const m = b[i + 1];
    if (m === 0xff) {
      i++;
      continue;
    } // fill byte
    if (m === 0x01 || (m >= 0xd0 && m <= 0xd7)) {
      i += 2;
      continue;
    } // markers without a length
    if (m === 0xd9 || m === 0xda) break; // end of image, or scan data before any frame header
    const len = b.readUInt16BE(i + 2);
    const isSof = m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;
    if (isSof) {
      if (i + 9 > b.length) break;
      return { type: 'jpeg', height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) };
    }
    if (len < 2) break;
    i += 2 + len;
  }
  throw new ExportError(CODE.bad_image, 'the JPEG has no frame header: the file is truncated or corrupt');
}

/** Type and size from the first bytes, without decoding. Not PNG or JPEG: ExportError `not_an_image`. */
export function rasterHeader(bytes: Buffer): RasterHeader {
  const type = sniffImage(bytes);
  if (type === 'image/png') return pngHeader(bytes);
  if (type === 'image/jpeg') return jpegHeader(bytes);
  const what = type ? `a ${TYPE_NAMES[type] ?? type} image` : 'not an image';
  throw new ExportError(CODE.not_an_image, `expected a PNG or JPEG image, but the bytes are ${what}`);
}

/** Decode to RGBA, refusing more than `maxPixels` pixels (ExportError `image_too_large`) before decoding. */
export function decodeRaster(bytes: Buffer, maxPixels: number): RasterImage {
  const head = rasterHeader(bytes);
  const pixels = head.width * head.height;
  if (!(head.width > 0 && head.height > 0))
    throw new ExportError(
      CODE.bad_image,
      `the ${head.type.toUpperCase()} header gives an empty size (${head.width} × ${head.height})`,
    );
  if (pixels > maxPixels) {
    throw new ExportError(
      CODE.image_too_large,
      `the image is ${head.width} × ${head.height} = ${pixels} pixels, more than the limit of ${maxPixels}: scale it down first`,
    );
  }
  let width: number, height: number, data: Uint8Array;
  try {
    if (head.type === 'png') {
      ({ width, height, data } = PNG.sync.read(bytes)); // 1–16-bit, palette, grey, interlaced → 8-bit RGBA
    } else {
      // jpeg-js has its own guards: keep its resolution cap in step with ours; its memory cap (512 MB by
      // default) is above what maxPixels needs (≈ 10 bytes per pixel while decoding).
      ({ width, height, data } = jpeg.decode(bytes, {
        useTArray: true,
        formatAsRGBA: true,
        maxResolutionInMP: maxPixels / 1e6,
      }));
    }
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    if (/maxMemoryUsageInMB|maxResolutionInMP/.test(why))
      throw new ExportError(CODE.image_too_large, `the image is too large to decode: ${why}`);
    throw new ExportError(CODE.bad_image, `the ${head.type.toUpperCase()} does not decode: ${why}`);
  }
  if (width !== head.width || height !== head.height || data.length !== width * height * 4) {
    throw new ExportError(
      CODE.bad_image,
      `the ${head.type.toUpperCase()} decoded to ${width} × ${height}, not the ${head.width} × ${head.height} of its header`,
    );
  }
  return { width, height, data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.length) };
}
