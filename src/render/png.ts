// RGBA (top row first) -> PNG. Our own small encoder over node:zlib: deterministic (fixed filter, fixed zlib
// settings) and fast (one "Up" filter per row instead of trying every filter, taken four bytes at a time). Writes
// colour type 2 (RGB) when every pixel is opaque, else 6 (RGBA).
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

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** The picture as 32-bit words (one a pixel) when its bytes allow a view (aligned, little-endian), else null. */
function words(rgba: Uint8Array): Uint32Array | null {
  return LITTLE_ENDIAN && rgba.byteOffset % 4 === 0
    ? new Uint32Array(rgba.buffer, rgba.byteOffset, rgba.length >>> 2)
    : null;
}

function isOpaque(rgba: Uint8Array, w32: Uint32Array | null): boolean {
  if (w32) {
    for (let i = 0; i < w32.length; i++) if (w32[i]! < 0xff000000) return false;
    return true;
  }
  for (let i = 3; i < rgba.length; i += 4) if (rgba[i] !== 255) return false;
  return true;
}

/**
 * How the picture's bytes are laid out: `bottomUp`, its rows bottom first (a WebGL read back as it is); `opaque`, the
 * picture is opaque whatever its alpha bytes say (an opaque job's read back: alpha is dropped, colour type 2).
 */
export interface PngInput {
  bottomUp?: boolean;
  opaque?: boolean;
}

/** Encodes RGBA pixels (top row first unless `input.bottomUp`) as a PNG. */
export function encodePng(rgba: Uint8Array, width: number, height: number, level = 6, input: PngInput = {}): Buffer {
  const f = filtered(rgba, width, height, input);
  f.rows(0, height);
  return f.png(deflateSync(f.raw, { level, memLevel: 9, strategy: constants.Z_DEFAULT_STRATEGY }));
}

const ROWS_PER_SLICE = 128;
/** Give the event loop a turn at least this often while packing a large picture. */
const YIELD_EVERY_MS = 10;
const deflateAsync = promisify(deflate);

/**
 * The same bytes as encodePng, without holding the event loop: rows are packed and filtered in slices with a turn
 * of the event loop between them, and deflate runs on libuv's thread pool (a 4K frame takes a second of one core
 * on a loaded machine).
 */
export async function encodePngAsync(
  rgba: Uint8Array,
  width: number,
  height: number,
  level = 6,
  input: PngInput = {},
): Promise<Buffer> {
  const f = filtered(rgba, width, height, input);
  let last = performance.now();
  for (let y = 0; y < height; y += ROWS_PER_SLICE) {
    f.rows(y, Math.min(height, y + ROWS_PER_SLICE));
    if (performance.now() - last < YIELD_EVERY_MS) continue;
    await new Promise((r) => setImmediate(r));
    last = performance.now();
  }
  return f.png(await deflateAsync(f.raw, { level, memLevel: 9, strategy: constants.Z_DEFAULT_STRATEGY }));
}

const HI = 0x80808080;
const LO = 0x7f7f7f7f;

/**
 * The PNG's filtered scanlines, filled in row ranges in any order, and the file around the compressed data. The
 * Up filter is byte-wise, so it is taken on the RGBA words (four bytes at a time, without borrows between them)
 * before alpha is dropped: the same bytes as packing first and filtering after, in one pass. A row equal to the one
 * above (most of a flat 2D frame) is a row of zeros, found by memcmp.
 */
function filtered(input: Uint8Array, width: number, height: number, { bottomUp = false, opaque: known }: PngInput) {
  if (input.length !== width * height * 4)
    throw new Error(`encodePng: expected ${width * height * 4} bytes, got ${input.length}`);
  // a view of 32-bit words needs 4-byte alignment: an unaligned picture (rare: a pooled small Buffer) is copied
  const rgba = input.byteOffset % 4 === 0 ? input : new Uint8Array(input);
  const w32 = words(rgba);
  const opaque = known === true || isOpaque(rgba, w32);
  const bpp = opaque ? 3 : 4;
  const stride = width * bpp;
  const rowBytes = width * 4;
  const raw = Buffer.allocUnsafe((stride + 1) * height);
  const src = Buffer.from(rgba.buffer, rgba.byteOffset, rgba.length);
  const diff = new Uint32Array(width);
  const diffBytes = new Uint8Array(diff.buffer);
  return {
    raw,
    /** Packs and filters rows [y0, y1): None for the first row, Up for the rest. */
    rows(y0: number, y1: number) {
      for (let y = y0; y < y1; y++) {
        let o = y * (stride + 1);
        raw[o++] = y === 0 ? 0 : 2;
        // the picture's row y and the one above it (in the picture's own order)
        const i = (bottomUp ? height - 1 - y : y) * rowBytes;
        const above = bottomUp ? i + rowBytes : i - rowBytes;
        if (y > 0 && src.compare(src, above, above + rowBytes, i, i + rowBytes) === 0) {
          raw.fill(0, o, o + stride);
          continue;
        }
        if (!w32) {
          byteRow(rgba, raw, o, i, y > 0 ? above : -1, width, opaque);
          continue;
        }
        const p = i >>> 2;
        if (y === 0) diff.set(w32.subarray(p, p + width));
        else
          for (let x = 0, q = above >>> 2; x < width; x++) {
            const a = w32[p + x]!;
            const b = w32[q + x]!;
            diff[x] = (((a | HI) >>> 0) - (b & LO)) ^ ((a ^ ~b) & HI);
          }
        if (!opaque) {
          raw.set(diffBytes, o);
          continue;
        }
        for (let x = 0; x < width; x++) {
          const d = diff[x]!;
          raw[o++] = d & 0xff;
          raw[o++] = (d >>> 8) & 0xff;
          raw[o++] = (d >>> 16) & 0xff;
        }
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

/** One row byte by byte (a big-endian machine, where the word layout differs): prev -1 for the first row. */
function byteRow(rgba: Uint8Array, raw: Buffer, o: number, i: number, prev: number, width: number, opaque: boolean) {
  for (let x = 0; x < width * 4; x++) {
    if (opaque && (x & 3) === 3) continue;
    raw[o++] = prev < 0 ? rgba[i + x]! : (rgba[i + x]! - rgba[prev + x]!) & 0xff;
  }
}
