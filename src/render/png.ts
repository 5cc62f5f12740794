// RGBA (top row first) -> PNG. Our own small encoder over node:zlib: deterministic (fixed filter, fixed zlib
// settings) and fast (one "Up" filter per row instead of trying every filter). Writes colour type 2 (RGB) when every
// pixel is opaque, else 6 (RGBA).
import { deflate, deflateSync, constants, crc32 as zlibCrc32 } from 'node:zlib';
import { promisify } from 'node:util';

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
  const f = filtered(rgba, width, height);
  for (let y = 0; y < height; y += ROWS_PER_SLICE) f.rows(y, Math.min(height, y + ROWS_PER_SLICE));
  f.up(1, height);
  return f.png(deflateSync(f.raw, { level, memLevel: 9, strategy: constants.Z_DEFAULT_STRATEGY }));
}

const ROWS_PER_SLICE = 64;
/** Give the event loop a turn at least this often while packing a large picture. */
const YIELD_EVERY_MS = 10;
const deflateAsync = promisify(deflate);

/**
 * The same bytes as encodePng, without holding the event loop: rows are packed and filtered in slices with a turn
 * of the event loop between them, and deflate runs on libuv's thread pool (a 4K frame takes a second of one core
 * on a loaded machine).
 */
export async function encodePngAsync(rgba: Uint8Array, width: number, height: number, level = 6): Promise<Buffer> {
  const f = filtered(rgba, width, height);
  let last = performance.now();
  const turn = async () => {
    if (performance.now() - last < YIELD_EVERY_MS) return;
    await new Promise((r) => setImmediate(r));
    last = performance.now();
  };
  for (let y = 0; y < height; y += ROWS_PER_SLICE) {
    f.rows(y, Math.min(height, y + ROWS_PER_SLICE));
    await turn();
  }
  // bottom-up, slice by slice: each row must still see its unfiltered predecessor
  for (let y = height; y > 1; y -= ROWS_PER_SLICE) {
    f.up(Math.max(1, y - ROWS_PER_SLICE), y);
    await turn();
  }
  return f.png(await deflateAsync(f.raw, { level, memLevel: 9, strategy: constants.Z_DEFAULT_STRATEGY }));
}

/** The PNG's filtered scanlines, filled in row ranges, and the file around the compressed data. */
function filtered(rgba: Uint8Array, width: number, height: number) {
  if (rgba.length !== width * height * 4)
    throw new Error(`encodePng: expected ${width * height * 4} bytes, got ${rgba.length}`);
  const opaque = isOpaque(rgba);
  const bpp = opaque ? 3 : 4;
  const stride = width * bpp;
  const raw = Buffer.allocUnsafe((stride + 1) * height);
  return {
    raw,
    /** Packs rows [y0, y1) to RGB/RGBA. */
    rows(y0: number, y1: number) {
      let o = y0 * (stride + 1);
      for (let y = y0; y < y1; y++) {
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
    },
    /** Applies the Up filter to rows [y0, y1), bottom-up, once every row is packed. */
    up(y0: number, y1: number) {
      for (let y = y1 - 1; y >= y0; y--) {
        const cur = y * (stride + 1) + 1;
        const prev = cur - (stride + 1);
        for (let x = 0; x < stride; x++) raw[cur + x] = (raw[cur + x] - raw[prev + x]) & 0xff;
      }
    },
    png(idat: Buffer): Buffer {
      const ihdr = Buffer.alloc(13);
      ihdr.writeUInt32BE(width, 0);
      ihdr.writeUInt32BE(height, 4);
      ihdr[8] = 8;
      ihdr[9] = opaque ? 2 : 6;
      ihdr[10] = 0;
      ihdr[11] = 0;
      ihdr[12] = 0;
      return Buffer.concat([SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', new Uint8Array(0))]);
    },
  };
}
