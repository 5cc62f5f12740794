// A frame the page drew only in part (viewer/src/damage.ts) arrives as the rectangle that changed; the picture is
// the page's previous one with that rectangle written over it. Pictures are RGBA or I420 (src/contract/yuv.ts:
// Y plane, then U and V at half width and height), top row first.
import type { PixelFormat } from './page/draw-script.js';

/** The changed rectangle of a picture (top row 0) and its pixels in the picture's format, rows top first. */
export interface Patch {
  x: number;
  y: number;
  width: number;
  height: number;
  pixels: Buffer;
}

/** Copies `src` (rows of `w` bytes, `rows` of them) into `dst` at byte column `x`, row `y` of a `stride`-wide plane. */
function blit(
  dst: Buffer,
  dstOffset: number,
  stride: number,
  x: number,
  y: number,
  src: Buffer,
  srcOffset: number,
  w: number,
  rows: number,
) {
  for (let r = 0; r < rows; r++)
    src.copy(dst, dstOffset + (y + r) * stride + x, srcOffset + r * w, srcOffset + (r + 1) * w);
}

/**
 * A new picture: `previous` (which the caller may still be using, so it is copied, not changed) with the patch
 * written over it. An I420 patch has even offsets and sides, so it covers whole chroma samples.
 */
export function patchPicture(
  previous: Buffer,
  patch: Patch,
  format: PixelFormat,
  width: number,
  height: number,
): Buffer {
  const { x, y, width: w, height: h, pixels } = patch;
  if (x < 0 || y < 0 || w < 1 || h < 1 || x + w > width || y + h > height)
    throw new Error(`patch ${w}x${h} at ${x},${y} is outside the ${width}x${height} picture`);
  const out = Buffer.from(previous);
  if (format === 'rgba') {
    blit(out, 0, width * 4, x * 4, y, pixels, 0, w * 4, h);
    return out;
  }
  if ((x | y | w | h) & 1) throw new Error(`I420 patch ${w}x${h} at ${x},${y} is not on 2x2 blocks`);
  const ySize = width * height;
  const cw = width / 2;
  const pw = w / 2,
    ph = h / 2;
  blit(out, 0, width, x, y, pixels, 0, w, h);
  blit(out, ySize, cw, x / 2, y / 2, pixels, w * h, pw, ph);
  blit(out, ySize + ySize / 4, cw, x / 2, y / 2, pixels, w * h + pw * ph, pw, ph);
  return out;
}
