// RGBA (top row first) -> PNG. Our own small encoder over node:zlib: deterministic (fixed filter, fixed zlib
// settings) and fast (one "Up" filter per row instead of trying every filter). Writes colour type 2 (RGB) when every
// pixel is opaque, else 6 (RGBA).
import { deflateSync, constants, crc32 as zlibCrc32 } from 'node:zlib';

// node:zlib's CRC-32 is the PNG one (IEEE 802.3).
export const crc32 = (buf: Uint8Array, crc = 0): number => zlibCrc32(buf, crc);

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  out.set(data, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function isOpaque(rgba: Uint8Array): boolean {
  for (let i = 3; i < rgba.length; i += 4) if (rgba[i] !== 255) return false;
  return true;
}

/** Encodes top-row-first RGBA pixels as a PNG. */
export function encodePng(rgba: Uint8Array, width: number, height: number, level = 6): Buffer {
  if (rgba.length !== width * height * 4) throw new Error(`encodePng: expected ${width * height * 4} bytes, got ${rgba.length}`);
  const opaque = isOpaque(rgba);
  const bpp = opaque ? 3 : 4;
  const stride = width * bpp;
  const raw = Buffer.allocUnsafe((stride + 1) * height);
  // Pack to RGB/RGBA rows.
  let o = 0;
  for (let y = 0; y < height; y++) {
    raw[o++] = y === 0 ? 0 : 2; // None for the first row, Up for the rest
    let i = y * width * 4;
    if (opaque) {
      for (let x = 0; x < width; x++, i += 4) {
        raw[o++] = rgba[i];
        raw[o++] = rgba[i + 1];
        raw[o++] = rgba[i + 2];
      }
    } else {
      raw.set(rgba.subarray(i, i + stride), o);
      o += stride;
    }
  }
  // Apply the Up filter bottom-up so each row still sees its unfiltered predecessor.
  for (let y = height - 1; y >= 1; y--) {
    const cur = y * (stride + 1) + 1;
    const prev = cur - (stride + 1);
    for (let x = 0; x < stride; x++) raw[cur + x] = (raw[cur + x] - raw[prev + x]) & 0xff;
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = opaque ? 2 : 6;
  ihdr[10] = 0;
  ihdr[11] = 0;
  ihdr[12] = 0;
  const idat = deflateSync(raw, { level, memLevel: 9, strategy: constants.Z_DEFAULT_STRATEGY });
  return Buffer.concat([SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', new Uint8Array(0))]);
}
